"""``POST /api/v1/conversation/message``: a new turn, or the answer to a pending confirmation.

The request and response shapes are DESIGN §4's. A pending turn belongs to the
session that started it (the session id is the turn's owner), so another
session's token is as invalid as an unknown one.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from sovereign.conversation import (
    InvalidConfirmation,
    InvalidEdit,
    ProgressSink,
    TurnFailed,
    TurnStopped,
)
from sovereign.conversation.backends.base import ContextTooLong, ModelError, ModelUnavailable
from sovereign.conversation.voice.around import before_the_turn
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.sentences import own

from ..bodies import ValidTextRoute
from ..console_words import console_words, run_time_words
from ..errors import ServiceError, storage_error
from ..household_settings import HouseholdSettingsStore
from ..session_auth import session_of
from ..state import Services, services
from ..streaming import TokenSink, event_stream, wants_event_stream
from ..turn_control import TurnControl, withdraw

router = APIRouter(prefix="/api/v1/conversation", tags=["conversation"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]

MAX_MESSAGE_CHARS = 8000
MAX_HISTORY_ENTRIES = 100
MAX_HISTORY_CHARS = 32000
MAX_REASON_CHARS = 500
_STRICT = ConfigDict(extra="forbid", strict=True)
UNKNOWN_CONFIRMATION = "That confirmation is unknown, already answered, expired or not yours."
"""The sentence of ``400 INVALID_CONFIRMATION`` for an answer to a card no turn waits on."""


class HistoryEntry(BaseModel):
    model_config = _STRICT
    role: Literal["user", "assistant"]
    content: str = Field(max_length=MAX_HISTORY_CHARS)


class ConfirmationAnswer(BaseModel):
    """The household's answer to ``pending_confirmation``.

    ``reason`` goes only with a denial. ``arguments`` only with an approval: the
    household **edited** the proposal (DESIGN §4). The edited arguments are a new
    proposal: validated, policy-checked and flag-checked again, with a new token;
    the old token is discarded and the model is told what was finally sent. When
    the edit's canonical form is exactly what was sent here and nothing in it is
    flagged, it runs at once; otherwise the answer is a new ``pending_confirmation``
    for it (``edited: true``). An edit that validation refuses is ``422
    INVALID_EDIT`` and the original card stays answerable until it expires.
    """

    model_config = _STRICT
    token: str = Field(min_length=1, max_length=256)
    approve: bool
    reason: str | None = Field(default=None, max_length=MAX_REASON_CHARS)
    arguments: dict[str, Any] | None = Field(
        default=None,
        description="Edited arguments of the pending call (only with approve: true).",
        json_schema_extra={"example": {"query": "school term dates"}},
    )

    @model_validator(mode="after")
    def _reason_only_when_denying(self) -> ConfirmationAnswer:
        if self.approve and self.reason is not None:
            raise ValueError("a reason can only accompany a denial (approve: false)")
        if not self.approve and self.arguments is not None:
            raise ValueError("edited arguments can only accompany an approval (approve: true)")
        return self


class MessageRequest(BaseModel):
    """Either ``message`` (with optional ``history``) or ``confirmation``, never both."""

    model_config = _STRICT
    message: str | None = Field(default=None, max_length=MAX_MESSAGE_CHARS)
    history: list[HistoryEntry] = Field(default_factory=list, max_length=MAX_HISTORY_ENTRIES)
    confirmation: ConfirmationAnswer | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> MessageRequest:
        if (self.message is None) == (self.confirmation is None):
            raise ValueError("send either message or confirmation, not both and not neither")
        if self.message is not None and not self.message.strip():
            raise ValueError("message must not be empty")
        if self.confirmation is not None and self.history:
            raise ValueError("history goes with a new message, not with a confirmation")
        return self


@router.post("/message")
async def message(
    body: MessageRequest,
    request: Request,
    deps: Deps,
    accept: Annotated[str | None, Header()] = None,
) -> Any:
    """Run a turn, or resume the paused one; stream it when asked for ``text/event-stream``.

    Errors: 400 INVALID_CONFIRMATION (unknown, foreign or swept token; a token
    this session already answered returns that answer's outcome instead),
    422 INVALID_EDIT (edited arguments refused; the card stays answerable),
    422 INVALID_REQUEST, 503 MODEL_UNAVAILABLE, 502 MODEL_ERROR.
    """
    session = session_of(request.scope)
    assert session is not None  # guaranteed by SessionAuthMiddleware for this path
    if body.confirmation is not None and body.confirmation.arguments is not None:
        check_edit(deps, body.confirmation, owner=session.id)  # a 422 before any stream

    if not wants_event_stream(accept):
        return await run_turn(deps, body, owner=session.id, on_token=None)
    control = deps.running.start(session.id)

    async def turn(on_token: TokenSink | None, on_progress: ProgressSink | None) -> dict[str, Any]:
        try:
            wire = await run_turn(
                deps, body, owner=session.id, on_token=on_token, on_progress=on_progress
            )
            return await _unless_stopped(deps, control, wire, owner=session.id)
        finally:
            deps.running.finish(control)

    return event_stream(turn, control)


class StopRequest(BaseModel):
    """``{"turn": id}``: the id of the stream's ``turn`` event."""

    model_config = _STRICT
    turn: str = Field(min_length=1, max_length=64)


@router.post("/stop", status_code=202)
async def stop(body: StopRequest, request: Request, deps: Deps) -> dict[str, Any]:
    """Stop this session's streamed turn where nothing is half done (:mod:`..turn_control`).

    The turn's stream then ends with an ``error`` event ``TURN_STOPPED`` holding the
    receipts of whatever already ran. Answers 202 ``{"turn", "stopping": true}``.

    Errors: 404 TURN_NOT_RUNNING (the turn already ended, or it is not this session's).
    """
    session = session_of(request.scope)
    assert session is not None  # guaranteed by SessionAuthMiddleware for this path
    if not deps.running.stop(body.turn, session.id):
        raise ServiceError(
            404,
            "TURN_NOT_RUNNING",
            "That answer has already finished, so there is nothing to stop.",
        )
    return {"turn": body.turn, "stopping": True}


@router.get("/pending")
async def pending(request: Request, deps: Deps) -> dict[str, Any]:
    """``{"pending": [pending_confirmation, ...]}``: this session's cards that still wait
    for an answer (a tab that showed one may have been closed), oldest first, each as
    the turn's answer carried it, ``expires_in_seconds`` counted down to now. Answer
    one with POST /message as usual, or withdraw it with POST /withdraw."""
    session = session_of(request.scope)
    assert session is not None  # guaranteed by SessionAuthMiddleware for this path
    return {"pending": deps.open_cards.of(session.id)}


@router.get("/words")
async def words(deps: Deps) -> dict[str, Any]:
    """The words the Console shows before the service has said anything of a turn, in
    the household's language (its setting, English when unset or unusable): the question
    is not read yet, so its own language cannot decide (docs/decisions/household-language.md).

    Answers ``{"language", "words": {"sending", "stop", "stopping"}, "console": {key:
    word}, "run_time": {key: word}}``, ``console`` being the Console's own words (its
    chrome) in that language and ``run_time`` the sentences it writes itself, their
    placeholders unfilled (:mod:`sovereign.service.console_words`).
    """
    store = HouseholdSettingsStore(deps.settings.data_dir)
    said = before_the_turn(Voice(await asyncio.to_thread(store.language)))
    language = said.pop("language")
    return {
        "language": language,
        "words": said,
        "console": console_words(language),
        "run_time": run_time_words(language),
    }


class WithdrawRequest(BaseModel):
    """``{"token": ...}``: the ``pending_confirmation.token`` of the card to withdraw."""

    model_config = _STRICT
    token: str = Field(min_length=1, max_length=256)


@router.post("/withdraw")
async def withdraw_card(body: WithdrawRequest, request: Request, deps: Deps) -> dict[str, Any]:
    """Withdraw a card without running anything: it is answered "denied", the turn ends
    before the model is asked again, and nothing is left waiting (:func:`withdraw`).

    Answers ``{"receipts": [...], "receipt": {...}, "language"}`` (the receipt said in the turn's
    language). Errors: 400 INVALID_CONFIRMATION (unknown, answered, expired or another
    session's card).
    """
    session = session_of(request.scope)
    assert session is not None  # guaranteed by SessionAuthMiddleware for this path
    try:
        withdrawn = await withdraw(deps.turns, body.token, session.id, deps.turn_policy())
    except InvalidConfirmation as exc:
        deps.open_cards.forget(body.token)
        raise ServiceError(
            400,
            "INVALID_CONFIRMATION",
            "That request is unknown, already answered, expired or not yours.",
        ) from exc
    deps.open_cards.forget(body.token)
    return withdrawn


async def _unless_stopped(
    deps: Services, control: TurnControl, wire: dict[str, Any], *, owner: str
) -> dict[str, Any]:
    """A turn that ended on a card after Stop was pressed: the card is withdrawn
    (nothing is left waiting) and the turn ends as stopped."""
    pending = wire.get("pending_confirmation")
    if not control.stop_requested or pending is None:
        return wire
    withdrawn = await withdraw(deps.turns, pending["token"], owner, deps.turn_policy())
    extra = {"citations": wire.get("citations", []), **withdrawn}
    raise turn_stopped(withdrawn["language"], extra)


async def run_turn(
    deps: Services,
    body: MessageRequest,
    *,
    owner: str,
    on_token: TokenSink | None,
    on_progress: ProgressSink | None = None,
) -> dict[str, Any]:
    """Start or resume a turn with the policy read now; returns the wire object.

    A confirmation is answered once: the same session sending the same token
    again (its connection dropped) gets the outcome of that answer, kept for
    ten minutes (:mod:`..retained`), instead of a 400.

    Raises:
        ServiceError: 400 INVALID_CONFIRMATION, 503 MODEL_UNAVAILABLE, 413
            CONVERSATION_TOO_LONG, 502 MODEL_ERROR, 503 STORAGE_UNAVAILABLE, 500
            INTERNAL_ERROR. Once the turn
            has begun, the error's body also holds the turn's ``citations``,
            ``receipts`` and ``receipt`` (DESIGN §4: a call that ran is never left
            unreported).
    """
    if body.confirmation is None:
        wire = await _run_turn(deps, body, owner, on_token, on_progress)
        deps.open_cards.remember(owner, wire)
        return wire
    token = body.confirmation.token
    try:
        wire = await deps.answers.answer(
            token, owner, lambda: _run_turn(deps, body, owner, on_token, on_progress)
        )
    except ServiceError as exc:
        if exc.code != "INVALID_EDIT":  # a refused edit leaves the card answerable
            deps.open_cards.forget(token)
        raise
    deps.open_cards.forget(token)
    deps.open_cards.remember(owner, wire)
    return wire


async def _run_turn(
    deps: Services,
    body: MessageRequest,
    owner: str,
    on_token: TokenSink | None,
    on_progress: ProgressSink | None,
) -> dict[str, Any]:
    policy = deps.turn_policy()
    try:
        if body.confirmation is not None:
            answer = body.confirmation
            result = await deps.turns.resume_turn(
                answer.token,
                answer.approve,
                policy=policy,
                owner=owner,
                reason=answer.reason,
                arguments=answer.arguments,
                on_token=on_token,
                on_progress=on_progress,
            )
        else:
            messages = [entry.model_dump() for entry in body.history]
            messages.append({"role": "user", "content": body.message})
            result = await deps.turns.process_turn(
                messages, policy=policy, owner=owner, on_token=on_token, on_progress=on_progress
            )
    except InvalidConfirmation as exc:
        raise ServiceError(400, "INVALID_CONFIRMATION", UNKNOWN_CONFIRMATION) from exc
    except InvalidEdit as exc:
        raise invalid_edit(exc) from exc
    except TurnFailed as failed:
        raise turn_error(failed) from failed
    return result.to_wire()


def check_edit(deps: Services, answer: ConfirmationAnswer, *, owner: str) -> None:
    """Refuse an edit that validation refuses, before anything is answered.

    A token the turn loop no longer holds is left to :func:`run_turn` (which
    replays an answer this session already gave, or answers 400).

    Raises:
        ServiceError: 422 INVALID_EDIT with the validation's sentence.
    """
    try:
        deps.turns.check_edit(answer.token, owner, answer.arguments)
    except InvalidConfirmation:
        return
    except InvalidEdit as exc:
        raise invalid_edit(exc) from exc


def invalid_edit(exc: InvalidEdit) -> ServiceError:
    """``422 INVALID_EDIT``: the refusal and that the card still waits, in the turn's
    language, with that ``language``; ``detail`` names what was refused (e.g. a character
    and its position), said in the turn's language from the executor's refusal code, else
    the executor's own English sentence; ``detail_language`` is the one it is said in."""
    detail, detail_language = exc.detail
    extra = {"language": exc.language, "detail": detail, "detail_language": detail_language}
    return ServiceError(422, "INVALID_EDIT", exc.sentence, extra=extra)


def turn_error(failed: TurnFailed) -> ServiceError:
    """The service's answer to a turn that failed, with the turn's provenance attached.
    A turn the household stopped is ``409 TURN_STOPPED``, its sentence in the turn's
    language (the Console shows it under what came)."""
    if isinstance(failed.error, TurnStopped):
        return turn_stopped(failed.language, failed.to_wire())
    status, code, message = _describe(failed.error, Voice(failed.language))
    return ServiceError(status, code, message, extra=failed.to_wire())


def turn_stopped(language: str, extra: dict[str, Any]) -> ServiceError:
    """``409 TURN_STOPPED``: the household pressed Stop; its sentence in ``language`` (the
    turn's), with the turn's provenance ``extra``."""
    return ServiceError(409, "TURN_STOPPED", own("turn_stopped", Voice(language)), extra=extra)


def _describe(error: Exception, voice: Voice) -> tuple[int, str, str]:
    """Status, code and sentence for a failed turn's ``error``, the sentence in ``voice``'s
    language (the turn's); a refused write keeps the storage check's English sentence."""
    if isinstance(error, OSError):  # a refused write (data directory full, read-only, ...)
        refused = storage_error(error)
        return refused.status, refused.code, refused.message
    if isinstance(error, ModelUnavailable):
        return 503, "MODEL_UNAVAILABLE", own("failed_model_unavailable", voice, reason=error)
    if isinstance(error, ContextTooLong):
        return 413, "CONVERSATION_TOO_LONG", own("failed_too_long", voice)
    if isinstance(error, ModelError):
        return 502, "MODEL_ERROR", own("failed_model_error", voice, reason=error)
    return 500, "INTERNAL_ERROR", own("failed_unexpectedly", voice)
