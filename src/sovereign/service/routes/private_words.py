"""``GET|POST /api/v1/settings/private-words``: the household's private words (DESIGN §4).

The words (names, street, school) the household-identifier check flags on a card
before anything leaves, kept in ``<data>/private-words.json``. The answer also
says what the check learns by itself (Home Assistant, Pi-hole, this device's
names and addresses, the Wi-Fi name), as counts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..bodies import ValidTextRoute
from ..console_words import household_problem, household_voice, say_refusal
from ..errors import ServiceError, storage_error
from ..private_words import MAX_WORD_CHARS, PrivateWordsError, PrivateWordsReading
from ..settings_store import SettingsUnreadable
from ..state import Services, services

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/api/v1/settings", tags=["settings"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


class PrivateWords(BaseModel):
    """The list in effect, the file's problem if any, and the automatic sources."""

    words: list[str]
    problem: str | None = Field(
        description="Why the file cannot be used (in the household's language), or null. "
        "While set, the check runs without private words (if the file is unreadable) and "
        "changes are refused."
    )
    automatic: dict[str, int] = Field(
        description="How many names each automatic source gives the check: "
        "home_assistant, pihole, device_names, device_addresses, wifi."
    )


class PrivateWordsChange(BaseModel):
    """Exactly one of ``add`` or ``remove``: one word or phrase (matched ignoring case)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    add: str | None = Field(default=None, max_length=MAX_WORD_CHARS * 2)
    remove: str | None = Field(default=None, max_length=MAX_WORD_CHARS * 2)

    @model_validator(mode="after")
    def _exactly_one(self) -> PrivateWordsChange:
        if (self.add is None) == (self.remove is None):
            raise ValueError("send either add or remove, one word at a time")
        return self


def _wire(deps: Services, reading: PrivateWordsReading) -> PrivateWords:
    problem = household_problem(deps.settings.data_dir, reading.problem)
    return PrivateWords(words=list(reading.words), problem=problem, automatic=_automatic(deps))


def _automatic(deps: Services) -> dict[str, Any]:
    try:
        return deps.household.summary()
    except OSError as exc:  # a source that cannot be read counts as empty
        logger.warning("household sources not read: %s", exc)
        return {}


@router.get("/private-words")
async def read_private_words(deps: Deps) -> PrivateWords:
    """The household's private words as the check uses them now."""
    reading = await asyncio.to_thread(deps.household.words.read)
    return await asyncio.to_thread(_wire, deps, reading)


@router.post("/private-words")
async def change_private_words(body: PrivateWordsChange, deps: Deps) -> PrivateWords:
    """Add or remove one word; it applies to the next card.

    Errors: 422 INVALID_PRIVATE_WORD (empty, too long, fewer than two letters or
    digits, an invisible character, a full list; said in the household's language),
    409 PRIVATE_WORDS_UNREADABLE (the file must be fixed or removed first; it is never
    written over), 503 PRIVATE_WORDS_NOT_SAVED (the data directory refused the write;
    the old list stays).
    """
    store = deps.household.words
    change = store.add if body.add is not None else store.remove
    try:
        reading = await asyncio.to_thread(change, body.add if body.add is not None else body.remove)
    except PrivateWordsError as exc:
        voice = await asyncio.to_thread(household_voice, deps.settings.data_dir)
        raise ServiceError(422, "INVALID_PRIVATE_WORD", say_refusal(voice, exc)) from exc
    except SettingsUnreadable as exc:
        raise ServiceError(409, "PRIVATE_WORDS_UNREADABLE", str(exc)) from exc
    except OSError as exc:
        logger.error("private words not saved to %s: %s", store.path, exc)
        what = "The private words could not be saved and the old list still applies"
        raise storage_error(exc, what, "PRIVATE_WORDS_NOT_SAVED") from exc
    return await asyncio.to_thread(_wire, deps, reading)
