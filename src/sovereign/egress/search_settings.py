"""The household's search settings: SearXNG's ``language`` and ``safesearch`` (DESIGN §1).

Pure data and checks; imports nothing of ours. The household sets them (the Console's
settings, ``sovereign search-settings``); the model never does. web.search adds them
to its canonical arguments at validation, so the card shows them beside the query,
the token binds them and SearXNG receives exactly them (decision record:
docs/decisions/household-egress-settings.md).

The language codes are SearXNG's own list at the commit the appliance pins
(``searx/settings_defaults.py`` ``SXNG_LOCALE_TAGS``: ``all``, ``auto`` and every tag
of ``searx/sxng_locales.py``); SearXNG itself only checks the pattern
``^[a-z]{2,3}(-[a-zA-Z]{2})?$``, so a tag outside the list would be sent to the
engines unchecked. The English names are CLDR's (as a browser's
``Intl.DisplayNames`` gives them), not SearXNG's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .refusals import SettingRefused

__all__ = [
    "DEFAULT_SEARCH_SETTINGS",
    "LANGUAGES",
    "SAFESEARCH_LEVELS",
    "SearchSettings",
    "describe_search",
    "language_name",
    "parse_search_settings",
]

AUTO = "auto"
ALL = "all"

LANGUAGES: dict[str, str] = {
    ALL: "all languages",
    AUTO: "any language (the search service chooses)",
    "af": "Afrikaans",
    "ar": "Arabic",
    "ar-SA": "Arabic (Saudi Arabia)",
    "bg": "Bulgarian",
    "bg-BG": "Bulgarian (Bulgaria)",
    "ca": "Catalan",
    "ca-ES": "Catalan (Spain)",
    "cs": "Czech",
    "cs-CZ": "Czech (Czechia)",
    "cy": "Welsh",
    "da": "Danish",
    "da-DK": "Danish (Denmark)",
    "de": "German",
    "de-AT": "German (Austria)",
    "de-BE": "German (Belgium)",
    "de-CH": "German (Switzerland)",
    "de-DE": "German (Germany)",
    "el": "Greek",
    "el-GR": "Greek (Greece)",
    "en": "English",
    "en-AU": "English (Australia)",
    "en-CA": "English (Canada)",
    "en-GB": "English (United Kingdom)",
    "en-HK": "English (Hong Kong)",
    "en-IE": "English (Ireland)",
    "en-IN": "English (India)",
    "en-NZ": "English (New Zealand)",
    "en-PH": "English (Philippines)",
    "en-PK": "English (Pakistan)",
    "en-SG": "English (Singapore)",
    "en-US": "English (United States)",
    "en-ZA": "English (South Africa)",
    "es": "Spanish",
    "es-AR": "Spanish (Argentina)",
    "es-CL": "Spanish (Chile)",
    "es-CO": "Spanish (Colombia)",
    "es-ES": "Spanish (Spain)",
    "es-MX": "Spanish (Mexico)",
    "es-PE": "Spanish (Peru)",
    "es-VE": "Spanish (Venezuela)",
    "et": "Estonian",
    "et-EE": "Estonian (Estonia)",
    "fa": "Persian",
    "fi": "Finnish",
    "fi-FI": "Finnish (Finland)",
    "fil": "Filipino",
    "fil-PH": "Filipino (Philippines)",
    "fr": "French",
    "fr-BE": "French (Belgium)",
    "fr-CA": "French (Canada)",
    "fr-CH": "French (Switzerland)",
    "fr-FR": "French (France)",
    "gl": "Galician",
    "hi": "Hindi",
    "hi-IN": "Hindi (India)",
    "hr": "Croatian",
    "hr-HR": "Croatian (Croatia)",
    "hu": "Hungarian",
    "hu-HU": "Hungarian (Hungary)",
    "id": "Indonesian",
    "id-ID": "Indonesian (Indonesia)",
    "it": "Italian",
    "it-CH": "Italian (Switzerland)",
    "it-IT": "Italian (Italy)",
    "ja": "Japanese",
    "ja-JP": "Japanese (Japan)",
    "ko": "Korean",
    "ko-KR": "Korean (South Korea)",
    "lt": "Lithuanian",
    "lt-LT": "Lithuanian (Lithuania)",
    "lv": "Latvian",
    "lv-LV": "Latvian (Latvia)",
    "mi": "Māori",
    "mi-NZ": "Māori (New Zealand)",
    "nb": "Norwegian Bokmål",
    "nb-NO": "Norwegian Bokmål (Norway)",
    "nl": "Dutch",
    "nl-BE": "Dutch (Belgium)",
    "nl-NL": "Dutch (Netherlands)",
    "nn": "Norwegian Nynorsk",
    "nn-NO": "Norwegian Nynorsk (Norway)",
    "pl": "Polish",
    "pl-PL": "Polish (Poland)",
    "pt": "Portuguese",
    "pt-BR": "Portuguese (Brazil)",
    "pt-PT": "Portuguese (Portugal)",
    "ro": "Romanian",
    "ro-RO": "Romanian (Romania)",
    "ru": "Russian",
    "ru-RU": "Russian (Russia)",
    "sk": "Slovak",
    "sk-SK": "Slovak (Slovakia)",
    "sl": "Slovenian",
    "sl-SI": "Slovenian (Slovenia)",
    "sq": "Albanian",
    "sv": "Swedish",
    "sv-FI": "Swedish (Finland)",
    "sv-SE": "Swedish (Sweden)",
    "th": "Thai",
    "th-TH": "Thai (Thailand)",
    "tr": "Turkish",
    "tr-TR": "Turkish (Türkiye)",
    "uk": "Ukrainian",
    "uk-UA": "Ukrainian (Ukraine)",
    "vi": "Vietnamese",
    "vi-VN": "Vietnamese (Vietnam)",
    "zh": "Chinese",
    "zh-CN": "Chinese (China)",
    "zh-HK": "Chinese (Hong Kong)",
    "zh-TW": "Chinese (Taiwan)",
}
"""SearXNG language code → its name in English. ``auto`` is SearXNG's choice from the
request's Accept-Language header; web.search sends none, so SearXNG falls back to
``all`` (no language filter)."""

SAFESEARCH_LEVELS: dict[int, str] = {0: "off", 1: "moderate", 2: "strict"}
"""SearXNG's ``safesearch`` values (``searx/webadapter.py`` accepts exactly 0, 1, 2)."""


