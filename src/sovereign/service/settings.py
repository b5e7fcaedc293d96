"""The service's settings: where it keeps data, where it listens, which model it asks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sovereign.paths import data_dir as default_data_dir

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8092
BACKENDS = ("embedded", "openai", "scripted")
TOOL_MODES = ("auto", "native", "schema")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


@dataclass(frozen=True)
class Settings:
    """Everything ``create_app`` needs; built from CLI options and the environment.

    Attributes:
        data_dir: the data directory (policy, audit log, password, settings files).
        host / port: where ``sovereign serve`` listens (default 127.0.0.1:8092).
        backend: ``embedded`` (default), ``openai`` (any OpenAI-compatible server,
            e.g. llama-server) or ``scripted`` (a fixed reply, for trying the API).
        openai_base_url / openai_model: the OpenAI-compatible server and model name.
        tool_mode: how the model chooses tools: ``schema`` (a JSON-schema-constrained
            decision; better for small models), ``native`` (the model's own tool
            calls) or ``auto`` (the default: schema for the embedded model; for
            openai, what the server showed it supports, see ``sovereign doctor``).
        model_path: a GGUF file for the embedded backend instead of the verified
            default model (``sovereign model install``).
        searxng_url: SearXNG's base URL for ``web.search`` (loopback port 8093).
        unsafe_web_fetch_options: keyword options passed to ``web_fetch.register``
            (a resolver and address policy for tests against 127.0.0.1). Tests only:
            it can weaken the SSRF guard, hence the name.
    """

    data_dir: Path = field(default_factory=default_data_dir)
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    backend: str = "embedded"
    openai_base_url: str = "http://127.0.0.1:8081/v1"
    openai_model: str = "local"
    tool_mode: str | None = None
    model_path: Path | None = None
    searxng_url: str = "http://127.0.0.1:8093"
    unsafe_web_fetch_options: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}")
        if self.tool_mode not in (None, *TOOL_MODES):
            raise ValueError(f"tool_mode must be one of {', '.join(TOOL_MODES)}")
        if not 0 < self.port < 65536:
            raise ValueError("port must be between 1 and 65535")

    @property
    def loopback_only(self) -> bool:
        """True when the service listens on this device only."""
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")


def settings_from_environment(**overrides: Any) -> Settings:
    """Settings from ``SOVEREIGN_*`` variables, then ``overrides`` (``None`` values ignored).

    Reads ``SOVEREIGN_DATA_DIR`` (through :mod:`sovereign.paths`),
    ``SOVEREIGN_BACKEND``, ``SOVEREIGN_OPENAI_BASE_URL``, ``SOVEREIGN_OPENAI_MODEL``,
    ``SOVEREIGN_TOOL_MODE``, ``SOVEREIGN_MODEL_PATH`` and ``SOVEREIGN_SEARXNG_URL``.

    Raises:
        ValueError: an unknown backend or a port out of range.
    """
    values: dict[str, Any] = {}
    names = ("backend", "openai_base_url", "openai_model", "tool_mode", "model_path", "searxng_url")
    for name in names:
        configured = os.environ.get(f"SOVEREIGN_{name.upper()}")
        if configured:
            values[name] = configured
    values.update({key: value for key, value in overrides.items() if value is not None})
    for name in ("data_dir", "model_path"):
        if name in values:
            values[name] = Path(values[name]).expanduser()
    return Settings(**values)
