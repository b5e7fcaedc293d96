"""Server-sent events for a streamed turn (DESIGN §4, issue: streaming).

With ``Accept: text/event-stream``, POST /message answers with one ``turn`` event
(``{"id": turn_id}``: the id ``POST /stop`` takes), ``progress`` events
(``{"stage", "capability"}``, see :mod:`sovereign.conversation.progress`) and
``token`` events (``{"text": piece}``) as they happen, then exactly one ``result``
event holding the same object as the plain response, or one ``error`` event
holding the error envelope (with a failed turn's ``citations``, ``receipts`` and
``receipt`` beside it, as in the plain response; a stopped turn is ``TURN_STOPPED``).

The turn runs to its end even when the browser goes away, so an approval that
has started executing is never cut off half-way. Only the Stop request ends a
turn early, and only where nothing is half done (:mod:`.turn_control`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.responses import StreamingResponse

from sovereign.conversation import Progress, ProgressSink
from sovereign.executor import valid_value

from .errors import ServiceError, envelope, storage_error
from .turn_control import TurnControl

logger = logging.getLogger(__name__)

TokenSink = Callable[[str], Awaitable[None]]
Turn = Callable[[TokenSink | None, ProgressSink | None], Awaitable[dict[str, Any]]]
_running: set[asyncio.Task[None]] = set()


def wants_event_stream(accept: str | None) -> bool:
    """True when the ``Accept`` header asks for ``text/event-stream``."""
    return accept is not None and "text/event-stream" in accept.lower()


def format_event(event: str, data: Any) -> bytes:
    """One SSE frame: ``event: <name>`` and a single-line JSON ``data:`` (valid UTF-8
    whatever text ``data`` holds: a lone surrogate is written as U+FFFD)."""
    payload = json.dumps(valid_value(data), ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {payload}\n\n".encode()


def event_stream(turn: Turn, control: TurnControl) -> StreamingResponse:
    """Run ``turn(on_token, on_progress)`` under ``control`` and stream it as SSE.

    Args:
        turn: runs the turn, calling ``on_token`` for each piece of answer text and
            ``on_progress`` for each stage, and returns the wire object; raises
            :class:`ServiceError` for a failure the client should see.
        control: the turn's stop control, already registered; its id is the
            first event. The turn's model requests obey it.
    """
    queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()

    async def on_token(text: str) -> None:
        await queue.put(("token", {"text": text}))

    async def on_progress(progress: Progress) -> None:
        await queue.put(("progress", progress.to_wire()))
        await control.on_progress(progress)

    async def drive() -> None:
        try:
            with control.governing():
                await queue.put(("result", await turn(on_token, on_progress)))
        except ServiceError as exc:
            await queue.put(("error", exc.body()))
        except OSError as exc:
            logger.error("streamed turn could not use storage: %s", exc)
            error = storage_error(exc)
            await queue.put(("error", envelope(error.code, error.message)))
        except Exception:
            logger.exception("streamed turn failed")
            await queue.put(("error", envelope("INTERNAL_ERROR", "The turn failed unexpectedly.")))
        finally:
            await queue.put(None)

    async def frames() -> AsyncIterator[bytes]:
        yield format_event("turn", {"id": control.id})
        task = asyncio.create_task(drive())
        _running.add(task)
        task.add_done_callback(_running.discard)
        while (item := await queue.get()) is not None:
            yield format_event(*item)

    return StreamingResponse(
        frames(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
