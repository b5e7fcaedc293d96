"""The household's settings for what may leave: the site list and the search settings.

``<data>/capabilities/sites.json`` holds ``{"mode": "off"|"allow-only"|"block",
"allow": [site, ...], "block": [site, ...]}`` (web.fetch); ``<data>/capabilities/
search.json`` holds ``{"language": code, "safesearch": 0|1|2}`` (web.search). Both
are read fresh whenever a capability asks (a parsed copy is reused while the file's
inode, size and mtime stay the same), written atomically (temp file, fsync, rename)
and mode 0600. Absent means the defaults: no list; ``auto`` and safe search off. A
corrupt file means the defaults too: the problem is logged and reported by
``sovereign doctor`` and the Console. Decision record:
docs/decisions/household-egress-settings.md.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from sovereign.capabilities.site_rules import parse_rule
from sovereign.egress import (
    DEFAULT_SEARCH_SETTINGS,
    SearchSettings,
    SiteList,
    SiteMode,
    SiteRule,
    parse_search_settings,
)
from sovereign.net import AddressPolicy
from sovereign.strict_json import StrictJSONError, loads_strict

from .atomic import write_json_atomic

logger = logging.getLogger(__name__)

SITES_FILENAME = "sites.json"
SEARCH_FILENAME = "search.json"
MAX_FILE_BYTES = 256 * 1024
"""Largest settings file read, in bytes; a bigger one is reported as corrupt."""
MAX_RULES = 1000
"""Most rules per list (allow and block each)."""
_READ_POLICY = AddressPolicy(local_interfaces=tuple)
"""Re-reading stored rules applies the fixed range table only: the device's addresses
are checked when a rule is added, and the address policy refuses them at every fetch."""

T = TypeVar("T")


@dataclass(frozen=True)
class Reading(Generic[T]):
    """What a settings file says: ``value`` in effect, ``problem`` a sentence or None."""

    value: T
    problem: str | None = None


class _SettingsFile(Generic[T]):
    """One JSON settings file: fresh reads (cached by file identity), atomic writes."""

    def __init__(self, path: Path, default: T, parse: Callable[[Any], T]) -> None:
        self.path = path
        self._default, self._parse = default, parse
        self._lock = threading.Lock()
        self._cache: tuple[tuple[int, int, int], Reading[T]] | None = None
        self._last_problem: str | None = None

    def read(self) -> Reading[T]:
        """The file now; never raises (an unusable file reads as the default)."""
        reading = self._read()
        if reading.problem and reading.problem != self._last_problem:
            logger.warning("%s treated as absent: %s", self.path.name, reading.problem)
        self._last_problem = reading.problem
        return reading

    def _read(self) -> Reading[T]:
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return Reading(self._default)
        except OSError as exc:
            return Reading(self._default, f"{self.path} cannot be read ({exc.strerror}).")
        identity = (info.st_ino, info.st_size, info.st_mtime_ns)
        cached = self._cache
        if cached is not None and cached[0] == identity:
            return cached[1]
        reading = self._parse_file(info.st_size)
        self._cache = (identity, reading)
        return reading

    def _parse_file(self, size: int) -> Reading[T]:
        if size > MAX_FILE_BYTES:
            return Reading(self._default, f"{self.path} is larger than {MAX_FILE_BYTES} bytes.")
        try:
            value = loads_strict(self.path.read_bytes())
        except OSError as exc:
            return Reading(self._default, f"{self.path} cannot be read ({exc.strerror}).")
        except StrictJSONError as exc:
            return Reading(self._default, f"{self.path} {exc}.")
        try:
            return Reading(self._parse(value))
        except ValueError as exc:
            return Reading(self._default, f"{self.path}: {exc}")

    def write(self, value: Any) -> None:
        """Store ``value`` (JSON) atomically. Raises OSError: the old file is untouched."""
        with self._lock:
            write_json_atomic(self.path, value)


def _parse_sites(value: Any) -> SiteList:
    if not isinstance(value, dict) or set(value) - {"mode", "allow", "block"}:
        raise ValueError('must hold {"mode": ..., "allow": [...], "block": [...]}.')
    try:
        mode = SiteMode(value.get("mode", SiteMode.OFF))
    except ValueError:
        raise ValueError("mode must be off, allow-only or block.") from None
    lists = [_parse_rules(value.get(name, []), name) for name in ("allow", "block")]
    return SiteList(mode, *lists)


def _parse_rules(entries: Any, name: str) -> tuple[SiteRule, ...]:
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ValueError(f"{name} must be a list of sites.")
    if len(entries) > MAX_RULES:
        raise ValueError(f"{name} holds more than {MAX_RULES} sites.")
    rules: list[SiteRule] = []
    for number, entry in enumerate(entries, 1):
        try:
            rule = parse_rule(entry, _READ_POLICY)
        except ValueError as exc:
            raise ValueError(f"{name} entry {number} is not a site: {exc}") from None
        if rule not in rules:
            rules.append(rule)
    return tuple(rules)


def sites_to_json(site_list: SiteList) -> dict[str, Any]:
    """The file's (and the API's) shape of ``site_list``."""
    return {
        "mode": str(site_list.mode),
        "allow": [rule.text for rule in site_list.allow],
        "block": [rule.text for rule in site_list.block],
    }


class SiteListStore:
    """``<data_dir>/capabilities/sites.json``: the household's site list for web.fetch."""

    def __init__(self, data_dir: Path) -> None:
        path = Path(data_dir) / "capabilities" / SITES_FILENAME
        self._file = _SettingsFile(path, SiteList(), _parse_sites)
        self.path = path

    def read(self) -> Reading[SiteList]:
        """The list in effect now and the file's problem, if any; never raises."""
        return self._file.read()

    def site_list(self) -> SiteList:
        """The list in effect now (web.fetch's reader)."""
        return self.read().value

    def save(self, site_list: SiteList) -> SiteList:
        """Store ``site_list`` atomically. Raises OSError (the old file stays)."""
        self._file.write(sites_to_json(site_list))
        return site_list


