"""Message catalogs: every sentence the product says, per language (DESIGN §4, "Language is data").

Sentences are English source text (the gettext message id) with a context
(``msgctxt``) saying where they are used; their translations live in gettext
``.po`` catalogs, ``<directory>/<language>/LC_MESSAGES/<domain>.po``: the
conversation's own beside this module (domain ``conversation``), each capability's
beside it (named by its :class:`~sovereign.executor.facts.FactSheet` or
:class:`~sovereign.executor.facts.Phrases`). Catalogs are read with Babel and
compiled in memory once per process; a sentence a catalog lacks is said in English.
"""

from __future__ import annotations

from pathlib import Path

from sovereign.po_catalogs import translations

LANGUAGES = ("en", "de", "fr", "es", "nl", "it")
"""The languages the product speaks (ISO 639-1); English is the source language."""
DEFAULT_LANGUAGE = "en"
OWN_CATALOGS = Path(__file__).resolve().parent / "locale"
"""Where the conversation's own catalogs are (domain ``conversation``)."""
OWN_DOMAIN = "conversation"


class Voice:
    """The sentences of one language, from one catalog domain.

    Args:
        language: ISO 639-1 code; one of :data:`LANGUAGES` (others speak English).
        directory, domain: the catalog (default: the conversation's own).
    """

    def __init__(
        self, language: str, directory: Path = OWN_CATALOGS, domain: str = OWN_DOMAIN
    ) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE
        self._translations = translations(Path(directory), domain, self.language)

    def say(self, context: str, text: str, **values: object) -> str:
        """``text`` (English source, with ``{placeholders}``) in this language, filled.

        Args:
            context: where the sentence is used (its ``msgctxt``).
            text: the English sentence.
            values: what fills its placeholders (already formatted for this language).
        """
        return self._translations.pgettext(context, text).format(**values)

    def say_count(self, context: str, one: str, many: str, count: int, **values: object) -> str:
        """The singular or plural sentence for ``count`` by this language's plural rule,
        filled (``{count}`` is available to it as given in ``values``)."""
        return self._translations.npgettext(context, one, many, count).format(**values)

    def with_catalog(self, directory: Path, domain: str) -> Voice:
        """The same language from another catalog (a capability's)."""
        return Voice(self.language, directory, domain)
