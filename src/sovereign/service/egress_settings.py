"""The household's settings for what may leave: the site list and the search settings.

``<data>/capabilities/sites.json`` holds ``{"mode": "off"|"allow-only"|"block",
"allow": [site, ...], "block": [site, ...]}`` (web.fetch); ``<data>/capabilities/
search.json`` holds ``{"language": code, "safesearch": 0|1|2}`` (web.search). Both
go through the one settings store (:mod:`.settings_store`): read fresh whenever a
capability asks, written atomically and mode 0600, one writer at a time. Absent
means the defaults: no list; ``auto`` and safe search moderate (1). A corrupt file means the
defaults too: the problem is logged and reported by ``sovereign doctor`` and the
Console. Decision record: docs/decisions/household-egress-settings.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sovereign.capabilities.site_rules import parse_rule
from sovereign.cli_words import CliWords
from sovereign.egress import (
    DEFAULT_SEARCH_SETTINGS,
    SearchSettings,
    SettingRefused,
    SiteList,
    SiteMode,
    SiteRule,
    parse_search_settings,
)
from sovereign.net import AddressPolicy

from .settings_store import Reading, SettingsFile, SettingsKind, say_problem

SITES_FILENAME = "sites.json"
SEARCH_FILENAME = "search.json"
MAX_RULES = 1000
"""Most rules per list (allow and block each)."""
_READ_POLICY = AddressPolicy(local_interfaces=tuple)
"""Re-reading stored rules applies the fixed range table only: the device's addresses
are checked when a rule is added, and the address policy refuses them at every fetch."""

def _parse_sites(value: Any) -> SiteList:
    if not isinstance(value, dict) or set(value) - {"mode", "allow", "block"}:
        raise SettingRefused("sites_shape", 'must hold {{"mode": ..., "allow": [...], '
                             '"block": [...]}}.')  # fmt: skip
    try:
        mode = SiteMode(value.get("mode", SiteMode.OFF))
    except ValueError:
        raise SettingRefused("sites_mode", "mode must be off, allow-only or block.") from None
    lists = [_parse_rules(value.get(name, []), name) for name in ("allow", "block")]
    return SiteList(mode, *lists)


def _parse_rules(entries: Any, name: str) -> tuple[SiteRule, ...]:
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise SettingRefused("sites_not_a_list", "{name} must be a list of sites.", name=name)
    if len(entries) > MAX_RULES:
        raise SettingRefused("sites_too_many", "{name} holds more than {limit} sites.",
                             name=name, limit=MAX_RULES)  # fmt: skip
    rules: list[SiteRule] = []
    for number, entry in enumerate(entries, 1):
        try:
            rule = parse_rule(entry, _READ_POLICY)
        except ValueError as exc:
            raise SettingRefused("sites_entry", "{name} entry {number} is not a site: {reason}",
                                 name=name, number=number, reason=exc) from None  # fmt: skip
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


SITES_FILE = SettingsKind(
    relative_path=f"capabilities/{SITES_FILENAME}",
    default=SiteList(),
    parse=_parse_sites,
    dump=sites_to_json,
    log_prefix=f"{SITES_FILENAME} treated as absent",
)
"""``sites.json``: the site list for web.fetch (no list when absent or unusable)."""
SEARCH_FILE = SettingsKind(
    relative_path=f"capabilities/{SEARCH_FILENAME}",
    default=DEFAULT_SEARCH_SETTINGS,
    parse=parse_search_settings,
    dump=lambda settings: settings.to_json(),
    log_prefix=f"{SEARCH_FILENAME} treated as absent",
)
"""``search.json``: language and safe search for web.search (defaults when absent or unusable)."""


class SiteListStore:
    """``<data_dir>/capabilities/sites.json``: the household's site list for web.fetch."""

    def __init__(self, data_dir: Path) -> None:
        self._file = SettingsFile(data_dir, SITES_FILE)
        self.path = self._file.path

    def read(self) -> Reading[SiteList]:
        """The list in effect now and the file's problem, if any; never raises."""
        return self._file.read()

    def site_list(self) -> SiteList:
        """The list in effect now (web.fetch's reader)."""
        return self.read().value

    def save(self, site_list: SiteList) -> SiteList:
        """Replace the whole list (the Console's form). Raises OSError (the old file stays)."""
        return self._file.replace(site_list)

    def update(self, change: Callable[[SiteList], SiteList]) -> SiteList:
        """Change the list as one read-change-write no other writer interleaves with.

        Raises:
            SettingsUnreadable: the file is corrupt (left as it is).
            OSError: the data directory cannot be written.
        """
        return self._file.update(change)


class SearchSettingsStore:
    """``<data_dir>/capabilities/search.json``: the household's language and safe search."""

    def __init__(self, data_dir: Path) -> None:
        self._file = SettingsFile(data_dir, SEARCH_FILE)
        self.path = self._file.path

    def read(self) -> Reading[SearchSettings]:
        """The settings in effect now and the file's problem, if any; never raises."""
        return self._file.read()

    def settings(self) -> SearchSettings:
        """The settings in effect now (web.search's reader)."""
        return self.read().value

    def save(self, settings: SearchSettings) -> SearchSettings:
        """Store ``settings`` whole. Raises OSError (the old file stays)."""
        return self._file.replace(settings)

    def update(self, change: Callable[[SearchSettings], SearchSettings]) -> SearchSettings:
        """Change the settings in one locked read-change-write (as :meth:`SiteListStore.update`)."""
        return self._file.update(change)


Finding = tuple[str, bool, str, str | None]


def check_egress_settings(data_dir: Path, words: CliWords | None = None) -> list[Finding]:
    """For ``sovereign doctor``: ``(check, ok, sentence, fix)`` for sites.json and
    search.json, said in ``words``' language (English by default)."""
    words = words or CliWords()
    findings: list[Finding] = []
    sites = SiteListStore(data_dir).read()
    if sites.problem:
        problem = words.say("check_sites_bad", problem=say_problem(sites.problem, words))
        findings.append(("site list", False, problem, words.say("check_sites_fix")))
    else:
        value = sites.value
        detail = words.say_count("check_sites", len(value.active_rules), mode=value.mode)
        findings.append(("site list", True, detail, None))
    search = SearchSettingsStore(data_dir).read()
    if search.problem:
        problem = words.say("check_search_bad", problem=say_problem(search.problem, words))
        findings.append(("search settings", False, problem, words.say("check_search_fix")))
    else:
        value = search.value
        detail = words.say(
            "check_search", language=value.language, safesearch=value.safesearch
        )
        findings.append(("search settings", True, detail, None))
    return findings
