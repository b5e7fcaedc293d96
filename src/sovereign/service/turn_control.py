"""Stopping a streamed turn where nothing is half done (the Console's Stop button).

A streamed turn is registered in :class:`RunningTurns` under an id the stream's
first event carries; ``POST /api/v1/conversation/stop`` asks it to stop. A stop
never cuts anything in the middle:

- a model request (waiting behind another question, loading the model, choosing,
  writing) is cut short at once: :class:`StoppableBackend` cancels it, which
  closes an HTTP model's stream and stops the embedded model's generation;
- a capability that has started runs to its end (an approved call is never cut
  off half-way, and its audit record is closed with its outcome); the turn stops
  at the next stage event, before any model request or any other call;
- a card the turn stopped on is withdrawn (answered "denied", so its audit
  record is closed and no paused turn is left behind).

The turn then ends with :class:`~sovereign.conversation.TurnStopped` inside a
``TurnFailed`` that carries the receipts and citations of what already ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from sovereign.conversation import Progress, TurnFailed, TurnStopped
from sovereign.conversation.backends.base import ModelReply

_current: ContextVar[TurnControl | None] = ContextVar("sovereign_turn_control", default=None)


class TurnControl:
    """One running turn that may be stopped.

    Attributes:
        id: unguessable id of the turn (sent to the client in the ``turn`` event).
        owner: the session that started it; only it may stop it.
        stage: the latest :class:`Progress` reported (``None`` before the first).
    """

    def __init__(self, owner: str) -> None:
        self.id = secrets.token_urlsafe(16)
        self.owner = owner
        self.stage: Progress | None = None
        self.stopped = asyncio.Event()

    @property
    def stop_requested(self) -> bool:
        """True once :meth:`request_stop` was called."""
        return self.stopped.is_set()

    def request_stop(self) -> None:
        """Ask the turn to stop at its next safe point (see the module docstring)."""
        self.stopped.set()

    async def on_progress(self, progress: Progress) -> None:
        """A progress sink: remembers the stage; raises :class:`TurnStopped` when a stop
        was asked for (each stage event comes before a model request or a call starts)."""
        self.stage = progress
        self.check()

    def check(self) -> None:
        """Raises :class:`TurnStopped` when a stop was asked for."""
        if self.stop_requested:
            raise TurnStopped("stopped by the household")

    @contextlib.contextmanager
    def governing(self) -> Any:
        """Within the block, model requests of this task obey this control."""
        reset = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(reset)


class RunningTurns:
    """The streamed turns running now, by id (in memory, one service process)."""

    def __init__(self) -> None:
        self._turns: dict[str, TurnControl] = {}

    def start(self, owner: str) -> TurnControl:
        """Register a new turn of ``owner``; call :meth:`finish` when it ends."""
        control = TurnControl(owner)
        self._turns[control.id] = control
        return control

    def finish(self, control: TurnControl) -> None:
        """Forget a turn that ended (idempotent)."""
        self._turns.pop(control.id, None)

    def now(self) -> list[TurnControl]:
        """The turns running now, oldest first."""
        return list(self._turns.values())

    def stop(self, turn_id: str, owner: str) -> bool:
        """Ask ``owner``'s running turn ``turn_id`` to stop.

        Returns:
            False when no such turn of ``owner`` is running (it ended, or it is
            another session's): a foreign id is as unknown as a wrong one.
        """
        control = self._turns.get(turn_id)
        if control is None or not secrets.compare_digest(control.owner, owner):
            return False
        control.request_stop()
        return True


class StoppableBackend:
    """A model backend whose requests a :class:`TurnControl` can cut short.

    Outside a governed turn (plain JSON requests, the terminal's in-process chat)
    it is the inner backend. Inside one, a stop cancels the running request and
    raises :class:`TurnStopped`; every other attribute is the inner backend's.

    Args:
        inner: any :class:`~sovereign.conversation.ModelBackend`.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def complete(self, messages: Any, **options: Any) -> ModelReply:
        """The inner backend's ``complete``, abandoned (and cancelled) on a stop.

        Raises:
            TurnStopped: the turn was asked to stop before or during the request.
            Anything the inner backend raises.
        """
        control = _current.get()
        if control is None:
            return await self.inner.complete(messages, **options)
        control.check()
        work = asyncio.ensure_future(self.inner.complete(messages, **options))
        stop = asyncio.ensure_future(control.stopped.wait())
        try:
            await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not work.done():
                work.cancel()  # the generation stops (HTTP stream closed, or stop flag set)
                await asyncio.gather(work, return_exceptions=True)
        if work.cancelled():
            raise TurnStopped("stopped by the household")
        return work.result()


async def withdraw(
    turns: Any, token: str, owner: str, policy: Mapping[str, bool]
) -> dict[str, Any]:
    """Withdraw a card: answer it "denied" and end its turn before the model is asked.

    The ask's audit record is closed (denied), every proposal that waited behind it is
    answered "not asked", and no paused turn is left. Nothing runs.

    Returns:
        ``{"receipts", "receipt", "language"}``: the turn's receipts as wire objects,
        the receipt said in the turn's language, and that language (ISO 639-1).

    Raises:
        InvalidConfirmation: no such card of ``owner`` (answered, expired or foreign).
    """
    control = TurnControl(owner)
    control.request_stop()
    try:
        result = await turns.resume_turn(
            token, False, policy=policy, owner=owner, on_progress=control.on_progress
        )
    except TurnFailed as failed:
        wire = failed.to_wire()
    else:
        wire = result.to_wire()
    return {key: wire[key] for key in ("receipts", "receipt", "language")}
