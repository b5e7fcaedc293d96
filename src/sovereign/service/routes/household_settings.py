"""``GET|POST /api/v1/settings/household``: the household's own settings (its language).

Session-authenticated with the CSRF header on both methods, like the other settings;
a write replaces the setting atomically and applies from the next question on
(:mod:`sovereign.service.household_settings`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from ..bodies import ValidTextRoute
from ..console_words import household_problem, household_voice, say_refusal
from ..errors import ServiceError, storage_error
from ..household_settings import HouseholdSettings, HouseholdSettingsStore, language_names
from ..state import Services, services

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/api/v1/settings", tags=["settings"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


class Household(BaseModel):
    """``language``: the code of the language answers fall back to when a question is
    too short to tell its own (one of the ``languages`` a GET lists)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    language: str


class LanguageChoice(BaseModel):
    """A language the assistant answers in: its code and its name in itself ("Deutsch")."""

    code: str
    name: str


class HouseholdReading(Household):
    """The settings in effect, the languages to choose from, and the file's problem."""

    problem: str | None = Field(
        description="Why the file cannot be used (in the household's language, which is "
        "English while it is set), or null. While set, English applies; saving a language "
        "writes over the file."
    )
    languages: list[LanguageChoice]


@router.get("/household")
async def read_household(deps: Deps) -> HouseholdReading:
    """The household's settings in effect now (a corrupt file reads as English)."""
    store = HouseholdSettingsStore(deps.settings.data_dir)
    reading = await asyncio.to_thread(store.read)
    problem = await asyncio.to_thread(household_problem, deps.settings.data_dir, reading.problem)
    return _reading(reading.value, problem)


@router.post("/household")
async def write_household(body: Household, deps: Deps) -> HouseholdReading:
    """Store the household's language; the next question that does not tell its own
    language is answered in it.

    Errors: 422 UNKNOWN_LANGUAGE for a code the assistant does not answer in (the
    sentence, in the household's language as it is set now, lists the choices), 422
    INVALID_REQUEST for a malformed body, 503 SETTINGS_NOT_SAVED when the data
    directory refuses the write (the old setting stays in force).
    """
    store = HouseholdSettingsStore(deps.settings.data_dir)
    try:
        settings = HouseholdSettings(body.language)
    except ValueError as exc:
        voice = await asyncio.to_thread(household_voice, deps.settings.data_dir)
        raise ServiceError(422, "UNKNOWN_LANGUAGE", say_refusal(voice, exc)) from exc
    try:
        await asyncio.to_thread(store.save, settings)
    except OSError as exc:
        logger.error("household settings not saved to %s: %s", store.path, exc)
        what = "The setting could not be saved and the old one still applies"
        raise storage_error(exc, what, "SETTINGS_NOT_SAVED") from exc
    return _reading(settings, None)


def _reading(settings: HouseholdSettings, problem: str | None) -> HouseholdReading:
    choices = [LanguageChoice(code=code, name=name) for code, name in language_names().items()]
    return HouseholdReading(**settings.to_json(), problem=problem, languages=choices)
