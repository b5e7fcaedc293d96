"""No figure without a source: the numbers of an answer checked against what the turn found.

An answer built on tool results may state a number only when a result holds it
(rounded to the digits the answer shows, or in a unit the result itself names:
hours as minutes or days, GB as MB or TB, °C as °F), or when the person asked
wrote it. An answer after calls that all did not run (denied, expired, refused,
failed) may state only numbers the person wrote, and no weekday or month name
they did not write: those are the shapes of opening hours, prices, rates and
dates, the facts a small model invents most readily after a denial. Neither may
describe a household state (a temperature, a lock, a door, a light) of a kind no
result read (:mod:`.states`), state a yes/no verdict against a result's
(:mod:`.verdicts`), or answer a yes/no question with a bare "Yes" or "No" that
nothing read backs (:mod:`.replies`).

:class:`Grounds` holds what a turn found; :func:`unsupported` lists what an
answer states beyond it. The turn loop asks the model once more when the list is
not empty and then falls back to a plain answer built from the results
(docs/decisions/answers-from-what-ran.md).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .figures import Figure, figures_in, rounds_to
from .labels import mislabel_note, mislabelled
from .replies import Unbacked, reply_note, unanswered, unbacked
from .states import EVERY_KIND, kinds_read, unread_claims
from .verdicts import contradicted, verdict_note, verdicts_in

_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)
_CALENDAR = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|june|july|august|september|october|november|december)s?\b",
    re.IGNORECASE,
)
BOOKKEEPING = frozenset({"retrieved_at"})
"""Result keys that say when we asked, not what was found: their digits support nothing."""
_GLUED = re.compile(r"(?<=\d)(?=[^\W\d])|(?<=[^\W\d])(?=\d)")
_UNIT_FACTORS: dict[str, tuple[float, ...]] = {
    "_hours": (60.0, 1 / 24, 1 / 168),
    "_gb": (1000.0, 1 / 1000),
}


@dataclass
class Grounds:
    """What one turn found, to check its answer against.

    Attributes:
        values: every number in the executed results (JSON numbers and numbers
            written in their strings), with the conversions their keys name.
        asked: the text the person wrote (question and earlier messages).
        results: how many calls executed.
        unrun: how many calls did not run or failed.
        read: the kinds of household state the results read (:func:`.states.kinds_read`).
        world: how many executed calls were web sources (search results, pages).
        household: the executed results that are not web sources, as they came.
    """

    values: list[float] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    results: int = 0
    unrun: int = 0
    read: frozenset[str] = frozenset()
    world: int = 0
    household: list[Any] = field(default_factory=list)

    @classmethod
    def of(
        cls, results: Iterable[Any], asked: list[str], unrun: int, world: Iterable[Any] = ()
    ) -> Grounds:
        """The grounds of a turn: its executed ``results``, the person's words, how
        many calls did not run, and the results from outside the device (``world``:
        search results and pages, whose text may describe any state)."""
        grounds = cls(asked=asked, unrun=unrun)
        for result in results:
            grounds.add_result(result)
        for result in world:
            grounds.add_result(result, from_the_world=True)
        return grounds

    def add_result(self, result: Any, *, from_the_world: bool = False) -> None:
        """Take in one executed call's result (``from_the_world``: a web result)."""
        self.results += 1
        self.values.extend(result_values(result))
        self.read |= EVERY_KIND if from_the_world else kinds_read([result])
        if from_the_world:
            self.world += 1
        else:
            self.household.append(result)

    @property
    def applies(self) -> bool:
        """Whether the answer is checked: some call ran, or some call did not run."""
        return bool(self.results or self.unrun)

    @property
    def verdicts(self) -> dict[str, bool]:
        """The yes/no verdicts the household results state (:func:`.verdicts.verdicts_in`);
        a web page's fields are not this device's verdicts."""
        return verdicts_in(self.household)

    @property
    def question(self) -> str:
        """The person's last message ("" when there is none)."""
        return self.asked[-1] if self.asked else ""

    def readings(self) -> dict[str, Any]:
        """What a yes/no reply is checked against (:mod:`.replies`): the kinds of state
        read, the household verdicts, and whether a web source ran."""
        return {"read": self.read, "verdicts": self.verdicts, "world": self.world > 0}

    @property
    def nothing_ran(self) -> bool:
        """Calls were proposed and none of them ran."""
        return self.unrun > 0 and self.results == 0