@dataclass(frozen=True)
class SearchSettings:
    """What every search sends besides the query.

    ``language``: a key of :data:`LANGUAGES`. ``safesearch``: a key of
    :data:`SAFESEARCH_LEVELS`. The defaults, on a new device: the language SearXNG
    chooses (``auto``) and safe search **moderate** (1), which a household with
    children expects; the household changes either in Settings, and every card shows
    both (docs/decisions/console-household-words.md).

    Raises:
        SettingRefused: either value is not one SearXNG accepts (a ``ValueError`` with a
            sentence naming it, keyed).
    """

    language: str = AUTO
    safesearch: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.language, str) or self.language not in LANGUAGES:
            raise SettingRefused(
                "search_language",
                "language: {value} is not a SearXNG language code "
                "(for example de, en-GB, fr, auto or all).",
                value=repr(str(self.language)[:40]),
            )
        if type(self.safesearch) is not int or self.safesearch not in SAFESEARCH_LEVELS:
            raise SettingRefused(
                "search_safesearch", "safesearch: must be 0 (off), 1 (moderate) or 2 (strict)."
            )

    def to_json(self) -> dict[str, Any]:
        """``{"language": str, "safesearch": int}``: the file's and the wire's shape."""
        return {"language": self.language, "safesearch": self.safesearch}


DEFAULT_SEARCH_SETTINGS = SearchSettings()


def parse_search_settings(value: Any) -> SearchSettings:
    """The settings a JSON object holds; both keys required, nothing else allowed.

    Raises:
        SettingRefused: not an object, a missing or unknown key, or a value SearXNG
            does not accept (the sentence names which; keyed).
    """
    if not isinstance(value, Mapping):
        raise SettingRefused("search_shape", 'search settings must be {{"language": ..., '
                             '"safesearch": ...}}.')  # fmt: skip
    extra = sorted(set(value) - {"language", "safesearch"})
    if extra:
        raise SettingRefused("search_unknown_setting", "unknown search setting {setting}.",
                             setting=repr(str(extra[0])[:40]))  # fmt: skip
    missing = [key for key in ("language", "safesearch") if key not in value]
    if missing:
        raise SettingRefused("search_missing_setting", "the search setting {setting} is missing.",
                             setting=missing[0])  # fmt: skip
    return SearchSettings(value["language"], value["safesearch"])


def language_name(code: str) -> str:
    """``"de"`` → ``"German"``; ``"auto"`` → ``"any language (the search service chooses)"``."""
    return LANGUAGES.get(code, code)


def describe_search(language: str, safesearch: int) -> str:
    """The card's words beside the query: ``"in German, safe search moderate"``."""
    level = SAFESEARCH_LEVELS.get(safesearch, str(safesearch))
    return f"in {language_name(language)}, safe search {level}"
