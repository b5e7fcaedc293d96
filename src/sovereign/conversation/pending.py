"""Turns paused for the household's approval, held in memory (DESIGN §4, RFC-0004)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sovereign.executor import TTL_SECONDS, TurnState
from sovereign.expiring import ExpiringMap

from .backends.base import Message, ToolDefinition, latest_user_text
from .offer.catalog import ToolCatalog, ToolTarget
from .progress import ProgressReporter
from .results import Citation, Fact, InvalidConfirmation, Receipt
from .sources import Ranking, Sources, ranking
from .voice.catalogs import DEFAULT_LANGUAGE, Voice

GRACE_SECONDS = 600.0
"""How long a paused turn is kept after its token expired, in seconds, so a late
answer still ends the turn with an "expired" denial instead of an error."""
MAX_PENDING_TURNS = 128
"""Most paused turns held at once; pausing past it forgets the oldest."""


@dataclass(frozen=True)
class Proposal:
    """One call the model proposed, with the id the turn loop gave it.

    ``target`` is ``None`` when the name matches no offered tool; ``arguments``
    is ``None`` with ``parse_error`` set when they were not a JSON object.
    """

    call_id: str
    tool_name: str
    target: ToolTarget | None
    arguments: dict[str, Any] | None
    parse_error: str | None = None
    edited: bool = False
    """The household edited the arguments on the card: they are its, not the model's."""
    topics: tuple[str, ...] = ()
    """The facts the decision named for a capability that declares them (``facts``,
    taken out of the arguments before the executor sees them)."""
    rest_asked: bool = True
    """Whether the question asks more than this call reads (``also_asked``): when no
    call of a round does and each one's facts were stated, the turn ends there."""
    other_time: bool = False
    """The call counts over a window back from now and the question names a time no such
    window is ("yesterday", "last Tuesday"): after its facts, the product says so."""


@dataclass
class TurnProgress:
    """Everything a turn has built so far; what a paused turn resumes from."""

    catalog: ToolCatalog
    """The tools offered when the turn started (kept for its whole life)."""
    context: list[Message]
    """System prompt, history, and every model reply and framed result so far."""
    plain_prompt: str = ""
    """The system prompt without what the turn withholds ("Right now: Home Assistant is
    not set up …"), for prose that answers with nothing run and nothing said about what
    did not run (:mod:`.answer.finish`); empty: the context's own."""
    executions: TurnState = field(default_factory=TurnState)
    """Per-capability execution counts (the per-turn bounds)."""
    rounds_used: int = 0
    """Model rounds that proposed calls so far."""
    refusals: dict[str, bool] = field(default_factory=dict)
    """Calls the household refused this turn: canonical call key → expired?"""
    unasked: set[str] = field(default_factory=set)
    """Calls never put to the household because it denied an earlier call of the same
    model reply (canonical call keys): proposed again, they stay unasked."""
    citations: list[Citation] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    results: list[tuple[str, Any]] = field(default_factory=list)
    """``(capability, result)`` of every executed call, in order (what the answer may state)."""
    unrun: list[str] = field(default_factory=list)
    """What the assistant says about each call that did not run or failed, in order."""
    calls_made: int = 0
    """Counter behind the call ids the loop assigns (``call_1``, ``call_2``, …)."""
    voice: Voice = field(default_factory=lambda: Voice(DEFAULT_LANGUAGE))
    """The household's language for this turn (the question's, :mod:`.voice.language`)."""
    stated: list[str] = field(default_factory=list)
    """What the product said from household results so far (:mod:`.answer.facts`)."""
    shown: int = 0
    """How many of :attr:`stated` were already streamed to the household."""
    stated_terms: set[str] = field(default_factory=set)
    """The names and state words :attr:`stated` said (prose may not say them again)."""
    answered: set[str] = field(default_factory=set)
    """Ids of the calls whose facts the product stated and that answer all their
    question asked (``also_asked`` said ``nothing_else``)."""
    sources: Sources = field(default_factory=Sources)
    """The web sources read this turn, cut into numbered passages (:mod:`.sources`)."""
    today: date = field(default_factory=date.today)
    """The household's date when the turn began (the days a question names count from it)."""
    decided_with: tuple[list[ToolDefinition], str | None] = field(
        default_factory=lambda: ([], None)
    )
    """The tools the last decision was offered and the note its instructions carried:
    the passage choice after a web result is shown the same (its own tool forced), so
    the prompt it shares with that decision is not evaluated again."""
    reporter: ProgressReporter = field(
        default_factory=lambda: ProgressReporter(None), compare=False, repr=False
    )
    """Where this request's stages go (replaced by every request that continues the turn)."""

    _ranked: tuple[tuple[int, str, str, date], Ranking] | None = field(
        default=None, compare=False, repr=False
    )
    """The last ranking and what it ranked: (sources read, question, language, day)."""

    def candidates(self) -> list[str]:
        """The passages of :attr:`sources` that may answer :attr:`question`, best first
        (:attr:`.sources.Ranking.numbers` of :meth:`ranking`)."""
        return list(self.ranking().numbers)

    def ranking(self) -> Ranking:
        """The :func:`.sources.ranking` of :attr:`sources` for :attr:`question`; ranked
        again only when a source, the question, the language or the day changed (the
        result's frame and the next round both ask)."""
        key = (len(self.sources.items), self.question, self.voice.language, self.today)
        if self._ranked is None or self._ranked[0] != key:
            ranked = ranking(self.sources, self.question, self.voice.language, self.today)
            self._ranked = (key, ranked)
        return self._ranked[1]

    def answers_all(self, calls: Iterable[Proposal]) -> bool:
        """Whether the facts the product stated for ``calls`` answer everything their
        question asked (each call in :attr:`answered`): the turn then ends with them, after
        one decision, whether the calls ran at once or after an approval."""
        return all(call.call_id in self.answered for call in calls)

    @property
    def question(self) -> str:
        """The household's latest message in :attr:`context` ("" when there is none)."""
        return latest_user_text(self.context)


