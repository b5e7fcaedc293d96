"""No verdict against the result: "is the disk low?" answered as the result says.

A small model asked a yes/no question about the device answers "yes" whatever the
result holds: "Yes, the box is running low on disk space." at 23 % used, beside a
result that says in words the disk has plenty of space left. The figure check
(:mod:`.grounding`) cannot see it, since the answer states no figure. Results that
give a verdict carry it as a boolean field (``system.health``: ``disk_space_low``,
``cpu_busy``, ``cpu_hot``); each :class:`Verdict` says how an answer states it, and
:func:`contradicted` lists the clauses of an answer that state the opposite of a
result's verdict. A clause with a negation ("not", "isn't", "plenty") states the
verdict false. See docs/decisions/answers-from-what-ran.md. The lexicon is English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .states import clauses


@dataclass(frozen=True)
class Verdict:
    """A yes/no verdict a result states as a boolean field.

    Attributes:
        key: the result's field (``True``: the verdict holds).
        subject: what a clause stating the verdict is about ("disk", "space").
        claim: the words that state the verdict holds ("low", "running out").
        counter: the words that state it does not hold without a negation
            ("plenty of space", "idle", "a normal temperature").
        said: how a note to the model names it when it holds ("the disk is low on space").
        unsaid: the same when it does not hold.
    """

    key: str
    subject: re.Pattern[str]
    claim: re.Pattern[str]
    counter: re.Pattern[str]
    said: str
    unsaid: str


_DEVICE = r"cpu|processor|device|box|appliance|system|pi|machine|it"
_ROOM = r"(?:(?:free|disk|drive|storage)\s+)*(?:space|room|storage)\b"

VERDICTS = (
    Verdict(
        "disk_space_low",
        re.compile(r"\b(?:disk|disks|storage|space|drive|sd\s+card)\b", re.IGNORECASE),
        re.compile(
            r"\blow\s+on\b|\brunning\s+low\b|\b(?:space|storage)\s+is\s+low\b|\brun(?:ning)?\s+out\b"
            r"|\bshort\s+(?:on|of)\b|\blittle\s+(?:free\s+)?(?:space|storage)\b"
            r"|\b(?:almost|nearly|completely|getting|quite|very|is)\s+full\b",
            re.IGNORECASE,
        ),
        re.compile(
            rf"\b(?:(?:plenty|lots|loads|enough)\s+of|enough)\s+{_ROOM}"
            r"|\b(?:mostly|largely)\s+empty\b"
            r"|\b(?:space|room|storage)\s+to\s+spare\b",
            re.IGNORECASE,
        ),
        "the disk is low on space",
        "the disk is not low on space",
    ),
    Verdict(
        "cpu_busy",
        re.compile(rf"\b(?:{_DEVICE}|load)\b", re.IGNORECASE),
        re.compile(
            r"\b(?:busy|overloaded|working\s+hard|heavily\s+loaded|(?:under|a)\s+(?:heavy|high)"
            r"\s+load|high\s+load|(?:load|usage)\s+is\s+high)\b",
            re.IGNORECASE,
        ),
        re.compile(
            r"\b(?:idle|lightly\s+loaded|barely\s+(?:loaded|working|used)"
            r"|(?:time|capacity|headroom)\s+to\s+spare|(?:cpu|processor)\s+(?:usage|load)\s+is\s+low"
            r"|load\s+is\s+low|low\s+load)\b",
            re.IGNORECASE,
        ),
        "the CPU is busy",
        "the CPU is not busy",
    ),
    Verdict(
        "cpu_hot",
        re.compile(rf"\b(?:{_DEVICE}|temperature)\b", re.IGNORECASE),
        re.compile(r"\b(?:hot|overheat\w*|too\s+warm)\b", re.IGNORECASE),
        re.compile(
            r"\b(?:cool|normal\s+temperature|(?:temperature|temp)\s+is\s+(?:normal|fine|ok|okay|low|safe))\b",
            re.IGNORECASE,
        ),
        "the CPU is hot",
        "the CPU is not hot",
    ),
)

NEGATION = re.compile(
    r"n't\b|\b(?:not|no|never|nowhere|plenty|enough|hardly)\b",
    re.IGNORECASE,
)
"""Where a clause states a verdict false ("not", "isn't", "plenty")."""
YES_WORDS = frozenset({"yes", "yeah", "yep", "yup"})
REPLY_WORDS = r"(?:yes|yeah|yep|yup|no|nope)"
"""The words of a yes or a no that opens an answer (:data:`YES_WORDS`: the yeses)."""
LEADING_REPLY = re.compile(rf"^\W*{REPLY_WORDS}\b[\W]*", re.IGNORECASE)
"""A yes or no that opens a clause: it answers the question, it negates nothing after it."""


def verdicts_in(results: Iterable[Any]) -> dict[str, bool]:
    """The verdicts ``results`` (executed calls' results) state: ``{key: holds}``,
    the last result's value where several state one."""
    found: dict[str, bool] = {}
    for result in results:
        if isinstance(result, Mapping):
            for verdict in VERDICTS:
                value = result.get(verdict.key)
                if isinstance(value, bool):
                    found[verdict.key] = value
    return found


def contradicted(answer: str, verdicts: Mapping[str, bool]) -> list[tuple[str, Verdict]]:
    """The clauses of ``answer`` that state a verdict against ``verdicts``.

    Args:
        answer: the answer's text.
        verdicts: :func:`verdicts_in` of the turn's results.

    Returns:
        ``(clause as written, verdict)`` for each contradiction, in order: a clause
        about the verdict's subject that states it holds where the result says it
        does not ("Yes, the box is running low on disk space"), or the opposite
        ("The CPU is not busy" where it is).
    """
    found = []
    for clause in clauses(answer):
        for verdict in VERDICTS:
            holds = verdicts.get(verdict.key)
            said = stated(clause, verdict)
            if holds is not None and said is not None and said != holds:
                found.append((clause.strip(), verdict))
    return found


def stated(clause: str, verdict: Verdict) -> bool | None:
    """Whether ``clause`` states ``verdict`` holds (``True``), does not (``False``), or
    says nothing of it (``None``: not about its subject, or neither its claim nor its
    counter). A yes or no that opens the clause negates nothing after it ("No, it is
    busy" says it is busy); a negation turns the claim or the counter round ("not
    idle" is busy)."""
    clause = LEADING_REPLY.sub("", clause)
    if not verdict.subject.search(clause):
        return None
    if verdict.claim.search(clause):
        return not NEGATION.search(clause)
    if verdict.counter.search(clause):
        return bool(NEGATION.search(verdict.counter.sub(" ", clause)))
    return None


def verdict_note(contradictions: list[tuple[str, Verdict]], verdicts: Mapping[str, bool]) -> str:
    """The system note for asking once more after ``contradictions`` (may be empty: "")."""
    said = [
        verdict.said if verdicts[verdict.key] else verdict.unsaid
        for verdict in dict.fromkeys(verdict for _, verdict in contradictions)
    ]
    if not said:
        return ""
    return f"The tool result says {' and '.join(said)}; the answer must say so too."
