"""What ran is never lost to a dropped connection: answered confirmations, kept for their owner.

When the browser goes away while an approved call runs, the turn still runs to
its end (see :mod:`.streaming`), but its response has nowhere to go. The
outcome of each answered confirmation (the response object with its receipts,
citations and answer, or the error the turn ended with) is therefore kept in
memory, keyed by the token *and* the session that answered, for
:data:`RETAIN_SECONDS`. The same session answering the same token again gets
that outcome (waiting for it while the turn still runs) instead of
``400 INVALID_CONFIRMATION``; any other session still gets the 400, because it
never reaches an entry that is not its own. Never persisted: a restart forgets
it, and the audit log then says what ran.
"""

from __future__ import annotations

import asyncio
import copy
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sovereign.expiring import ExpiringMap

from .errors import ServiceError

RETAIN_SECONDS = 600.0
"""How long an answered confirmation's outcome is kept after the turn ended, in seconds."""
MAX_RETAINED = 256
"""Most outcomes kept at once; past it the oldest is forgotten (a turn still running
then runs on, but a repeated answer no longer finds it: with one model answering one
turn at a time, 256 running turns do not happen)."""

Answer = Callable[[], Awaitable[dict[str, Any]]]
NOTHING_ANSWERED = frozenset({"INVALID_CONFIRMATION", "INVALID_EDIT"})
"""Errors after which the confirmation is still unanswered: never kept, never replayed."""


@dataclass
class _Entry:
    task: asyncio.Task[dict[str, Any]]
    finished_at: float | None = None


class RetainedAnswers:
    """Runs each confirmation answer once per (token, session) and keeps its outcome.

    Args:
        clock: monotonic clock in seconds (the app's; tests move it by hand).
        retain_seconds: how long a finished outcome is kept, in seconds.
        max_entries: bound on outcomes kept at once.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        retain_seconds: float = RETAIN_SECONDS,
        max_entries: int = MAX_RETAINED,
    ) -> None:
        self._clock = clock
        self._retain = retain_seconds
        self._entries: ExpiringMap[tuple[str, str], _Entry] = ExpiringMap(
            ttl_seconds=math.inf, max_entries=max_entries, clock=clock
        )

    async def answer(self, token: str, owner: str, run: Answer) -> dict[str, Any]:
        """The outcome of answering ``token`` as ``owner``: ``run()``'s, run once.

        The first call starts ``run()`` as a task of its own, so a cancelled
        request (a dropped connection) never cuts the turn short. A later call
        with the same token and owner returns a copy of the same outcome, or
        raises the same error; ``expires_in_seconds`` of a new pending
        confirmation in it counts down from when the outcome was made.

        Raises:
            ServiceError: whatever ``run()`` raised. An ``INVALID_CONFIRMATION`` or
                ``INVALID_EDIT`` (nothing was answered) is not kept, so it is never
                replayed: the card stays answerable.
        """
        key = (token, owner)
        entry = self._entries.get(key)
        if entry is None:
            entry = _Entry(asyncio.ensure_future(run()))
            self._entries.put(key, entry)  # held while it runs; kept once it ends
            entry.task.add_done_callback(lambda task: self._finished(key, task))
            return await asyncio.shield(entry.task)
        result = await asyncio.shield(entry.task)
        return _replayed(result, self._clock() - (entry.finished_at or self._clock()))

    def __len__(self) -> int:
        return len(self._entries)

    def _finished(self, key: tuple[str, str], task: asyncio.Task[dict[str, Any]]) -> None:
        entry = self._entries.get(key)
        if entry is None or entry.task is not task:
            return
        error = None if task.cancelled() else task.exception()
        if isinstance(error, ServiceError) and error.code in NOTHING_ANSWERED:
            self._entries.pop(key)
        else:
            entry.finished_at = self._clock()
            self._entries.touch(key, ttl_seconds=self._retain)


def _replayed(result: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """A copy of a kept outcome, its pending confirmation's countdown moved on by ``elapsed``."""
    replay = copy.deepcopy(result)
    pending = replay.get("pending_confirmation")
    if isinstance(pending, dict) and isinstance(pending.get("expires_in_seconds"), int):
        pending["expires_in_seconds"] = max(0, pending["expires_in_seconds"] - int(elapsed))
    return replay
