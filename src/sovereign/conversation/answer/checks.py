"""What still checks the model's own prose, behind one interface (DESIGN §4).

Household facts are said by the product (:mod:`.facts`), so the model writes prose
only for what no capability states: general knowledge, writing, the part of a
question no result covers, a web answer's one sentence. :func:`check` lists what
such prose states beyond what the turn holds, language-independently:

- **figures**: a number no executed result holds (rounded to the digits shown, in a
  unit its field's kind converts to) and the person did not write, read in the
  answer's language (:mod:`.figures`);
- **calendar**: after calls of which none ran, a weekday or month name the person
  did not write (the shape of opening hours and dates a small model invents after a
  denial), in the answer's language and English, from Babel's locale data.

Each :class:`Problem` carries its own note for the one retry; the turn loop asks
once more with the notes, then answers with what the product can say itself.

One more rule needs no retry: prose written after the product stated household facts
may not state them again. A sentence of it that names what those facts named (a Home
Assistant entity's name, a state or verdict word the product said) is left out
(:func:`without_restatements`): "Back door is unlocked." is the product's; "Yes, you
locked the back door." is a model contradicting it.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from babel import Locale

from sovereign.executor import FactSheet

from .figures import Figure, figures_in, supported

BOOKKEEPING = frozenset({"retrieved_at"})
"""Result keys that say when we asked, not what was found: their digits support nothing."""
_CONVERSIONS: dict[str, tuple[Callable[[float], float], ...]] = {
    "hours": (lambda h: h * 60, lambda h: h / 24, lambda h: h / 168),
    "gigabytes": (lambda gb: gb * 1000, lambda gb: gb / 1000),
    "celsius": (lambda c: c * 9 / 5 + 32,),
}
"""What a figure of each kind may be said as (minutes, days, weeks; MB, TB; °F)."""


@dataclass(frozen=True)
class Problem:
    """One thing an answer states that the turn does not hold.

    Attributes:
        text: what the answer wrote ("21.5", "Tuesday").
        note: the sentence telling the model what to leave out, for the one retry.
    """

    text: str
    note: str


@dataclass
class Grounds:
    """What one turn holds, to check its prose against.

    Attributes:
        values: every number in the executed results, with the conversions their
            declared kinds allow.
        asked: what the person wrote (question and earlier messages).
        language: the answer's language.
        ran: how many calls executed; unrun: how many did not run or failed.
    """

    values: list[float] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    language: str = "en"
    ran: int = 0
    unrun: int = 0

    @classmethod
    def of(
        cls,
        results: Iterable[tuple[Any, FactSheet | None]],
        asked: list[str],
        unrun: int,
        language: str,
    ) -> Grounds:
        """The grounds of a turn: each executed result with its capability's fact sheet
        (``None``: a web source or a capability that declares none)."""
        grounds = cls(asked=asked, language=language, unrun=unrun)
        for result, sheet in results:
            grounds.ran += 1
            grounds.values.extend(numbers_of(result, sheet, language))
        return grounds

    @property
    def applies(self) -> bool:
        """Whether prose is checked: some call ran, or some call did not run."""
        return bool(self.ran or self.unrun)

    @property
    def nothing_ran(self) -> bool:
        """Calls were proposed and none of them ran."""
        return self.unrun > 0 and self.ran == 0


def numbers_of(value: Any, sheet: FactSheet | None, language: str, path: str = "") -> list[float]:
    """Every number of a result: JSON numbers, numbers written in its strings (in
    ``language`` or English), and each field's value in the units its declared kind
    converts to."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        found = [float(value)] if math.isfinite(value) else []
        kind = sheet.kinds.get(path) if sheet is not None else None
        return found + [convert(found[0]) for convert in _CONVERSIONS.get(kind or "", ())]
    if isinstance(value, str):
        return [v for f in figures_in(value, language) for v, _ in f.readings]
    if isinstance(value, Mapping):
        return [
            n
            for k, v in value.items()
            if k not in BOOKKEEPING
            for n in [
                *_key_figures(str(k)),
                *numbers_of(v, sheet, language, f"{path}.{k}" if path else str(k)),
            ]
        ]
    if isinstance(value, list | tuple):
        return [n for item in value for n in numbers_of(item, sheet, language, path)]
    return []


def without_restatements(prose: str, terms: Iterable[str]) -> str:
    """``prose`` without the sentences that name any of ``terms`` (whole words, any case):
    what the product already stated is not the model's to say again."""
    patterns = [re.compile(rf"(?<!\w){re.escape(t)}(?!\w)", re.IGNORECASE) for t in terms if t]
    if not patterns:
        return prose
    kept = [s for s in _SENTENCE.split(prose) if not any(p.search(s) for p in patterns)]
    return " ".join(part.strip() for part in kept if part.strip())


