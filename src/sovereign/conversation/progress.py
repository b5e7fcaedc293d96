"""What a turn is doing now, for a progress line that never leaves a wait silent (DESIGN §4).

A turn reports its stages to an optional :data:`ProgressSink` as :class:`Progress`
events. The turn loop reports what it does (choosing what to check, checking a
capability family, writing the answer); a model backend that can wait before it
works reports that too (``queued`` behind another question, ``loading_model`` on
the first question after a start) through :data:`~.backends.base.BackendProgress`,
and when it starts working the loop's own stage is reported again.

Each event is said in the turn's language (:func:`.voice.around.say_progress`): the
turn loop makes each reporter with the turn's language. The service streams each event as an SSE
``progress`` event; the Console and ``sovereign chat`` show the latest stage's words,
as said, with the seconds elapsed since the question.

Once a web result is in and ranked, before the model chooses what to quote, the
reporter is handed what was found (:meth:`ProgressReporter.found`): the ranked
candidate passages go out at once, as the ``found`` of a ``writing`` event, and with
every later event of the turn, so the household reads them while the model chooses.
They are what was found, not the answer: the answer still quotes the passage the model
chose.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from .sources import Found
from .voice.around import say_found, say_progress
from .voice.catalogs import DEFAULT_LANGUAGE, Voice

Stage = Literal["queued", "loading_model", "choosing", "checking", "writing"]
"""``queued``: waiting for another question to finish; ``loading_model``: the model is
loading (the first question after a start); ``choosing``: reading the question and
choosing what to check; ``checking``: running a capability (``capability`` names it);
``writing``: writing the answer."""


@dataclass(frozen=True)
class Progress:
    """One stage of a turn.

    Attributes:
        stage: see :data:`Stage`.
        capability: the capability being run, for ``checking`` (else ``None``).
        language: the turn's language (ISO 639-1), in which the stage is said.
        found: the passages found, while the model chooses among them (else ``None``).
        after_calls: a call of the turn already ran, failed or was declined (choosing
            is then said as choosing what else to check).
    """

    stage: Stage
    capability: str | None = None
    language: str = DEFAULT_LANGUAGE
    found: Found | None = None
    after_calls: bool = False

    def to_wire(self) -> dict[str, Any]:
        """``{"stage", "capability", "language", "words", "stop", "stopping"}``:
        ``capability`` null but for ``checking``; ``language`` the turn's (ISO 639-1, in
        which a client says the time waited); ``words`` the stage said in that language,
        ``stop`` the Stop button's label and ``stopping`` what the line says once it is
        pressed (:func:`~.voice.around.say_progress`).

        With passages found, also ``"found": {"heading", "reading", "passages"}`` (and
        ``"instructions"`` when a source gave the assistant some): the words above them
        in the turn's language (:func:`~.voice.around.say_found`) and each passage as
        :meth:`~.sources.FoundPassage.to_wire` says, best first."""
        voice = Voice(self.language)
        wire: dict[str, Any] = {
            "stage": self.stage,
            "capability": self.capability,
            "language": self.language,
            **say_progress(self.stage, self.capability, voice, after_calls=self.after_calls),
        }
        if self.found is not None and self.found.passages:
            wire["found"] = {
                **say_found(self.found.steered, voice),
                "passages": [passage.to_wire() for passage in self.found.passages],
            }
        return wire


ProgressSink = Callable[[Progress], Awaitable[None]]
"""Receives each :class:`Progress` event of a turn, in order. A sink may raise
:class:`TurnStopped` to end the turn there: every event is sent at a point where
nothing is half done (before a model request, before a capability starts)."""


class TurnStopped(Exception):
    """The household stopped the turn (the Console's Stop button).

    Raised by whoever drives the turn, at a point where nothing is half done: from a
    :data:`ProgressSink` (before a model request or a capability starts) or from a
    model request it cut short. The turn loop ends with :class:`~.results.TurnFailed`
    around it, carrying the receipts and citations of every call that already ran.
    """


class ProgressReporter:
    """Sends a turn's stages to a sink, if there is one (the turn loop holds one per call).

    Args:
        sink: where events go; ``None`` reports nothing.
        language: the turn's language (ISO 639-1), in which each event is said.
    """

    def __init__(self, sink: ProgressSink | None, language: str = DEFAULT_LANGUAGE) -> None:
        self._sink = sink
        self._current: Progress | None = None
        self._found: Found | None = None
        self.language = language

    async def stage(
        self, stage: Stage, capability: str | None = None, *, after_calls: bool = False
    ) -> None:
        """The loop's own stage (``choosing``, ``checking`` a capability, ``writing``);
        ``after_calls`` as :attr:`Progress.after_calls`."""
        self._current = Progress(stage, capability, self.language, self._found, after_calls)
        await self._send(self._current)

    async def found(self, found: Found) -> None:
        """What a web result held, ranked, before the model chooses what to quote: sent at
        once as a ``writing`` event, and with every later event of the turn. Nothing is
        sent when no passage was found."""
        if not found.passages:
            return
        self._found = found
        await self.stage("writing")

    async def backend(self, event: str) -> None:
        """A model backend's wait (``queued``, ``loading_model``) or ``started``, after
        which the loop's current stage is reported again. Unknown events are ignored."""
        if event in ("queued", "loading_model"):
            waiting = Progress(event, None, self.language, self._found)  # type: ignore[arg-type]
            await self._send(waiting)
        elif event == "started" and self._current is not None:
            await self._send(self._current)

    async def _send(self, progress: Progress) -> None:
        if self._sink is not None:
            await self._sink(progress)
