"""The household's policy switch for web search, stored in one small file (DESIGN §4).

``<data>/capabilities/policy.json`` holds ``{"web_search_enabled": bool}``. It is
read fresh on every message (no cache: a change applies to the next message
without a restart). Absent means off. A corrupt or wrongly typed file also
means off, and the problem is logged and reported by ``sovereign doctor``; so is
one with a byte-order mark, a repeated or unknown key, or anything but UTF-8
(:mod:`~sovereign.strict_json`): the service never writes such a file.
Writes are atomic (see :mod:`sovereign.service.atomic`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from sovereign.strict_json import StrictJSONError, loads_strict

from .atomic import write_json_atomic

logger = logging.getLogger(__name__)

POLICY_FILENAME = "policy.json"
WEB_SEARCH_KEY = "web_search_enabled"


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
        self.path = Path(data_dir) / "capabilities" / POLICY_FILENAME
        self._write_lock = threading.Lock()
        self._last_problem: str | None = None

    def read(self, *, log: bool = True) -> PolicyReading:
        """Read the file now; never raises (an unusable file reads as off).

        Args:
            log: report a problem in the log (once per distinct problem).
        """
        reading = _parse(self.path)
        if log and reading.problem and reading.problem != self._last_problem:
            logger.warning("web search treated as off: %s", reading.problem)
        self._last_problem = reading.problem
        return reading

    def turn_policy(self) -> dict[str, bool]:
        """The per-request policy a turn sees: ``{"external_enabled": web_search_enabled}``."""
        return {"external_enabled": self.read().web_search_enabled}

    def set_web_search(self, enabled: bool) -> PolicyReading:
        """Store the switch atomically and return what is now in effect.

        Raises:
            OSError: the data directory cannot be written (the old file is untouched).
        """
        with self._write_lock:
            write_json_atomic(self.path, {WEB_SEARCH_KEY: bool(enabled)})
        return PolicyReading(bool(enabled))


def _parse(path: Path) -> PolicyReading:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return PolicyReading(False)
    except OSError as exc:
        return PolicyReading(False, f"{path} cannot be read ({exc.strerror}).")
    try:
        value = loads_strict(raw)
    except StrictJSONError as exc:
        return PolicyReading(False, f"{path} {exc}.")
    if (
        not isinstance(value, dict)
        or value.keys() != {WEB_SEARCH_KEY}
        or not isinstance(value[WEB_SEARCH_KEY], bool)
    ):
        return PolicyReading(False, f'{path} must hold exactly {{"{WEB_SEARCH_KEY}": true|false}}.')
    return PolicyReading(value[WEB_SEARCH_KEY])


def check_policy_file(data_dir: Path) -> tuple[bool, str]:
    """For ``sovereign doctor``: ``(ok, sentence)`` about the policy file of ``data_dir``."""
    reading = _parse(Path(data_dir) / "capabilities" / POLICY_FILENAME)
    if reading.problem:
        return False, f"{reading.problem} Web search is off until it is fixed."
    state = "on" if reading.web_search_enabled else "off"
    return True, f"policy file readable; web search is {state}"
