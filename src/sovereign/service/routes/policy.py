"""``GET|POST /api/v1/conversation/policy``: the household's web-search switch (DESIGN §4)."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict

from ..bodies import ValidTextRoute
from ..errors import storage_error
from ..state import Services, services

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/api/v1/conversation", tags=["conversation"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


class Policy(BaseModel):
    """Whether web search (and web fetch) may be proposed to the household at all."""

    model_config = ConfigDict(extra="forbid", strict=True)
    web_search_enabled: bool


@router.get("/policy")
async def read_policy(deps: Deps) -> Policy:
    """The switch as it is in effect now (a corrupt file reads as off)."""
    return Policy(**deps.policy.read().to_wire())


@router.post("/policy")
async def write_policy(body: Policy, deps: Deps) -> Policy:
    """Store the switch atomically; it applies from the next message on.

    Errors: 422 INVALID_REQUEST for anything but ``{"web_search_enabled": bool}``;
    503 POLICY_NOT_SAVED when the data directory cannot be written (the old
    setting stays in force).
    """
    try:
        reading = await asyncio.to_thread(deps.policy.set_web_search, body.web_search_enabled)
    except OSError as exc:
        logger.error("policy not saved to %s: %s", deps.policy.path, exc)
        what = "The setting could not be saved and the old one still applies"
        raise storage_error(exc, what, "POLICY_NOT_SAVED") from exc
    return Policy(**reading.to_wire())
