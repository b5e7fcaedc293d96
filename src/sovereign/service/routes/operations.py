"""Operations routes: ``/healthz`` for the service itself, the About view's facts and the audit
summary."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from sovereign import __version__
from sovereign.conversation.voice.activity import say_activity
from sovereign.conversation.voice.catalogs import Voice

from ..about import about
from ..audit_summary import MAX_DAYS, audit_path, summarize
from ..bodies import ValidTextRoute
from ..errors import ServiceError
from ..household_settings import HouseholdSettingsStore
from ..state import Services, services

router = APIRouter(tags=["operations"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """``{"status": "ok", "version": ...}`` while the service answers; needs no sign-in."""
    return {"status": "ok", "version": __version__}


@router.get("/api/v1/about")
async def about_appliance(deps: Deps) -> dict[str, Any]:
    """What the Console's About view shows: ``{"product", "version", "licence", "model":
    {"on_device", "host"}, "data_dir"}`` (:func:`sovereign.service.about.about`). Signed in
    only; it holds nothing secret (a model server elsewhere is named by its host alone)."""
    return about(deps.settings)


@router.get("/api/v1/audit/summary")
async def audit_summary(
    deps: Deps, days: Annotated[int, Query(ge=1, le=MAX_DAYS)] = 7
) -> dict[str, Any]:
    """Counts per capability and outcome over the last ``days`` days (default 7).

    See :func:`sovereign.service.audit_summary.summarize` for the shape: the
    counts, ``may_have_left`` (external calls that started and have no outcome),
    ``clock_jumps``, ``set_aside_lines``, ``lost_records`` and ``unreadable_lines``. Errors:
    422 INVALID_REQUEST for ``days`` outside 1..3650; 503 AUDIT_UNREADABLE when
    the audit file exists but cannot be read. ``said`` tells the summary in words, in the
    household's language (:func:`sovereign.conversation.voice.activity.say_activity`):
    ``{"language", "sentences", "notes", "repairs"}`` (the owner's repairs by the capability's
    household name).
    """
    try:
        summary = await asyncio.to_thread(summarize, audit_path(deps.settings.data_dir), days=days)
    except OSError as exc:
        raise ServiceError(503, "AUDIT_UNREADABLE", "The audit log cannot be read.") from exc
    language = await asyncio.to_thread(HouseholdSettingsStore(deps.settings.data_dir).language)
    return {**summary, "said": say_activity(summary, Voice(language))}
