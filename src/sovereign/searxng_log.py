"""Which SearXNG engines failed to start, read from SearXNG's own log (for ``sovereign doctor``).

SearXNG runs each engine's ``init()`` at start-up; an engine whose ``init()`` (or
``setup()``, or module import) fails is left out of every search, silently, until the
next restart. It says so only in its log. The lines matched are SearXNG's own wording
(``searx/search/processors/abstract.py`` and ``searx/engines/__init__.py`` at commit
9fea41204), e.g. ``(PID 7) wikidata: engine INIT failed, exception: ...`` and
``Cannot load engine "soundcloud"``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable

__all__ = ["SEARXNG_UNITS", "failed_engines", "read_searxng_log", "read_unit_log"]

SEARXNG_UNITS = ("sovereign-searxng.service", "sovereign-searxng-source.service")
"""The systemd units that run SearXNG (deploy/searxng/systemd): container, or from source."""

_PATTERNS = (
    re.compile(r"\(PID \d+\) (?P<name>[^:]+): engine INIT failed"),
    re.compile(r"\(PID \d+\) (?P<name>[^:]+): can't register engines processor"),
    re.compile(r"\(PID \d+\) (?P<name>[^:]+): engine SETUP failed"),
    re.compile(r"\(PID \d+\) (?P<name>[^:]+): engine setup was not successful"),
    re.compile(r'Cannot load engine "(?P<name>[^"]+)"'),
    re.compile(r'Fatal exception in engine "(?P<name>[^"]+)"'),
)


def failed_engines(lines: Iterable[str]) -> list[str]:
    """The engine (or engine module) names SearXNG's log says failed to start, sorted."""
    names = set()
    for line in lines:
        for pattern in _PATTERNS:
            match = pattern.search(line)
            if match:
                names.add(match.group("name").strip())
    return sorted(names)


def read_searxng_log() -> list[str] | None:
    """The log of the current run of whichever of :data:`SEARXNG_UNITS` is running."""
    for unit in SEARXNG_UNITS:
        lines = read_unit_log(unit)
        if lines is not None:
            return lines
    return None


def read_unit_log(unit: str, timeout_seconds: float = 10.0) -> list[str] | None:
    """The journal lines of ``unit``'s current run (its systemd invocation), or ``None``
    when there is no systemd journal, the unit is not running, or reading fails."""
    if not (shutil.which("systemctl") and shutil.which("journalctl")):
        return None
    try:
        show = ["systemctl", "show", "-p", "InvocationID", "--value", unit]
        invocation = _run(show, timeout_seconds)
        if not invocation:
            return None
        text = _run(
            ["journalctl", f"_SYSTEMD_INVOCATION_ID={invocation}", "-o", "cat", "--no-pager"],
            timeout_seconds,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return text.splitlines()


def _run(command: list[str], timeout_seconds: float) -> str:
    done = subprocess.run(  # noqa: S603 (fixed programs, no shell, our own arguments)
        command, capture_output=True, text=True, timeout=timeout_seconds, check=True
    )
    return done.stdout.strip()
