"""The last words of a turn: what the product says first, then the model's prose, checked.

The answer a household reads is built in this order (DESIGN §4):

1. the household facts the product stated from results (:mod:`.facts`), already
   streamed as each result arrived;
2. the product's sentences about calls that did not run (declined, expired, failed,
   not set up), in the household's language (:mod:`..voice.sentences`);
3. the model's own prose, only where something is left to say in words: a question
   that needed no call, the part of a question no result covers, what a web source
   says. It is asked for in the question's language, streamed sentence by sentence
   behind :func:`.checks.check`, asked for once more with each problem's note, and
   left out when it still states what the turn does not hold.

After household facts were stated, the prose may repeat none of their figures: they
are not among its sources, so a figure under the wrong name is caught as one no
source holds.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from babel import Locale

from sovereign.executor import ErrorCode, Registry

from ..backends.base import Message, ModelReply, TokenSink, user_texts
from ..pending import TurnProgress
from ..sources import Selection, Source, speaks_to_the_assistant
from ..voice.language import best_guess
from ..voice.sentences import own
from .checks import (
    Grounds,
    GuardedSink,
    Problem,
    check,
    notes,
    without_repeats,
    without_restatements,
)
from .figures import figures_in, supported

logger = logging.getLogger(__name__)

Ask = Callable[[list[Message], TokenSink | None], Awaitable[ModelReply]]
"""Asks the model for prose (no tools) with the given context, streaming into the sink."""

_MISTAKES = frozenset({ErrorCode.INVALID_ARGUMENTS, ErrorCode.UNKNOWN_CAPABILITY})
"""Refusals of the model's own making: a call the question did not need, badly formed."""


@dataclass(frozen=True)
class Ending:
    """How a turn ends.

    Attributes:
        content: prose the model already wrote with its decision ("" for none).
        done: the model said the stated facts answer the whole question: no prose.
        note: a note for the prose request (the round's address hint, the budget).
        said_instead: a sentence of the product's that replaces the prose (an address
            no tool may read).
        shown: the sink ``content`` already streamed through, if it did.
        quotes: for a web answer, what the model chose to quote (see below).
    """

    content: str = ""
    done: bool = False
    note: str | None = None
    said_instead: str | None = None
    shown: TokenSink | None = None
    quotes: Selection | None = None
    """The passages the model chose from the turn's web sources: the answer quotes them."""
    cut_off: bool = False
    """``content`` is not all the model meant to write (its stream ended early)."""
    rest: str | None = None
    """The questions of the household's message the stated facts leave unanswered: the
    prose is asked for them alone (they stand in for that message in its request)."""
    general: bool = False
    """:attr:`rest` names nothing of the household and every call of the turn ran: its
    prose is general knowledge, which no result grounds, and is not checked against the
    results (as the prose of a question with no call is not)."""
    worked: tuple[str, float] | None = None
    """A calculation the product worked out (:mod:`..offer.arithmetic`): its line in the
    household's numbers and its result. The line follows the prose that states that
    result, and is left out when the prose states another figure."""


