"""A bare "Yes" or "No" states the question's own claim.

Asked "Is the CPU hot?" on a device with no temperature sensor, a small model
answers "Yes, the CPU is overloaded.": the rest of the sentence is about the load,
which the result holds, but the "Yes" tells the household the CPU is hot, which
nothing read. Neither the state check (:mod:`.states`: the answer names no
temperature) nor the verdict check (:mod:`.verdicts`: no clause of the answer says
"hot") sees it, because the claim is in the question. So a leading yes or no is
read as the question's claim, affirmed or denied, and checked like a clause of
the answer:

- against a verdict a result states ("Is the box low on disk space?" → "Yes, …"
  at 23 % used contradicts ``disk_space_low: false``);
- for a verdict no result states ("Is the CPU busy?" → "Yes." after a turn that
  read only Pi-hole's totals), unless a web source ran, whose text may say anything;
- for a kind of household state no result read ("Is the front door locked?" →
  "No." after reading the system's health).

A yes/no question is a clause that starts with an auxiliary verb ("is", "does",
"can" …, after at most three words that are not question words: "Hey Sovereign,
is …") or holds "whether" or "if". Questions where English "yes" and "no" are
ambiguous (one that leads with a negative, "Isn't the CPU hot?"; one that offers
alternatives, "… busy or idle?"; one that asks about two things), and answers whose
first clause says the state could not be read ("No, I can't read the
temperature") are not checked. The lexicon is English.
See docs/decisions/answers-from-what-ran.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .states import KINDS, UNREAD, clauses
from .verdicts import REPLY_WORDS, VERDICTS, YES_WORDS, Verdict, stated

_REPLY = re.compile(
    rf"^\W*(?P<word>{REPLY_WORDS})\b"
    r"(?=\s*(?:[,.!;:\u2014\u2013-]|$)|\s+(?:it|the|your|there|that|this|i|we|you)\b)",
    re.IGNORECASE,
)
_AUXILIARY = r"(?:is|are|am|was|were|do|does|did|has|have|had|can|could|will|would|should|shall)"
_QUESTION_WORD = r"(?:how|what|which|when|where|who|whom|whose|why)\b"
_POLAR = re.compile(
    rf"^\W*(?:(?!{_QUESTION_WORD})\w+\W+){{0,3}}?{_AUXILIARY}\b|,\s*{_AUXILIARY}\b"
    r"|\b(?:whether|if)\b",
    re.IGNORECASE,
)
_NEGATIVE_LEAD = re.compile(
    r"^\W*(?:\w+\W+){0,3}?(?:is|are|was|were|do|does|did|has|have|can|could|will|would|should)n't\b",
    re.IGNORECASE,
)
_ALTERNATIVE = re.compile(r"\bor\b(?!\s+not\b)", re.IGNORECASE)
_ASKS = re.compile(
    r"^\W*(?:\w+\W+){0,3}?(?:how|what|which|tell|check|show|give|report|read|let\s+me\s+know"
    r"|find\s+out)\b",
    re.IGNORECASE,
)
_SENSOR = re.compile(r"\bsensors?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    """A leading yes or no and the question clauses it answers.

    Attributes:
        word: the answer's yes or no as written ("Yes").
        affirms: ``True`` for a yes.
        claims: the clauses of the question that ask a yes/no question.
    """

    word: str
    affirms: bool
    claims: tuple[str, ...]


@dataclass(frozen=True)
class Unbacked:
    """What a reply states that the turn's results do not back.

    Attributes:
        word: the reply as written.
        verdict: the verdict it states against a result's, or states where no
            result gives one (``None``: a state kind).
        holds: whether the reply says the verdict holds.
        kind: the name of a kind of state no result read (``None``: a verdict).
    """

    word: str
    verdict: Verdict | None = None
    holds: bool = False
    kind: str | None = None


def reply_to(answer: str, question: str) -> Reply | None:
    """The leading yes or no of ``answer`` as a reply to ``question``, or ``None``
    when the answer does not start with one, the question asks nothing yes or no,
    leads with a negative, or the answer's first clause says the state could not
    be read."""
    match = _REPLY.match(answer.replace("\u2019", "'"))
    if match is None:
        return None
    first = clauses(answer)
    if first and UNREAD.search(first[0]):
        return None
    claims = tuple(
        clause
        for clause in clauses(question)
        if _POLAR.search(clause)
        and not _NEGATIVE_LEAD.search(clause)
        and not _ALTERNATIVE.search(clause)
    )
    if not claims:
        return None
    word = match.group("word")
    return Reply(word, word.casefold() in YES_WORDS, claims)


def unbacked(
    answer: str,
    question: str,
    *,
    read: frozenset[str],
    verdicts: Mapping[str, bool],
    world: bool,
) -> list[Unbacked]:
    """What the leading yes or no of ``answer`` states beyond the turn's results.

    Args:
        answer: the answer's text.
        question: the person's last message.
        read: the kinds of state the results read (:func:`.states.kinds_read`).
        verdicts: the verdicts household results state (:func:`.verdicts.verdicts_in`).
        world: whether a web source ran (its text may state any verdict).

    Returns:
        One :class:`Unbacked` for the verdict the reply states against a result
        or without one, or, for a question about no verdict, for the kind of
        state it asks about when no result read one; empty when the reply is
        backed, there is none, or the question asks about more than one thing
        (a "Yes" to "Is the disk low and is the CPU busy?" is ambiguous).
    """
    reply = reply_to(answer, question)
    if reply is None:
        return []
    found, asked_about = [], set()
    for claim in reply.claims:
        asked = {v: said for v in VERDICTS if (said := stated(claim, v)) is not None}
        rest = claim  # what the clause asks besides its verdicts ("hot" asks no more)
        for verdict in asked:
            rest = verdict.counter.sub(" ", verdict.claim.sub(" ", rest))
        asked_about |= {v.key for v in asked} | {k.name for k in KINDS if k.claim.search(rest)}
        for verdict, proposed in asked.items():
            holds = proposed if reply.affirms else not proposed
            given = verdicts.get(verdict.key)
            if (given is None and not world) or (given is not None and given != holds):
                found.append(Unbacked(reply.word, verdict=verdict, holds=holds))
        if asked:
            continue
        found += [
            Unbacked(reply.word, kind=kind.name)
            for kind in KINDS
            if kind.name not in read and kind.claim.search(claim)
        ]
    return found if len(asked_about) == 1 else []  # a yes to two questions answers neither


def reply_note(problems: list[Unbacked], verdicts: Mapping[str, bool]) -> str:
    """The system note for asking once more after ``problems`` (may be empty: "")."""
    notes = []
    for verdict in dict.fromkeys(p.verdict for p in problems if p.verdict is not None):
        if verdict.key in verdicts:
            said = verdict.said if verdicts[verdict.key] else verdict.unsaid
            word = next(p.word for p in problems if p.verdict == verdict)
            right = "No" if word.casefold() in YES_WORDS else "Yes"
            notes.append(
                f'The tool result says {said}, so the reply to the question is "{right}", '
                f'not "{word}".'
            )
        else:
            notes.append(
                f"Nothing read in this turn says whether {verdict.said}, so"
                " the answer must not say yes or no to it; it says this could not be checked."
            )
    kinds = list(dict.fromkeys(p.kind for p in problems if p.kind is not None))
    if kinds:
        notes.append(
            f"Nothing read in this turn gives {' or '.join(kinds)}, so the answer must not "
            "say yes or no to it; it says this could not be read."
        )
    return " ".join(notes)


def unanswered(
    answer: str,
    question: str,
    *,
    read: frozenset[str],
    verdicts: Mapping[str, bool],
    world: bool,
) -> list[str]:
    """What ``question`` asks that nothing read, when ``answer`` does not say so:
    one second-person sentence for each, to add to the answer.

    Asked "Is the CPU hot?" on a device with no temperature sensor, a small model
    answers with the load ("The CPU is lightly loaded"): nothing false, and nothing
    about what was asked. A question clause (a yes/no question, one opening with
    "how", "what", "which", or a request to "tell", "check", "show" …) that asks about
    a kind of household state no result read (:mod:`.states`), or about a verdict
    no household result states while no web source ran (:mod:`.verdicts`), is
    answered when a clause of the answer says it could not be read and names it
    (by its words or its subject, or by a sensor where the answer names it too).
    Otherwise the sentence returned says it.

    Args:
        answer: the answer's text.
        question: the person's last message.
        read: the kinds of state the results read (:func:`.states.kinds_read`).
        verdicts: the verdicts household results state (:func:`.verdicts.verdicts_in`).
        world: whether a web source ran.

    Returns:
        The sentences, in the question's order; empty when nothing is missing.
    """
    said = [clause for clause in clauses(answer) if UNREAD.search(clause)]
    missing: dict[str, str] = {}
    for clause in clauses(question):
        if not (_POLAR.search(clause) or _ASKS.search(clause)):
            continue
        kinds = [k for k in KINDS if k.claim.search(clause)]
        for kind in kinds:
            if kind.name not in read and not _says_unread(kind.claim, said, answer):
                missing[kind.name] = f"Nothing I checked reads {kind.name}, so I can't tell you."
        if kinds or world:
            continue  # "Is the CPU hot?" asks for a temperature: said above when unread
        for verdict in VERDICTS:
            if stated(clause, verdict) is None or verdict.key in verdicts:
                continue
            if not any(verdict.subject.search(c) for c in said):
                missing[verdict.key] = f"Nothing I checked says whether {verdict.said}."
    return list(missing.values())


def _says_unread(words: re.Pattern[str], unread: list[str], answer: str) -> bool:
    """Whether a clause of ``unread`` (those saying something could not be read) names
    it by ``words``, or names a sensor in an answer that speaks of it elsewhere ("I
    can't tell the temperature: there is no sensor"); "I can't read your home's
    sensors" alone answers nothing about a temperature."""
    return any(words.search(clause) for clause in unread) or (
        bool(words.search(answer)) and any(_SENSOR.search(clause) for clause in unread)
    )