def without_repeats(prose: str, said: Iterable[str]) -> str:
    """``prose`` without the sentences that repeat one of ``said`` word for word (case,
    spacing and the closing mark aside): asked for the rest of a question after the
    facts, the model wrote "Das Gerät läuft seit 8 Stunden ohne Neustart." again."""
    told = _plain_sentences(said)
    kept, start = [], 0
    for end in [*(m.start() for m in _SENTENCE.finditer(prose)), len(prose)]:
        if _plain(prose[start:end]) not in told:  # the text and what follows it, as written
            kept.append(prose[start : _next_start(prose, end)])
        start = _next_start(prose, end)
    return "".join(kept).strip()


def _next_start(prose: str, end: int) -> int:
    """Where the sentence after the one ending at ``end`` begins (past the space or line
    breaks between them)."""
    gap = _SENTENCE.match(prose, end)
    return gap.end() if gap else end


def _plain(sentence: str) -> str:
    return " ".join(sentence.casefold().split()).rstrip(".!?;: ")


def _plain_sentences(texts: Iterable[str]) -> set[str]:
    """Every sentence of ``texts``, as :func:`without_repeats` compares them."""
    return {_plain(sentence) for text in texts for sentence in _SENTENCE.split(text)}


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _key_figures(key: str) -> list[float]:
    """The figures a field's name states (``load_average_15m`` states 15, ``last_7_days`` 7)."""
    return [float(part) for part in _KEY_DIGITS.findall(key)]


_KEY_DIGITS = re.compile(r"\d+")


def check(answer: str, grounds: Grounds) -> list[Problem]:
    """What ``answer`` states that ``grounds`` does not hold (empty: nothing, or the
    grounds do not apply because no call was proposed)."""
    if not grounds.applies:
        return []
    return _figures(answer, grounds) + _calendar(answer, grounds)


def notes(problems: Iterable[Problem]) -> str:
    """The retry's instruction: each problem's note, once."""
    return " ".join(dict.fromkeys(problem.note for problem in problems))


def _figures(answer: str, grounds: Grounds) -> list[Problem]:
    asked = [f for text in grounds.asked for f in figures_in(text, grounds.language)]
    sources = grounds.values + [v for f in asked for v, _ in f.readings]
    missing = [f for f in figures_in(answer, grounds.language) if not supported(f, sources)]
    return [_figure_problem(f, grounds) for f in missing]


def _figure_problem(figure: Figure, grounds: Grounds) -> Problem:
    if grounds.nothing_ran:
        note = (
            "Nothing was looked up in this turn, so no figure, time, day or date may be "
            f"stated except those in the question ({figure.text} would be a guess)."
        )
    else:
        note = (
            "State only figures that the tool results above hold, exactly or rounded; "
            f"{figure.text} is not among them."
        )
    return Problem(figure.text, note)


def _calendar(answer: str, grounds: Grounds) -> list[Problem]:
    if not grounds.nothing_ran:
        return []
    names = calendar_names(grounds.language)
    said = {m.group(0).casefold() for text in grounds.asked for m in names.finditer(text)}
    note = "Nothing was looked up in this turn, so name no day or month the question did not."
    return [
        Problem(m.group(0), note)
        for m in names.finditer(answer)
        if m.group(0).casefold() not in said
    ]


@functools.cache
def calendar_names(language: str) -> re.Pattern[str]:
    """Weekday and month names of ``language`` and English, in every width Babel knows
    of three letters or more, as one case-insensitive whole-word pattern."""
    words: set[str] = set()
    for code in dict.fromkeys((language, "en")):
        locale = Locale.parse(code)
        for table in (locale.days, locale.months):
            for context in table.values():
                for width in ("wide", "abbreviated"):
                    words.update(str(w).rstrip(".") for w in context.get(width, {}).values())
    listed = sorted((w for w in words if len(w) >= 3), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, listed)) + r")\b", re.IGNORECASE)


_BOUNDARY = re.compile(r"[.!?;:](?=\s)|\n")


class GuardedSink:
    """Streams prose sentence by sentence, never passing on one :func:`check` refuses.

    Text is held until a sentence ends; a finished sentence goes to ``sink`` only when
    everything passed on so far, with it, has no problem. From the first sentence that
    has one, nothing more is passed on: the turn loop then decides the answer and
    :meth:`finish` sends what the household has not seen (the rest of it, or all of it
    after a blank line when it is a new one).

    A sentence that repeats one of ``said`` word for word (:func:`without_repeats`) is
    held back the same way.

    Args:
        sink: where answer text goes (the service's stream).
        grounds: what the turn holds.
        said: the sentences the product already said in this answer.
    """

    def __init__(
        self,
        sink: Callable[[str], Awaitable[None]],
        grounds: Grounds,
        said: Iterable[str] = (),
    ) -> None:
        self._sink = sink
        self._grounds = grounds
        self._told = _plain_sentences(said)
        self._held = ""
        self.passed = ""
        """The text passed on so far."""
        self.tripped = False
        """A sentence was held back because it had a problem."""

    async def __call__(self, piece: str) -> None:
        if self.tripped:
            return
        self._held += piece
        while not self.tripped and (end := _BOUNDARY.search(self._held)):
            sentence, self._held = self._held[: end.end()], self._held[end.end() :]
            if check(self.passed + sentence, self._grounds) or _plain(sentence) in self._told:
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
