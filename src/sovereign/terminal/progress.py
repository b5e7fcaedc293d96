"""The progress lines ``sovereign chat`` prints while a turn runs (the Console's
progress line, in a terminal): each stage the service reports, in household words,
with the seconds since the question, and again every so often while it lasts. The
words are the product's, said in the turn's language (each event's ``words``, and
``stopping`` for Ctrl-C); the English here is for the question's first moment, before
the service said anything when the chat was not given the household's words for it
(``GET /api/v1/conversation/words``), and for a service that says none. The time waited
is said by CLDR's units in the household's language, then in the turn's once an event
names it (:meth:`~.words.Words.elapsed`).

Once an approved web result is in, an event's ``found`` carries the passages it held,
ranked, while the model chooses which one the answer quotes: they are printed once,
under the words that say they were found and are not yet the answer (as said, else
English), each passage after its source's host, on lines of its own (a page's text put
on one line, every control character escaped: :func:`~.display.rows`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from .display import one_line, rows
from .words import Words

REPEAT_SECONDS = 10.0
"""A stage that lasts is said again this often, with the time so far."""

STAGE_WORDS = {
    "sending": "Sending your question",
    "queued": "Waiting for another question to finish",
    "loading_model": "Loading the model (the first question after a start takes longer)",
    "choosing": "Reading your question and choosing what to check",
    "writing": "Writing the answer",
    "stopping": "Stopping",
}
CHECK_WORDS = {
    "web.search": "Searching the web",
    "web.fetch": "Reading the page",
    "system": "Checking the device's health",
    "pihole": "Checking the ad blocker",
    "home_assistant": "Checking your home's devices",
}

FOUND_WORDS = {
    "heading": "Found so far, not yet the answer",
    "reading": "The assistant is reading these passages to choose the one that answers your "
    "question; the answer quotes it.",
    "instructions": "A source gave the assistant instructions: they are not shown here and "
    "will be ignored.",
}
"""The words above the passages found (the Console's, console/found.js)."""
MAX_FOUND = 5
"""Most passages printed (the service sends at most the five it offers the model)."""


def found_lines(found: Any, columns: int | None = None) -> list[str]:
    """The rows for an event's ``found``: its heading and what the assistant does with
    the passages, then each passage, indented, after its source's host, and the note
    that a source gave instructions when the service said one; ``[]`` when no passage
    is well formed. Every text a page wrote is on one line (:func:`~.display.one_line`)."""
    if not isinstance(found, dict) or not isinstance(found.get("passages"), list):
        return []
    passages = [
        p for p in found["passages"]
        if isinstance(p, dict) and _said(p.get("text")) and _said(p.get("host"))
    ][:MAX_FOUND]  # fmt: skip
    if not passages:
        return []

    def said(key: str) -> str:
        value = found.get(key)
        return value if _said(value) else FOUND_WORDS[key]

    lines = rows(f"{said('heading')}: {said('reading')}", "  … ", "    ", columns)
    for passage in passages:
        lines += rows(f"{passage['host']}:", "    ", "      ", columns)
        lines += rows(passage["text"], "    > ", "      ", columns)
    if "instructions" in found:
        lines += rows(said("instructions"), "    ", "    ", columns)
    return lines


def _said(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _said_or(value: Any, english: str) -> str:
    return one_line(value) if _said(value) else english


def stage_words(stage: str, capability: str | None = None) -> str:
    """``"Searching the web"`` for ``("checking", "web.search")``, and so on (the
    Console's words, console/progress.js)."""
    if stage == "checking":
        name = capability or ""
        found = CHECK_WORDS.get(name) or CHECK_WORDS.get(name.split(".")[0])
        return found or "Checking what you asked about"
    return STAGE_WORDS.get(stage, STAGE_WORDS["sending"])


class ProgressPrinter:
    """Prints a turn's stages until its answer starts.

    Args:
        say: where a line goes (``say(text)``, shown dim).
        clock: monotonic seconds (tests pass a fake one).
        before: the household's words for the moment before the service says anything
            (``{"language", "sending", "stopping"}``, as ``GET /api/v1/conversation/words``
            says them); English when not given, or for a word missing from it.
    """

    def __init__(
        self,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        before: dict[str, str] | None = None,
    ) -> None:
        before = before or {}
        self._say, self._clock = say, clock
        self._began = clock()
        self._words = _said_or(before.get("sending"), stage_words("sending"))
        self._stopping = _said_or(before.get("stopping"), stage_words("stopping"))
        self._time = Words(before.get("language"))
        self._quiet = False
        self._found: Any = None
        self._repeater: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Say that the question goes, and repeat the stage while it lasts."""
        self._line()
        self._repeater = asyncio.ensure_future(self._repeat())

    def event(self, kind: str, data: Any) -> None:
        """A ``progress`` event of the stream (others are ignored): its ``words`` as the
        product said them, else the stage in English."""
        if kind != "progress" or self._quiet or not isinstance(data, dict):
            return
        said, stopping = data.get("words"), data.get("stopping")
        if _said(data.get("language")):
            self._time = Words(data["language"])
        if isinstance(stopping, str) and stopping.strip():
            self._stopping = one_line(stopping)
        if isinstance(said, str) and said.strip():
            words = one_line(said)
        else:
            words = stage_words(str(data.get("stage", "")), data.get("capability"))
        if words != self._words:
            self._words = words
            self._line()
        found = data.get("found")
        if found is not None and found != self._found:  # later events carry it again
            self._found = found
            for line in found_lines(found):
                self._say(line)

    def stopping(self) -> None:
        """Ctrl-C was pressed: say so, in the turn's language once the service said it
        (the service stops where nothing is half done)."""
        self._words = self._stopping
        self._line()

    def quiet(self) -> None:
        """The answer started (or the turn ended): print nothing more."""
        self._quiet = True
        if self._repeater is not None:
            self._repeater.cancel()

    def _line(self) -> None:
        if not self._quiet:
            self._say(f"  … {self._words} ({self._time.elapsed(self._clock() - self._began)})")

    async def _repeat(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(REPEAT_SECONDS)
                self._line()
