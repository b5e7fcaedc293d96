"""What the Console's About view shows of this appliance (``GET /api/v1/about``).

The product's name, its version (the one ``/healthz`` gives), its licence, where the model
answering the household runs, and the data directory. The words around them are the
Console's own (``console_words``); these are the facts. Nothing secret is here: no password,
token, key or settings file's content, and a model server elsewhere is named by its host
alone, never with a user, password, port, path or query its address may hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sovereign import __version__

from .hosts import is_this_device
from .settings import Settings

PRODUCT = "Sovereign"
LICENCE = "Apache-2.0"
"""The product's licence as ``pyproject.toml`` declares it (SPDX); its text is ``LICENSE``."""


def about(settings: Settings) -> dict[str, Any]:
    """``{"product", "version", "licence", "model", "data_dir"}``: ``model`` as
    :func:`model_location` says it, ``data_dir`` the absolute data directory."""
    return {
        "product": PRODUCT,
        "version": __version__,
        "licence": LICENCE,
        "model": model_location(settings),
        "data_dir": str(Path(settings.data_dir).absolute()),
    }


def model_location(settings: Settings) -> dict[str, Any]:
    """Where the household's questions are answered: ``{"on_device": True, "host": None}``
    for the embedded (or demo) model and a model server on this device's loopback;
    ``{"on_device": False, "host": name}`` for a server elsewhere, which the questions and
    the conversation leave this device to reach."""
    if settings.backend != "openai":
        return {"on_device": True, "host": None}
    host = urlsplit(settings.openai_base_url).hostname or ""
    if is_this_device(host):
        return {"on_device": True, "host": None}
    return {"on_device": False, "host": host}
