"""What each call leaves in a turn: its frame in the context, receipts, citations,
facts, the sentences of calls that did not run, and the audit lines for answers no
executor stage gave (denied, expired, not asked). DESIGN §4, RFC-0004."""

from __future__ import annotations

from sovereign.executor import (
    Capability,
    ErrorCode,
    Executor,
    Outcome,
    OutcomeKind,
    Stage,
)
from sovereign.executor import canonical_arguments as canonical_json

from ..answer.facts import render
from ..backends.base import Message
from ..pending import Proposal, TurnProgress
from ..sources import for_the_model
from ..voice.prompts import (
    denial_sentence,
    frame_denial,
    frame_not_asked,
    frame_outcome,
    frame_unparseable,
    not_asked_sentence,
    outcome_sentence,
)
from ..voice.sentences import own
from .provenance import (
    citations_for,
    denial_receipt,
    fact_for,
    is_web_source,
    not_asked_receipt,
    receipt_for,
)

NOT_ASKED_REASON = "not asked: an earlier call of the same reply was denied"
"""The audit log's fixed reason for a proposal answered without a card after a denial."""

_MODEL_SLIPS = (ErrorCode.UNKNOWN_CAPABILITY, ErrorCode.INVOCATION_LIMIT_REACHED)
"""Refusals that say nothing about the question (a made-up tool, a repeat after a result)."""


class CallLedger:
    """Writes each call's answer into a :class:`TurnProgress` (used by the turn loop).

    Args:
        executor: validates calls for :meth:`call_key` and writes the audit lines of
            answers given outside its stages.
    """

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def record(self, progress: TurnProgress, call: Proposal, outcome: Outcome) -> None:
        """An executor outcome: its frame, citations, receipt, result and fact, or the
        sentence saying it did not run (not for a made-up tool or a repeat).

        A household fact (a capability with a fact sheet) is said by the product at once:
        the sentences for the topics the call named go to ``progress.stated`` and the
        model's frame holds those sentences, not the result (:mod:`..answer.facts`).
        A web source's frame holds the passages that may answer the question (the
        candidates for quoting, :mod:`..sources`), not the whole page."""
        voice, capability = progress.voice, outcome.capability
        stated: list[str] = []
        if outcome.ok and capability is not None and capability.facts is not None:
            terms = progress.stated_terms
            stated = render(capability.facts, outcome.result or {}, call.topics, voice, terms)
            if stated and call.other_time:  # "und gestern?": the window read is not that
                stated.append(own("counts_back", voice))
            progress.stated.extend(s for s in stated if s not in progress.stated)
            if stated and not call.rest_asked:
                progress.answered.add(call.call_id)
        passages = None
        if outcome.ok and is_web_source(outcome.name) and isinstance(outcome.result, dict):
            added = progress.sources.add_result(outcome.name, outcome.result)
            passages = for_the_model(added, progress.candidates())
        if call.parse_error and outcome.error_code is ErrorCode.INVALID_ARGUMENTS:
            content = frame_unparseable(outcome.name, capability, voice, call.parse_error)
        else:
            content = frame_outcome(
                outcome, voice, edited=call.edited, stated=stated, passages=passages
            )
        progress.context.append(tool_message(call, content))
        progress.citations.extend(citations_for(outcome))
        receipt = receipt_for(outcome)
        if receipt is not None:
            progress.receipts.append(receipt)
        if outcome.ok:
            progress.results.append((outcome.name, outcome.result))
            fact = fact_for(outcome, voice)
            if fact is not None:
                progress.facts.append(fact)
        elif outcome.error_code not in _MODEL_SLIPS and not call.parse_error:
            progress.unrun.append(outcome_sentence(outcome, voice))

    def refuse(
        self,
        progress: TurnProgress,
        call: Proposal,
        *,
        expired: bool,
        reason: str | None = None,
        again: bool = False,
        token: str | None = None,
    ) -> None:
        """Append a denial (or expiry) for ``call``; the first time, also receipt and audit it.

        Only calls that passed stages 1-2 can halt, so ``call`` has a target and arguments.
        ``reason``: the household's words, quoted to the model. ``again``: the call was
        denied before in this turn (only the frame). ``token``: the approval being
        answered (the audit record names its ask).
        """
        target, key = call.target, self.call_key(call)
        name = target.capability if target else call.tool_name
        capability, voice = self.capability(call), progress.voice
        edited = call.arguments if call.edited else None
        framed = frame_denial(
            name, capability, voice, expired=expired, reason=reason, edited=edited
        )
        progress.context.append(tool_message(call, framed))
        if again or capability is None or key is None:
            return
        progress.refusals[key] = expired
        progress.unrun.append(denial_sentence(capability, voice, expired=expired, reason=reason))
        progress.receipts.append(denial_receipt(capability, expired=expired))
        kind = OutcomeKind.EXPIRED if expired else OutcomeKind.DENIED
        if token is not None:
            self._executor.record_answer(capability, kind, token)
        else:
            self._executor.audit.record(
                capability, version=capability.version, stage=Stage.CONFIRM, outcome=kind
            )

    def not_asked(self, progress: TurnProgress, call: Proposal) -> None:
        """Answer a call that needs approval without asking (a denial came before it).

        The first time a call is not asked it gets a receipt and an audit line
        (refused at the confirm stage, :data:`NOT_ASKED_REASON`); proposed again in
        this turn, only the answer.
        """
        capability, key = self.capability(call), self.call_key(call)
        assert capability is not None  # only a named capability can need approval
        frame = frame_not_asked(capability.name, capability, progress.voice)
        progress.context.append(tool_message(call, frame))
        if key is None or key in progress.unasked:
            return
        progress.unasked.add(key)
        progress.unrun.append(not_asked_sentence(capability, progress.voice))
        progress.receipts.append(not_asked_receipt(capability))
        self._executor.audit.record(
            capability,
            version=capability.version,
            stage=Stage.CONFIRM,
            outcome=OutcomeKind.REFUSED,
            reason=NOT_ASKED_REASON,
        )

    def capability(self, call: Proposal) -> Capability | None:
        """The registered capability ``call`` names, or ``None`` for a made-up name."""
        target = call.target
        return self._executor.registry.get(target.capability, target.version) if target else None

    def call_key(self, call: Proposal) -> str | None:
        """One call under every spelling: capability, version and the canonical arguments
        of the executor's validate stage (what a token binds), or ``None`` when the call
        would not pass stages 1-2 (then it cannot have been denied)."""
        target = call.target
        if target is None or call.arguments is None:
            return None
        checked = self._executor.validate(target.capability, target.version, call.arguments)
        if checked.arguments is None:
            return None
        return f"{target.capability}\x00{target.version}\x00{canonical_json(checked.arguments)}"


def tool_message(call: Proposal, content: str) -> Message:
    """The ``tool`` message answering ``call`` (OpenAI chat-completions shape)."""
    return {"role": "tool", "tool_call_id": call.call_id, "content": content}
