"""The household's own settings: the language of answers a question does not decide.

``<data>/household.json`` holds ``{"language": code}``, one of the languages the
product speaks (:data:`~sovereign.conversation.voice.catalogs.LANGUAGES`: en, de,
fr, es, nl, it). An answer's language is the question's (issue 29 item 3,
:mod:`sovereign.conversation.voice.language`); when a question is too short to tell
("RAM info", "ok") and the conversation before it does not tell either, this setting
decides. It goes through the one settings store (:mod:`.settings_store`): read fresh
for every turn (a change applies to the next question, no restart), written
atomically, one writer at a time. Absent means English. A corrupt file means English
too: the problem is logged, reported by ``sovereign doctor`` and shown in the
Console, and saving a language writes over it. Decision record:
docs/decisions/household-language.md.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babel import Locale

from sovereign.cli_words import CliWords
from sovereign.conversation.voice.catalogs import DEFAULT_LANGUAGE, LANGUAGES
from sovereign.egress import SettingRefused

from .settings_store import Reading, SettingsFile, SettingsKind, say_problem

FILENAME = "household.json"
LANGUAGE_KEY = "language"


@functools.cache
def language_names() -> dict[str, str]:
    """Each language the product speaks, by code, named in itself: ``{"de": "Deutsch", …}``.

    The names are CLDR's, through Babel. CLDR writes some in lower case inside a
    sentence ("français"); a menu starts them with a capital, as CLDR's
    ``uiListOrMenu`` context transform says (Babel does not carry the transforms).
    """
    names = {}
    for code in LANGUAGES:
        name = Locale.parse(code).get_display_name(code) or code
        names[code] = name[:1].upper() + name[1:]
    return names


@dataclass(frozen=True)
class HouseholdSettings:
    """What the household set for itself.

    Attributes:
        language: ISO 639-1 code of the language answers fall back to when a
            question does not tell its own (one of ``LANGUAGES``; default ``en``).

    Raises:
        ValueError: ``language`` is not one the product speaks (a sentence naming it
            and the choices).
    """

    language: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if not isinstance(self.language, str) or self.language not in LANGUAGES:
            shown = str(self.language)[:40]
            raise SettingRefused(
                "unknown_language",
                "The language {shown} is not one the assistant answers in; choose {choices}.",
                shown=repr(shown),
                choices=[f"{code} ({name})" for code, name in language_names().items()],
            )

    def to_json(self) -> dict[str, Any]:
        """``{"language": code}``: the file's and the wire's shape."""
        return {LANGUAGE_KEY: self.language}


def parse_household_settings(value: Any) -> HouseholdSettings:
    """The settings a JSON object holds: exactly ``{"language": code}``.

    Raises:
        ValueError: not that object, or a language the product does not speak.
    """
    if not isinstance(value, dict) or value.keys() != {LANGUAGE_KEY}:
        raise SettingRefused("household_shape", 'must hold exactly {{"language": code}}.')
    return HouseholdSettings(value[LANGUAGE_KEY])


HOUSEHOLD_FILE = SettingsKind(
    relative_path=FILENAME,
    default=HouseholdSettings(),
    parse=parse_household_settings,
    dump=lambda settings: settings.to_json(),
    log_prefix=f"{FILENAME} treated as absent (short questions answered in English)",
)
"""``household.json``: the household's language, English when absent or unusable."""


class HouseholdSettingsStore:
    """``<data_dir>/household.json``: the household's own settings.

    Args:
        data_dir: the service's data directory.
    """

    def __init__(self, data_dir: Path) -> None:
        self._file = SettingsFile(data_dir, HOUSEHOLD_FILE)
        self.path = self._file.path

    def read(self, *, log: bool = True) -> Reading[HouseholdSettings]:
        """The settings in effect now and the file's problem, if any; never raises."""
        return self._file.read(log=log)

    def language(self) -> str:
        """The household's language now (the turn loop's reader, called once per turn)."""
        return self.read().value.language

    def save(self, settings: HouseholdSettings) -> HouseholdSettings:
        """Store ``settings`` whole, over whatever the file held.

        Raises:
            OSError: the data directory cannot be written (the old file stays).
        """
        return self._file.replace(settings)


def check_household_settings(
    data_dir: Path, words: CliWords | None = None
) -> tuple[bool, str, str | None]:
    """For ``sovereign doctor``: ``(ok, sentence, fix)`` about ``household.json``, said in
    ``words``' language (English by default)."""
    words = words or CliWords()
    reading = HouseholdSettingsStore(data_dir).read(log=False)
    if reading.problem:
        problem = words.say("check_household_bad", problem=say_problem(reading.problem, words))
        return False, problem, words.say("check_household_fix")
    code = reading.value.language
    return True, words.say("check_household", name=language_names()[code], code=code), None
