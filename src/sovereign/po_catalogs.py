"""Gettext catalogs read from their ``.po`` files with Babel, compiled in memory.

A leaf (it imports nothing of ours): the conversation's catalogs, the capabilities'
and ``sovereign chat``'s and the commands' own are all read this way, each by its own
layer, through :func:`translations`.
"""

from __future__ import annotations

import functools
import io
import logging
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

logger = logging.getLogger(__name__)


def read_catalog(path: Path, language: str, domain: str) -> NullTranslations:
    """The catalog at ``path`` (``<directory>/<language>/LC_MESSAGES/<domain>.po``).

    Returns:
        Babel translations; for a file that is missing or unreadable (logged),
        translations that give back the English source text.
    """
    if not path.is_file():
        return NullTranslations()
    try:
        with path.open("rb") as source:
            catalog = read_po(source, locale=language, domain=domain)
        compiled = io.BytesIO()
        write_mo(compiled, catalog)
        compiled.seek(0)
        return Translations(compiled, domain=domain)
    except (OSError, ValueError) as error:
        logger.error("the catalog %s cannot be read (%s); its sentences are said in English",
                     path, error)  # fmt: skip
        return NullTranslations()


SOURCE_LANGUAGE = "en"
"""The language of every message id: its sentences need no catalog."""


@functools.lru_cache(maxsize=128)
def translations(directory: Path, domain: str, language: str) -> NullTranslations:
    """The compiled catalog ``<directory>/<language>/LC_MESSAGES/<domain>.po``, read once
    per process.

    Returns:
        Babel translations; for English, or a catalog that is missing or unreadable
        (logged), translations that give back the English source text.
    """
    if language == SOURCE_LANGUAGE:
        return NullTranslations()
    path = Path(directory) / language / "LC_MESSAGES" / f"{domain}.po"
    return read_catalog(path, language, domain)