class AnswerWriter:
    """Writes the final answer of a turn (see the module docstring).

    Args:
        registry: the capabilities, for the fact sheets behind executed results.
    """

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    async def write(
        self, progress: TurnProgress, ending: Ending, on_token: TokenSink | None, ask: Ask
    ) -> str:
        """The answer's text, with everything not yet shown streamed into ``on_token``;
        ``ask`` asks the model for prose."""
        await show_stated(progress, on_token)
        others = [*dict.fromkeys(progress.unrun)]
        if ending.said_instead:
            others.append(ending.said_instead)
        # A refusal of the model's own mistake (a call the question did not need) is said
        # after the prose that answers the question; anything else that did not run first.
        after = others if _mistaken(progress) else []
        before = [] if after else others
        if before and on_token is not None:
            await on_token(_joined(before, lead=bool(progress.stated)))
        said = [*progress.stated, *before]
        prose = ""
        if ending.quotes is not None:
            prose = quoted_answer(progress, ending.quotes)
            if on_token is not None:
                await on_token(("\n\n" if said else "") + prose)
        elif not ending.done and not ending.said_instead and self._wants_prose(progress, ending):
            prose = await self._prose(progress, ending, on_token, ask, after=bool(said))
        worked = ending.worked
        if worked is not None and states(prose, worked[1], progress.voice.language):
            prose = f"{prose}\n\n{worked[0]}"
            if on_token is not None:
                await on_token(f"\n\n{worked[0]}")
        parts = [" ".join(said), prose, " ".join(after)]
        if after and on_token is not None:
            await on_token("\n\n" + parts[2])
        text = "\n\n".join(part for part in parts if part)
        return text.strip() or own("no_answer", progress.voice)

    def _wants_prose(self, progress: TurnProgress, ending: Ending) -> bool:
        # When nothing ran, what did not run is the answer, in the product's words.
        nothing_ran = bool(progress.unrun) and not progress.results and not _mistaken(progress)
        return bool(ending.content.strip()) or not nothing_ran

    async def _prose(
        self,
        progress: TurnProgress,
        ending: Ending,
        on_token: TokenSink | None,
        ask: Ask,
        *,
        after: bool,
    ) -> str:
        grounds = self._grounds(progress, general=ending.general)
        sink = _guarded(grounds, _after_said(on_token, after), progress.stated)
        content, cut_off = ending.content, ending.cut_off
        if not content.strip() and not cut_off:
            asking = _asking(_prose_context(progress), ending.rest, general=ending.general)
            context = with_note(asking, _prose_note(progress, ending.note))
            reply = await ask(context, sink)
            content, cut_off = reply.content, reply.cut_off
        elif ending.shown is None and sink is not None:
            await sink(content)
        text = _unsaid(content.strip(), progress)
        if cut_off:  # what came, and that it is not all: no retry, no check of a whole answer
            text = "" if check(text, grounds) else text
            cut = own("cut_off", progress.voice)
            text = f"{text}\n\n{cut}" if text else cut
            if isinstance(sink, GuardedSink):
                await sink.finish(text)
            elif sink is not None:  # what came is on screen already: the note follows it
                await sink(text[len(content.strip()) :] if content.strip() else text)
            return text
        problems = check(text, grounds)
        repeated = not text and bool(content.strip()) and bool(ending.rest)
        if repeated:  # all it wrote repeats the facts: the question left is unanswered
            problems = [Problem(content.strip(), _REPEATED.format(rest=ending.rest))]
        if problems:
            logger.info("the answer stated what the turn does not hold (%d); asking again",
                        len(problems))  # fmt: skip
            note = _join(_prose_note(progress, ending.note), notes(problems))
            asking = _asking(_prose_context(progress), ending.rest, general=ending.general)
            context = with_note(asking, note)
            text = _unsaid((await ask(context, None)).content.strip(), progress)
            if check(text, grounds):
                logger.info("the second answer was not grounded either; leaving it out")
                text = ""
        if isinstance(sink, GuardedSink):
            await sink.finish(text)
        return text

    def _grounds(self, progress: TurnProgress, *, general: bool = False) -> Grounds:
        """The prose's sources: results the product did not state itself (web sources and
        capabilities that declare no facts) and the person's words; for ``general``
        prose (:attr:`Ending.general`), none: nothing is checked."""
        if general:
            return Grounds(language=progress.voice.language)
        unstated = []
        for name, result in progress.results:
            capability = self._registry.latest(name)
            if capability is None or capability.facts is None:
                unstated.append((result, None))
        language = progress.voice.language
        grounds = Grounds.of(unstated, asked(progress), len(progress.unrun), language)
        grounds.ran = len(progress.results)
        return grounds


def states(text: str, value: float, language: str) -> bool:
    """Whether ``text`` states ``value`` (written in ``language`` or English), rounded to
    the digits it shows (:func:`~.figures.supported`): 226.8 is stated as "226,8" or
    "227", not as "70,875"."""
    return any(supported(figure, [value]) for figure in figures_in(text, language))


async def show_stated(progress: TurnProgress, on_token: TokenSink | None) -> None:
    """Stream the stated household facts the household has not seen yet."""
    fresh = progress.stated[progress.shown :]
    if fresh and on_token is not None:
        await on_token(_joined(fresh, lead=progress.shown > 0))
    progress.shown = len(progress.stated)


def quoted_answer(progress: TurnProgress, chosen: Selection) -> str:
    """A web answer: the chosen passage word for word with its source's host, led by a
    sentence in the household's language when the passage is surely in another one
    (:func:`quote_language`); or, with none chosen, that none answers and what was
    found (titles that give orders withheld); and that a source's instructions were
    ignored, when one gave some."""
    voice, sources = progress.voice, progress.sources
    lines = []
    for source, passage in chosen.quoted:
        language = quote_language(passage.text, source.title, voice.language)
        if language is not None:
            name = language_name(language, voice.language)
            lines.append(own("quote_in_language", voice, language=name))
        lines.append(f"> {passage.text}\n> \u2014 {source.host}")
    if not chosen.quoted:
        found = [_found(source) for source in sources.items[:5]]
        lines = [own("no_passage", voice), "\n".join(found)]
        if not found:
            lines = [own("nothing_found", voice)]
    if sources.steered:
        lines.append(own("instructions_ignored", voice))
    return "\n\n".join(lines)


QUOTE_LANGUAGE_SURE = 0.95
"""The probability (0-1) from which a passage is said to be in another language: a wrong
"the source is in Dutch" misleads, a missing one only leaves the quote as it is, so
short passages and navigation ("Contact | Privacy | Cookies") say nothing."""


def quote_language(text: str, title: str, household: str) -> str | None:
    """The language (ISO 639-1) of a quoted passage, read with its source's title, when
    it is surely not ``household``'s (:data:`QUOTE_LANGUAGE_SURE`), else ``None``."""
    guess = best_guess(f"{title}\n{text}")
    if guess is None or guess[1] < QUOTE_LANGUAGE_SURE or guess[0] == household:
        return None
    return guess[0]


