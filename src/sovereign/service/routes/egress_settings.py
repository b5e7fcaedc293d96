"""``GET|POST /api/v1/settings/sites`` and ``/api/v1/settings/search``: what may leave.

The household's site list for web.fetch and its search language and safe search for
web.search (:mod:`sovereign.service.egress_settings`). Session-authenticated with the
CSRF header on both methods, like the policy switch; a write replaces the whole
setting atomically and applies from the next proposal on.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from sovereign.capabilities.site_rules import MAX_RULE_CHARACTERS, parse_rule
from sovereign.egress import (
    LANGUAGES,
    SAFESEARCH_LEVELS,
    SearchSettings,
    SiteList,
    SiteMode,
)

from ..bodies import ValidTextRoute
from ..console_words import household_problem, household_voice, say_refusal
from ..egress_settings import (
    MAX_RULES,
    SearchSettingsStore,
    SiteListStore,
    sites_to_json,
)
from ..errors import ServiceError, storage_error
from ..state import Services, services

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/api/v1/settings", tags=["settings"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]
Site = Annotated[str, Field(max_length=MAX_RULE_CHARACTERS + 8)]


class Sites(BaseModel):
    """The site list: ``mode`` chooses which list applies; both are kept."""

    model_config = ConfigDict(extra="forbid", strict=True)
    mode: Literal["off", "allow-only", "block"]
    allow: list[Site] = Field(default_factory=list, max_length=MAX_RULES)
    block: list[Site] = Field(default_factory=list, max_length=MAX_RULES)


class SitesReading(Sites):
    """The list in effect, canonical, and the file's problem (``null`` when none; in the
    household's language)."""

    problem: str | None = None


class Search(BaseModel):
    """SearXNG's ``language`` (a code from ``languages``) and ``safesearch`` (0, 1, 2)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    language: str
    safesearch: int


class SearchReading(Search):
    """The settings in effect, the choices, and the file's problem (``null`` when none; in
    the household's language)."""

    problem: str | None = None
    languages: list[dict[str, str]]
    safesearch_levels: list[dict[str, Any]]


@router.get("/sites")
async def read_sites(deps: Deps) -> SitesReading:
    """The site list in effect now (a corrupt file reads as no list, with its problem)."""
    data_dir = deps.settings.data_dir
    reading = SiteListStore(data_dir).read()
    problem = await asyncio.to_thread(household_problem, data_dir, reading.problem)
    return SitesReading(**sites_to_json(reading.value), problem=problem)


@router.post("/sites")
async def write_sites(body: Sites, deps: Deps) -> SitesReading:
    """Replace the site list; every site is checked and stored in its canonical form.

    Errors (sentences in the household's language): 422 INVALID_SITE naming the site
    and why (a public suffix wildcard, a local name, a private address, a path ...),
    422 INVALID_REQUEST for a malformed body, 503 SETTINGS_NOT_SAVED when the data
    directory refuses the write (the old list stays in force).
    """
    site_list = await asyncio.to_thread(_checked_sites, body, deps.settings.data_dir)
    store = SiteListStore(deps.settings.data_dir)
    await _save(store.save, site_list, store.path)
    return SitesReading(**sites_to_json(site_list))


@router.get("/search")
async def read_search(deps: Deps) -> SearchReading:
    """The search settings in effect now, with every language and level to choose from."""
    data_dir = deps.settings.data_dir
    reading = SearchSettingsStore(data_dir).read()
    problem = await asyncio.to_thread(household_problem, data_dir, reading.problem)
    return _search_reading(reading.value, problem)


@router.post("/search")
async def write_search(body: Search, deps: Deps) -> SearchReading:
    """Store the search language and safe search; shown on, and bound by, every card.

    Errors (sentences in the household's language): 422 INVALID_SEARCH_SETTINGS for a
    language SearXNG does not list or a safesearch other than 0, 1, 2; 503
    SETTINGS_NOT_SAVED (the old settings stay).
    """
    try:
        settings = SearchSettings(body.language, body.safesearch)
    except ValueError as exc:
        voice = await asyncio.to_thread(household_voice, deps.settings.data_dir)
        sentence = _sentence(say_refusal(voice, exc))
        raise ServiceError(422, "INVALID_SEARCH_SETTINGS", sentence) from exc
    store = SearchSettingsStore(deps.settings.data_dir)
    await _save(store.save, settings, store.path)
    return _search_reading(settings, None)


LISTS = {
    "allow": ("sites_refused_allow", "allow list: {sentence}"),
    "block": ("sites_refused_block", "block list: {sentence}"),
}
"""Which list a refused site was in, as (catalog key, English)."""


def _checked_sites(body: Sites, data_dir: Path) -> SiteList:
    lists = []
    for name, entries in (("allow", body.allow), ("block", body.block)):
        rules = []
        for entry in entries:
            try:
                rule = parse_rule(entry)
            except ValueError as exc:
                voice = household_voice(data_dir)
                sentence = voice.say(*LISTS[name], sentence=say_refusal(voice, exc))
                raise ServiceError(422, "INVALID_SITE", sentence) from exc
            if rule not in rules:
                rules.append(rule)
        lists.append(tuple(rules))
    return SiteList(SiteMode(body.mode), *lists)


async def _save(save: Any, value: Any, path: Any) -> None:
    try:
        await asyncio.to_thread(save, value)
    except OSError as exc:
        logger.error("settings not saved to %s: %s", path, exc)
        what = "The setting could not be saved and the old one still applies"
        raise storage_error(exc, what, "SETTINGS_NOT_SAVED") from exc


def _search_reading(settings: SearchSettings, problem: str | None) -> SearchReading:
    return SearchReading(
        **settings.to_json(),
        problem=problem,
        languages=[{"code": code, "name": name} for code, name in LANGUAGES.items()],
        safesearch_levels=[{"value": v, "name": n} for v, n in SAFESEARCH_LEVELS.items()],
    )


def _sentence(exc: ValueError) -> str:
    text = str(exc)
    return text[0].upper() + text[1:] if text else "The value is not valid."