class SearchSettingsStore:
    """``<data_dir>/capabilities/search.json``: the household's language and safe search."""

    def __init__(self, data_dir: Path) -> None:
        path = Path(data_dir) / "capabilities" / SEARCH_FILENAME
        self._file = _SettingsFile(path, DEFAULT_SEARCH_SETTINGS, parse_search_settings)
        self.path = path

    def read(self) -> Reading[SearchSettings]:
        """The settings in effect now and the file's problem, if any; never raises."""
        return self._file.read()

    def settings(self) -> SearchSettings:
        """The settings in effect now (web.search's reader)."""
        return self.read().value

    def save(self, settings: SearchSettings) -> SearchSettings:
        """Store ``settings`` atomically. Raises OSError (the old file stays)."""
        self._file.write(settings.to_json())
        return settings


Finding = tuple[str, bool, str, str | None]


def check_egress_settings(data_dir: Path) -> list[Finding]:
    """For ``sovereign doctor``: ``(check, ok, sentence, fix)`` for sites.json and search.json."""
    findings: list[Finding] = []
    sites = SiteListStore(data_dir).read()
    if sites.problem:
        fix = "correct or delete the file, then set the list again (sovereign sites …)"
        problem = f"{sites.problem} web.fetch applies no site list until it is fixed."
        findings.append(("site list", False, problem, fix))
    else:
        value = sites.value
        detail = f"mode {value.mode}, {len(value.active_rules)} site(s) apply"
        findings.append(("site list", True, detail, None))
    search = SearchSettingsStore(data_dir).read()
    if search.problem:
        fix = "set them again: sovereign search-settings --language … --safesearch …"
        problem = f"{search.problem} Searches use language auto and safe search off."
        findings.append(("search settings", False, problem, fix))
    else:
        value = search.value
        detail = f"language {value.language}, safesearch {value.safesearch}"
        findings.append(("search settings", True, detail, None))
    return findings