@dataclass(frozen=True)
class PendingTurn:
    """A turn halted on one proposal that needs approval.

    ``halted`` is the proposal that waits for the household; ``waiting`` are the
    proposals the model made after it in the same round. They have not been
    sent to the executor yet and run, in order, once ``halted`` is approved or
    expired (any of them may pause the turn again). A denial ends them: those
    that need approval are answered "not asked" without a card, the others run.
    """

    token: str
    owner: str
    progress: TurnProgress
    halted: Proposal
    waiting: tuple[Proposal, ...]
    arguments: dict[str, Any] | None = None
    """The canonical arguments the card shows and the token binds."""


class PendingTurnStore:
    """In-memory store of paused turns, keyed by their confirmation token (the one
    expiring map, :mod:`sovereign.expiring`).

    What is stored: the whole :class:`TurnProgress` (conversation context with
    framed results, execution counts, refusals, citations, receipts), the
    halted proposal with its verbatim arguments, the proposals of the same
    round still waiting, and the owner (the session that started the turn).
    Never persisted; a restart forgets every paused turn.

    Lifetime: a turn is held for the token's TTL (``ttl_seconds``, 120 s) plus
    ``grace_seconds``. Within the TTL an approval runs the call; after it, the
    answer (approve or deny) appends an "expired" or "denied" result and the
    turn continues. Past the grace the turn is forgotten and its token is
    unknown. At most ``max_turns`` are held; the oldest is forgotten first.

    Args:
        ttl_seconds: the confirmation token lifetime, in seconds.
        grace_seconds: extra holding time after expiry, in seconds.
        max_turns: bound on paused turns held at once.
        clock: monotonic clock in seconds (inject one in tests).
        on_forget: called with the token of every turn dropped unanswered
            (expired past grace or evicted), e.g. to discard the token.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float = TTL_SECONDS,
        grace_seconds: float = GRACE_SECONDS,
        max_turns: int = MAX_PENDING_TURNS,
        clock: Callable[[], float] = time.monotonic,
        on_forget: Callable[[str], None] | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be >= 1")
        forget = None if on_forget is None else (lambda token, _turn: on_forget(token))
        self._turns: ExpiringMap[str, PendingTurn] = ExpiringMap(
            ttl_seconds=ttl_seconds + grace_seconds,
            max_entries=max_turns,
            clock=clock,
            on_drop=forget,
        )

    def put(self, turn: PendingTurn) -> None:
        """Hold ``turn`` under its token, forgetting the oldest turn when full."""
        self._turns.put(turn.token, turn)

    def take(self, token: str, owner: str) -> PendingTurn:
        """Remove and return the turn paused on ``token``; exactly one caller gets it.

        Raises:
            InvalidConfirmation: no turn is held for ``token`` (never issued,
                already answered, or forgotten), or it belongs to another owner
                (it then stays held for its owner).
        """
        held = self._turns.get(token)
        if held is None or held.owner != owner or self._turns.pop(token) is not held:
            raise InvalidConfirmation("No paused turn matches this confirmation token.")
        return held

    def peek(self, token: str, owner: str) -> PendingTurn:
        """The turn paused on ``token``, left in place (to check an answer before taking it).

        Raises:
            InvalidConfirmation: as :meth:`take`.
        """
        held = self._turns.get(token)
        if held is None or held.owner != owner:
            raise InvalidConfirmation("No paused turn matches this confirmation token.")
        return held

    def __len__(self) -> int:
        return len(self._turns)