def _found(source: Source) -> str:
    """One line of "this is what I found": the source's title and host; a title that
    gives the assistant orders is withheld (its host alone), as its passages are."""
    if not source.title or speaks_to_the_assistant(source.title):
        return f"- {source.host}"
    return f"- {source.title} \u2014 {source.host}"


def asked(progress: TurnProgress) -> list[str]:
    """What the person wrote in this conversation (its user messages)."""
    return user_texts(progress.context)


def language_name(language: str, spoken_in: str = "en") -> str:
    """The name of a language code in ``spoken_in`` (CLDR's, through Babel): "de" →
    "German" for the model's instructions, "en" in German → "Englisch" for the household;
    the code itself when CLDR has no name."""
    return Locale.parse(language).get_display_name(spoken_in) or language


_REPEATED = (
    "You repeated what the device already told the person. Answer only this question, "
    "in one or two sentences: «{rest}»"
)


def _unsaid(prose: str, progress: TurnProgress) -> str:
    """``prose`` without what the product already said: sentences naming what its facts
    named (:func:`.checks.without_restatements`) or repeating one of them."""
    kept = without_restatements(prose, progress.stated_terms)
    return without_repeats(kept, progress.stated)


def _prose_note(progress: TurnProgress, note: str | None) -> str:
    parts = [note] if note else []
    if progress.stated:
        told = " ".join(progress.stated)
        parts.append(
            f"The device itself has already told the person: «{told}». Answer only the "
            "part of their question that is not about this home, this device or its "
            "network, in one or two sentences; say nothing about what was already told."
        )
    parts.append(f"Write your answer in {language_name(progress.voice.language)}.")
    return "\n".join(parts)


def _mistaken(progress: TurnProgress) -> bool:
    """Every call that did not run was refused for the model's own mistake (arguments its
    tool does not accept, a tool that does not exist): the question may need no call at
    all ("write a note to my landlord"), so the model answers, and the refusal is said."""
    receipts = progress.receipts
    return (
        bool(receipts)
        and len(progress.unrun) == len(receipts)
        and all(r.outcome == "refused" and r.error_code in _MISTAKES for r in receipts)
    )


def _guarded(
    grounds: Grounds, on_token: TokenSink | None, said: Sequence[str] = ()
) -> TokenSink | None:
    if on_token is None or not (grounds.applies or said):
        return on_token
    return GuardedSink(on_token, grounds, said)


def _after_said(on_token: TokenSink | None, after: bool) -> TokenSink | None:
    """``on_token`` that puts a blank line before the prose when sentences came first."""
    if on_token is None or not after:
        return on_token
    sink, started = on_token, False

    async def spaced(piece: str) -> None:
        nonlocal started
        if not started:
            started = True
            piece = "\n\n" + piece.lstrip()
        await sink(piece)

    return spaced


def _joined(sentences: Sequence[str], *, lead: bool) -> str:
    text = " ".join(sentences)
    return f" {text}" if lead and text else text


def _prose_context(progress: TurnProgress) -> list[Message]:
    """The context prose is asked with: the turn's, or, when a decision was made and
    nothing ran and nothing was said about what did not run, the same under the system
    prompt without what the turn withholds
    (:attr:`~..pending.TurnProgress.plain_prompt`). The decision found nothing withheld
    to say, so it is no part of the answer: asked "ik wil extra RAM in m'n pc prikken,
    waar moet ik op letten?", with the home not set up, the model wrote that it is not
    possible "omdat je het niet ingesteld hebt". With nothing to decide (no tool
    offered), what is withheld stays in the prompt: it is all the model knows of it."""
    context = progress.context
    decided = progress.rounds_used > 0 and not progress.results and not progress.unrun
    if not decided or not progress.plain_prompt or not context or context[0]["role"] != "system":
        return context
    return [{"role": "system", "content": progress.plain_prompt}, *context[1:]]


def with_note(context: list[Message], note: str | None) -> list[Message]:
    """``context`` with ``note`` appended to its system message (a new list)."""
    if not note:
        return context
    system = {"role": "system", "content": f"{context[0]['content']}\n\n{note}"}
    return [system, *context[1:]]


def _asking(context: list[Message], rest: str | None, *, general: bool = False) -> list[Message]:
    """``context`` with its latest user message replaced by ``rest`` (a new list), or
    ``context`` itself when there is no rest. For ``general`` prose (:attr:`Ending.general`)
    the calls and results after that message are left out too: the rest is asked as a
    question of its own. After the device's result, "Und wer hat nochmal den Faust
    geschrieben?" was answered "Der Faust hat nochmal geschrieben." (the model went on
    from the result, not the question); the facts are said already, and the note says
    so."""
    if not rest:
        return context
    last = max((i for i, m in enumerate(context) if m["role"] == "user"), default=None)
    if last is None:
        return context
    after = [] if general else context[last + 1 :]
    return [*context[:last], {**context[last], "content": rest}, *after]


def _join(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)