def result_values(value: Any, key: str = "") -> list[float]:
    """Every number in a result, plus its value in the units its key names
    (``uptime_hours`` also as minutes, days and weeks; ``*_gb`` as MB and TB;
    ``*_celsius`` as °F). Numbers in keys and in ``snake_case`` words count too
    (``load_average_1m``, ``last_7_days``)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return _with_conversions(float(value), key)
    if isinstance(value, str):
        return [f.value for f in figures_in(_loosened(value))]
    if isinstance(value, Mapping):
        return [
            n
            for k, v in value.items()
            if k not in BOOKKEEPING
            for n in [*result_values(str(k)), *result_values(v, str(k))]
        ]
    if isinstance(value, list | tuple):
        return [n for item in value for n in result_values(item, key)]
    return []


def _loosened(text: str) -> str:
    """Source text with digits set apart from letters and underscores (``1m`` → ``1 m``),
    so a figure an answer takes from ``load_average_1m`` is found."""
    return _GLUED.sub(" ", text.replace("_", " "))


def _with_conversions(number: float, key: str) -> list[float]:
    values = [number]
    for suffix, factors in _UNIT_FACTORS.items():
        if key.endswith(suffix):
            values.extend(number * factor for factor in factors)
    if key.endswith("_celsius"):
        values.append(number * 9 / 5 + 32)
    return values


def unsupported(answer: str, grounds: Grounds) -> list[str]:
    """What ``answer`` states that ``grounds`` does not support, as written.

    Returns:
        The unsupported numbers (and, when nothing ran, weekday and month names
        the person did not write), in order, then the words describing household
        states no result read, then the clauses stating a verdict against a result's
        (:mod:`.verdicts`), then a leading yes or no that nothing read backs
        (:mod:`.replies`), then the figures of a part said as the whole
        (:mod:`.labels`); empty when the answer is grounded or ``grounds`` does not
        apply.
    """
    if not grounds.applies:
        return []
    return (
        _unsupported_figures(answer, grounds)
        + [words for words, _ in unread_claims(answer, grounds.read)]
        + [clause for clause, _ in contradicted(answer, grounds.verdicts)]
        + [problem.text for problem in mislabelled(answer, grounds.household)]
        + list(dict.fromkeys(problem.word for problem in _unbacked_reply(answer, grounds)))
    )


def unanswered_parts(answer: str, grounds: Grounds) -> list[str]:
    """Sentences saying what the question asked that nothing read and ``answer`` does
    not say could not be read (:func:`.replies.unanswered`); empty when ``grounds``
    does not apply or nothing ran (the answer then says what did not run). Checked on
    the whole answer, never while it streams: a later sentence may say it."""
    if not grounds.results:
        return []
    return unanswered(answer, grounds.question, **grounds.readings())


def _unbacked_reply(answer: str, grounds: Grounds) -> list[Unbacked]:
    return unbacked(answer, grounds.question, **grounds.readings())


def _unsupported_figures(answer: str, grounds: Grounds) -> list[str]:
    answer = _URL.sub(" ", answer)  # an address's digits are not figures it states
    asked = " ".join(grounds.asked)
    sources = grounds.values + [f.value for f in figures_in(asked)]
    missing = [f.text for f in figures_in(answer) if not _supported(f, sources)]
    if grounds.nothing_ran:
        said = {m.group(1).casefold() for m in _CALENDAR.finditer(asked)}
        missing += [
            m.group(0) for m in _CALENDAR.finditer(answer) if m.group(1).casefold() not in said
        ]
    return missing


def retry_note(grounds: Grounds, answer: str) -> str:
    """The system note for asking once more after ``answer`` stated what ``grounds``
    does not support (:func:`unsupported` is not empty)."""
    states = list(dict.fromkeys(kind for _, kind in unread_claims(answer, grounds.read)))
    notes = [_figures_note(grounds, _unsupported_figures(answer, grounds))]
    notes.append(verdict_note(contradicted(answer, grounds.verdicts), grounds.verdicts))
    notes.append(reply_note(_unbacked_reply(answer, grounds), grounds.verdicts))
    notes.append(mislabel_note(mislabelled(answer, grounds.household)))
    if states:
        notes.append(
            f"Nothing read in this turn gives {' or '.join(states)}, so the answer must not "
            "describe one; it says that this could not be read."
        )
    return " ".join(note for note in notes if note)


def _figures_note(grounds: Grounds, problems: list[str]) -> str:
    if not problems:
        return ""
    listed = ", ".join(dict.fromkeys(problems))
    if grounds.nothing_ran:
        return (
            "Nothing was looked up in this turn, so no figure, time, day or date may be "
            f"stated except those in the question ({listed} would be a guess)."
        )
    return (
        "State only figures that the tool results above hold, exactly or rounded; "
        f"{listed} is not among them."
    )


def _supported(figure: Figure, sources: Iterable[float]) -> bool:
    return any(rounds_to(source, figure) for source in sources)


_BOUNDARY = re.compile(r"[.!?;:](?=\s)|\n")


class GuardedSink:
    """Streams an answer sentence by sentence, never passing on an unsupported figure.

    Text is held until a sentence ends; a finished sentence goes to ``sink`` only
    when everything passed on so far, with it, is grounded (:func:`unsupported`).
    From the first sentence that is not, nothing more is passed on: the turn loop
    then decides the answer and :meth:`finish` sends what the household has not
    seen (the rest of it, or all of it after a blank line when it is a new one).

    Args:
        sink: where answer text goes (the service's stream).
        grounds: what the turn found.
    """

    def __init__(self, sink: Callable[[str], Awaitable[None]], grounds: Grounds) -> None:
        self._sink = sink
        self._grounds = grounds
        self._held = ""
        self.passed = ""
        """The text passed on so far."""
        self.tripped = False
        """A sentence was held back because it was not grounded."""

    async def __call__(self, piece: str) -> None:
        if self.tripped:
            return
        self._held += piece
        while not self.tripped and (end := _BOUNDARY.search(self._held)):
            sentence, self._held = self._held[: end.end()], self._held[end.end() :]
            if unsupported(self.passed + sentence, self._grounds):
                self.tripped = True
                return
            self.passed += sentence
            await self._sink(sentence)

    async def finish(self, answer: str) -> None:
        """Send what remains of ``answer`` (the whole of it, after a blank line, when
        it does not continue what was passed on)."""
        if answer.startswith(self.passed):
            rest = answer[len(self.passed) :]
        else:
            rest = ("\n\n" if self.passed else "") + answer
        if rest:
            await self._sink(rest)
