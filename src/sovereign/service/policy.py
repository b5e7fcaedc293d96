"""The household's policy switch for web search, stored in one small file (DESIGN §4).

``<data>/capabilities/policy.json`` holds ``{"web_search_enabled": bool}``. It is
read fresh on every message (no cache: a change applies to the next message
without a restart). Absent means off. A corrupt or wrongly typed file also
means off, and the problem is logged and reported by ``sovereign doctor``; so is
one with a byte-order mark, a repeated or unknown key, or anything but UTF-8
(:mod:`~sovereign.strict_json`): the service never writes such a file.
Reading and writing go through the one settings store (:mod:`.settings_store`):
atomic writes, one writer at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sovereign.cli_words import CliWords
from sovereign.egress import SettingRefused

from .settings_store import SettingsFile, SettingsKind, say_problem

POLICY_FILENAME = "policy.json"
WEB_SEARCH_KEY = "web_search_enabled"


def _parse(value: Any) -> bool:
    if (not isinstance(value, dict) or value.keys() != {WEB_SEARCH_KEY}
            or not isinstance(value[WEB_SEARCH_KEY], bool)):  # fmt: skip
        raise SettingRefused("policy_shape", 'must hold exactly {{"web_search_enabled": '
                             "true|false}}.")  # fmt: skip
    return value[WEB_SEARCH_KEY]


POLICY_FILE = SettingsKind(
    relative_path=f"capabilities/{POLICY_FILENAME}",
    default=False,
    parse=_parse,
    dump=lambda enabled: {WEB_SEARCH_KEY: bool(enabled)},
    log_prefix="web search treated as off",
)
"""``policy.json``: the web-search switch, off when absent or unusable."""


@dataclass(frozen=True)
class PolicyReading:
    """What the policy file says.

    ``web_search_enabled`` is the effective switch (False unless the file says
    exactly ``true``). ``problem`` is a sentence when the file exists but could not
    be used, else ``None``.
    """

    web_search_enabled: bool
    problem: str | None = None

    def to_wire(self) -> dict[str, bool]:
        """``{"web_search_enabled": bool}``, the body of GET/POST /conversation/policy."""
        return {WEB_SEARCH_KEY: self.web_search_enabled}


class PolicyStore:
    """Reads and writes the policy file of one data directory.

    Args:
        data_dir: the service's data directory; the file is
            ``<data_dir>/capabilities/policy.json``.
    """

    def __init__(self, data_dir: Path) -> None:
        self._file = SettingsFile(data_dir, POLICY_FILE)
        self.path = self._file.path

    def read(self, *, log: bool = True) -> PolicyReading:
        """Read the file now; never raises (an unusable file reads as off).

        Args:
            log: report a problem in the log (once per distinct problem).
        """
        reading = self._file.read(log=log)
        return PolicyReading(reading.value, reading.problem)

    def turn_policy(self) -> dict[str, bool]:
        """The per-request policy a turn sees: ``{"external_enabled": web_search_enabled}``."""
        return {"external_enabled": self.read().web_search_enabled}

    def set_web_search(self, enabled: bool) -> PolicyReading:
        """Store the switch atomically and return what is now in effect.

        Raises:
            OSError: the data directory cannot be written (the old file is untouched).
        """
        return PolicyReading(self._file.replace(bool(enabled)))


def check_policy_file(data_dir: Path, words: CliWords | None = None) -> tuple[bool, str]:
    """For ``sovereign doctor``: ``(ok, sentence)`` about the policy file of ``data_dir``,
    said in ``words``' language (English by default)."""
    words = words or CliWords()
    reading = SettingsFile(data_dir, POLICY_FILE).read(log=False)
    if reading.problem:
        return False, words.say("check_policy_bad", problem=say_problem(reading.problem, words))
    return True, words.say("check_policy_on" if reading.value else "check_policy_off")
