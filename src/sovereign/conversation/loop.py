"""The conversation turn loop: model ⇄ executor, halting for approval (DESIGN §4, RFC-0002/0004)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from sovereign.executor import (
    Capability,
    Confirmation,
    ErrorCode,
    Executor,
    Locality,
    Outcome,
    OutcomeKind,
)

from .answer.finish import AnswerWriter, Ending, language_name, show_stated
from .answer.finish import with_note as _with_note
from .approval.card_words import card_flags, in_another_language
from .approval.edit import check_edit, is_unchanged, typed_exactly
from .approval.ledger import CallLedger
from .backends.base import (
    Message,
    ModelBackend,
    ModelError,
    ModelRejected,
    ModelReply,
    ModelUnavailable,
    TokenSink,
    ToolCall,
    ToolChoice,
    ToolDefinition,
    YesNoJudge,
    allowed_choice,
    latest_user_text,
    named_choice,
    user_texts,
)
from .judge import judged
from .offer.advice import asks_for_advice, asks_for_an_explanation
from .offer.arithmetic import (
    CALCULATE,
    Calculation,
    Conversion,
    calculate_tool,
    holds_a_number,
)
from .offer.catalog import ToolCatalog
from .offer.changes import asks_for_a_change
from .offer.choices import ALSO_ASKED, general_check, offered_choices, split_product_parameters
from .offer.guidance import ArgumentGuide, is_time_window
from .offer.same_thing import (
    SAME_THING,
    best_named,
    better_named,
    check_messages,
    choosing_read,
    chosen_values,
    listing_read,
    named_in,
    named_with,
    said_no,
    same_thing_tool,
)
from .offer.stand_ins import (
    CHANGE,
    OTHER_DEVICES,
    StandIn,
    chosen_stand_ins,
    other_devices_stand_in,
    stand_ins,
)
from .offer.subjects import (
    asks_for_the_web,
    conversation_scope,
    family_of,
    family_offered,
    family_reads,
    followed_families,
    local_read,
    named_families,
    named_read,
    names_other_things,
    names_the_thing,
    reads_here,
    unread_questions,
)
from .pending import PendingTurn, PendingTurnStore, Proposal, TurnProgress
from .progress import ProgressReporter, ProgressSink, Stage, TurnStopped
from .proposals import adopt
from .quantities import guessed_measure, with_units
from .results import PendingConfirmation, TurnFailed, TurnResult
from .sources import (
    MAX_QUOTES,
    QUOTE,
    found_passages,
    quote_note,
    quote_tool,
    related,
    selection,
)
from .voice.catalogs import DEFAULT_LANGUAGE, Voice
from .voice.language import question_language
from .voice.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    system_prompt,
)
from .voice.sentences import own

logger = logging.getLogger(__name__)

BUDGET_SPENT_NOTE = "All the checks one question allows were made; answer with what you have."
ANSWER_THE_REST = StandIn(
    "answer_the_rest",
    "",
    "also asks something that is not about this home, this device or its network and "
    "that nothing said so far answers (general knowledge, writing, advice)",
)
"""Offered once the product has stated household facts: then an answer without a tool ends
the turn with those facts, and only this choice asks the model for prose of its own."""
GENERAL_KNOWLEDGE = StandIn(
    "general_knowledge",
    "",
    "general knowledge answers, with no need for this home, this device or current "
    "information: who wrote, painted or invented something, capitals, history, science, "
    "words and translations, arithmetic and conversions",
)
"""Offered before anything ran in a turn: a named door for what needs no tool. Offered
only "answer", a 1.5B model sent most general-knowledge questions in every language to
web search; choosing this is the same as answering without a tool (the model's prose)."""


NAMED_READ_ID = "named-read"
"""The id of the call the product proposes for the family a question names when the model
chose to answer without a call (:func:`~.offer.subjects.named_read`); renumbered, like
every call, when it is adopted."""


class TurnLoop:
    """Runs conversation turns: ask the model, run its proposals, repeat (DESIGN §4).

    Args:
        executor: decides what runs; its ``confirmations`` issues the tokens.
        backend: the model.
        pending: where paused turns wait (default: a store whose TTL matches
            the executor's tokens).
        max_rounds: model rounds per turn that may propose calls (>= 1). Once
            spent, the model is asked once more, without tools, for its answer.
        system_prompt: replaces :data:`~.voice.prompts.DEFAULT_SYSTEM_PROMPT`.
        model_retries: extra attempts after a :class:`ModelError` before the
            turn gives up with :class:`ModelUnavailable`; a :class:`ModelRejected`
            (the server refused the request itself) is never asked again.
        household_language: the household's language setting (ISO 639-1), read for
            every turn; the answer's language is the question's when it can be told
            (:mod:`.voice.language`), else this (default English).
        today: the household's date, read once per turn (a web answer prefers the
            passages about the days a question names, :mod:`.days`).
        model_chooses_passages: whether the model chooses, among the passages ranked
            after a web result, the one quoted (default), or the product quotes the
            one ranked first (see :meth:`_quote`).
    """

    def __init__(
        self,
        executor: Executor,
        backend: ModelBackend,
        *,
        pending: PendingTurnStore | None = None,
        max_rounds: int = 4,
        system_prompt: str | None = None,
        model_retries: int = 1,
        household_language: Callable[[], str] | None = None,
        today: Callable[[], date] = date.today,
        model_chooses_passages: bool = True,
    ) -> None:
        if max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        self._executor = executor
        self._backend = backend
        self._ledger = CallLedger(executor)
        if pending is None:
            pending = PendingTurnStore(
                ttl_seconds=executor.confirmations.ttl_seconds,
                on_forget=executor.confirmations.discard,
            )
        self._pending = pending
        self._max_rounds = max_rounds
        self._system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self._attempts = 1 + max(0, model_retries)
        self._household_language = household_language or (lambda: DEFAULT_LANGUAGE)
        self._today = today
        self._model_chooses_passages = model_chooses_passages
        self._writer = AnswerWriter(executor.registry)

    async def process_turn(
        self,
        messages: list[dict[str, Any]],
        *,
        policy: Mapping[str, bool],
        owner: str,
        on_token: TokenSink | None = None,
        on_progress: ProgressSink | None = None,
    ) -> TurnResult:
        """Answer the last user message, running the calls the model proposes.

        Args:
            messages: history plus the new user message, each ``{"role": "user" |
                "assistant", "content": str}``.
            policy: per-request switches, e.g. ``{"external_enabled": False}``.
            owner: opaque id of who asks (the session); only it may resume.
            on_token: receives the final answer's text as it is generated.
            on_progress: receives the turn's stages (:mod:`.progress`).

        Returns:
            A :class:`TurnResult`: the answer, or a ``pending_confirmation``
            when a proposal needs approval (answer it with :meth:`resume_turn`).

        Raises:
            ValueError: a message with another role or non-string content.
            TurnFailed: the turn could not finish; its ``error`` is
                :class:`ModelUnavailable` (the model cannot be reached, or failed on
                every attempt), :class:`ModelRejected` (the server refused the
                request; never retried), :class:`ContextTooLong`, or an unexpected
                exception, and it carries the citations and receipts of every call
                that ran.
        """
        catalog = ToolCatalog.for_turn(self._executor.registry, policy)
        written = [m["content"] for m in _checked(messages) if m["role"] == "user"]
        voice = Voice(question_language(written, self._household_language()))
        prompt = system_prompt(self._system_prompt, catalog.unavailable_sentences(voice))
        progress = TurnProgress(
            catalog=catalog,
            context=[
                {"role": "system", "content": prompt},
                *_checked(messages),
            ],
            plain_prompt=self._system_prompt,
            reporter=ProgressReporter(on_progress, voice.language),
            voice=voice,
            today=self._today(),
        )
        try:
            return await self._continue(progress, policy, owner, on_token)
        except Exception as exc:
            raise _failed(progress, exc) from exc

    async def resume_turn(
        self,
        token: str,
        approve: bool,
        *,
        policy: Mapping[str, bool],
        owner: str,
        reason: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        on_token: TokenSink | None = None,
        on_progress: ProgressSink | None = None,
    ) -> TurnResult:
        """Continue a paused turn with the household's answer (RFC-0004).

        Approve: the halted call goes through every executor stage again, with
        the token, exactly once (a policy switched off meanwhile still
        refuses). Deny: a "denied" result is appended (a denial, not a
        failure) and the model is told not to propose the call again; if it
        does in this turn, it gets the same denial with no new prompt. An
        approval after the token expired appends an "expired" result instead.
        Then the proposals that waited behind the halted one run, and the loop
        goes on; it may pause again on a new token. After a denial, though,
        none of those waiting proposals is put to the household: each that
        needs approval is answered "not asked" (receipt ``refused`` with
        ``NOT_ASKED``, audited), so a queue of proposals in one reply cannot
        wear the household down with card after card.

        Args:
            token: the ``pending_confirmation.token`` being answered.
            approve: the household's answer.
            policy, owner, on_token, on_progress: as for :meth:`process_turn`.
            reason: optional words of the household, passed to the model with a denial.
            arguments: the household's edit of the halted call's arguments (only
                with ``approve``; DESIGN §4). A new proposal: validated, policy-checked
                and flag-checked again; the original ask is answered ``edited`` and
                its token discarded. When its canonical form is exactly what was
                typed and nothing is flagged, it runs at once with a token of its
                own; otherwise a new card is returned for it. The model is told
                that the household edited the call and what was finally sent.
                An edit equal to the card's arguments is a plain approval.

        Raises:
            InvalidEdit: stages 1-2 refuse the edited arguments; nothing was
                answered and the original card stays answerable until it expires.
            InvalidConfirmation: unknown, already answered or foreign token.
                Of two concurrent answers to one token, exactly one proceeds.
            TurnFailed: as for :meth:`process_turn`. The paused turn is spent
                by then: an approved call has run (and is in the audit log, and
                its receipt and citations are on the exception), and the
                household asks again in a new turn.
        """
        if arguments is not None:
            if not approve:
                raise ValueError("edited arguments come only with an approval")
            self.check_edit(token, owner, arguments)
        paused = self._pending.take(token, owner)
        paused.progress.reporter = ProgressReporter(on_progress, paused.progress.voice.language)
        if arguments is not None and is_unchanged(self._executor, paused, arguments):
            arguments = None
        try:
            return await self._resume(
                paused, token, approve, policy, owner, reason, on_token, arguments
            )
        except Exception as exc:
            raise _failed(paused.progress, exc) from exc

    async def _resume(
        self,
        paused: PendingTurn,
        token: str,
        approve: bool,
        policy: Mapping[str, bool],
        owner: str,
        reason: str | None,
        on_token: TokenSink | None,
        edited: Mapping[str, Any] | None = None,
    ) -> TurnResult:
        progress, call = paused.progress, paused.halted
        live = self._executor.confirmations.seconds_left(token) > 0
        if approve and live and edited is not None:
            halted = await self._run_edit(paused, dict(edited), policy, owner)
            if halted is not None:
                return halted
        elif approve and live:
            outcome = await self._invoke(progress, call, policy, token)
            if outcome.error_code is ErrorCode.INVALID_CONFIRMATION:
                self._ledger.refuse(progress, call, expired=True, token=token)
            else:
                self._ledger.record(progress, call, outcome)
        else:
            self._ledger.refuse(progress, call, expired=approve, reason=reason, token=token)
        self._executor.confirmations.discard(token)
        halted = await self._run_proposals(progress, paused.waiting, policy, owner, may_ask=approve)
        if halted is not None:
            return halted
        if progress.answers_all((call, *paused.waiting)):
            # Household facts the product stated answer the whole question, as they do
            # without an approval: one decision. Asked again, the model wrote the rest
            # itself ("The greenhouse heater is not currently running.", "Die
            # Wärmepumpe zieht gerade 100 Watt.") after a read of another thing.
            return await self._finish(progress, on_token, Ending(done=True))
        return await self._continue(progress, policy, owner, on_token)

    def check_edit(self, token: str, owner: str, arguments: Any) -> None:
        """Would an edit of the card paused on ``token`` be accepted? (see :func:`.edit.check_edit`)

        Raises:
            InvalidConfirmation: no such paused turn of ``owner``.
            InvalidEdit: stages 1-2 refuse ``arguments``; nothing was answered.
        """
        check_edit(self._executor, self._pending, token, owner, arguments)

    async def _run_edit(
        self, paused: PendingTurn, arguments: dict[str, Any], policy: Mapping[str, bool], owner: str
    ) -> TurnResult | None:
        """The household's edit as a new proposal (see :meth:`resume_turn`)."""
        progress, call = paused.progress, paused.halted
        capability = self._ledger.capability(call)
        assert capability is not None  # only a named capability can halt
        self._executor.record_answer(capability, OutcomeKind.EDITED, paused.token)
        self._executor.confirmations.discard(paused.token)
        edited = replace(call, arguments=arguments, edited=True)
        outcome = await self._invoke(progress, edited, policy, None)
        if outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED:
            if outcome.flags or not typed_exactly(outcome.arguments, arguments):
                return self._pause(progress, edited, paused.waiting, owner, outcome)
            outcome = await self._run_approved_edit(progress, edited, policy, outcome)
        self._ledger.record(progress, edited, outcome)
        return None

    async def _run_approved_edit(
        self, progress: TurnProgress, call: Proposal, policy: Mapping[str, bool], ask: Outcome
    ) -> Outcome:
        """Run an edit the household typed exactly as it leaves, with a token of its own."""
        confirmations = self._executor.confirmations
        arguments = dict(ask.arguments or {})
        token = confirmations.issue(ask.name, ask.version, arguments, asked=ask.audit_id)
        try:
            return await self._invoke(progress, call, policy, token)
        finally:
            confirmations.discard(token)

    async def _continue(
        self,
        progress: TurnProgress,
        policy: Mapping[str, bool],
        owner: str,
        on_token: TokenSink | None,
    ) -> TurnResult:
        while progress.rounds_used < self._max_rounds:
            choices = progress.candidates()
            if (quote := quote_tool(choices)) is not None:
                return await self._quote(progress, on_token, quote, choices)
            followed = conversation_scope(
                user_texts(progress.context),
                progress.catalog.capabilities.values(),
                progress.voice.language,
            )
            guide = ArgumentGuide.for_context(
                progress.context, _found_urls(progress), self._address_check(progress), followed
            )
            tools = progress.catalog.tools(guide)
            if guide.only_unreadable:
                # What the question asks to read can only be refused: nothing that
                # reaches outside may stand in for it (a search for a local address).
                tools = [t for t in tools if not self._reaches_out(progress, t)]
            if not tools:  # nothing can run: no decision to make
                return await self._finish(progress, on_token, _unreadable(progress, guide))
            if progress.sources.steered:  # a source gave orders: nothing more reaches out
                tools = [t for t in tools if not self._reaches_out(progress, t)]
            nothing_ran = not progress.results and not progress.unrun
            reader = guide.page_reader(tools) if nothing_ran else None
            if reader is not None:
                # A question that names a page, or refers to one named earlier, is
                # answered from that page: of what reaches outside, only its reader is
                # offered ("According to http://…/menus, what is for lunch on Thursday?"
                # was searched for in five languages with the reader offered and named).
                tools = [
                    t
                    for t in tools
                    if t["function"]["name"] == reader or not self._reaches_out(progress, t)
                ]
            question = latest_user_text(progress.context)
            named = named_families(
                question,
                progress.catalog.capabilities.values(),
                progress.voice.language,
            )
            # Another thing of the household's and no family named, before anything ran.
            elsewhere = nothing_ran and not named and bool(_other_things(progress, owned_only=True))
            # A stand-in for a family the question's words do not name, when they name
            # another, is not offered ("la charge du processeur" went to the smart-home
            # stand-in). What can run stays: removing reads moved other choices.
            standing = tuple(
                s
                for s in stand_ins(progress.catalog, progress.voice)
                if family_offered(named, s.family)
            )
            if progress.stated:
                standing = (*standing, ANSWER_THE_REST)
            elif nothing_ran:
                if elsewhere:
                    # "how many devices are online at home right now?" names the
                    # household's other things, which nothing here reads: a door that
                    # says so, beside the one to answer in prose (advice about them).
                    standing = (*standing, other_devices_stand_in(progress.voice))
                standing = (*standing, GENERAL_KNOWLEDGE)
            offered = [*tools, *(stand_in.tool() for stand_in in standing)]
            if nothing_ran and holds_a_number(question):
                offered.append(calculate_tool())
            # Prose written with a decision is streamed only before anything ran: after a
            # call, prose goes through the checks of the answer writer. A question naming
            # a family the device can read may be read instead, so its prose is held.
            reads, thread = (), named
            if nothing_ran:
                # A follow-up naming a fact of the family the question before named ("e in
                # percentuale sul totale?") is read as a question naming that family: from
                # nothing, the model wrote "41.870 richieste su 1.000.000".
                thread = named or followed_families(
                    user_texts(progress.context),
                    progress.catalog.capabilities.values(),
                    progress.voice.language,
                )
                reads = family_reads(thread, tools, progress.catalog, local_only=False)
            sink = on_token if nothing_ran and not reads else None
            # What this question's addresses allow is said with the instructions and, until
            # something ran, again after the question: a small model weighs what it read
            # last ("What oven temperature does the recipe at http://… ask for?" was
            # searched with the note only in the system message), and a bare "fetch
            # http://…" was answered without a call with the note only last. After a
            # result, the result is read last (a redirect's note led to the same page
            # proposed again).
            hint = guide.hint(tools)
            context = _with_note(progress.context, hint)
            last = [h for h in (hint if nothing_ran else None, guide.reference_hint(tools)) if h]
            if last:
                context = [*context, {"role": "system", "content": " ".join(last)}]
            progress.decided_with = (offered, hint)
            reply = await self._ask(progress, context, offered, sink)
            progress.rounds_used += 1
            excluded: set[str] = set()
            while nothing_ran and (
                unnamed := (
                    self._unnamed_choices(progress, reply, named, standing)
                    | (set() if named else _sum_not_the_households(progress, reply))
                )
                - excluded
            ):
                # Reads of household families no message of the conversation named, with
                # nothing of their own to fill: with web search off, "whats the latest
                # score in the Arsenal match" read Pi-hole and "¿A qué hora cierra hoy el
                # supermercado?" the device. Or a family's stand-in for such a question:
                # with web search on, "is hollins park parkrun on this saturday??" was
                # told that Home Assistant is not set up. Or, for a question naming no
                # family (one that does is read first), a sum on none of its numbers:
                # "cuanto vale ahora el billete de la línea 7?" was answered "1.000 *
                # 1,05 = 1.050", a fare the household never gave, stated as the device's
                # working; or a factor guessed into grams for "2 cups de farine". The
                # model chooses again among the rest (a search, the web's
                # stand-in, general knowledge …), with the same prompt; each choice put
                # aside stays aside.
                excluded |= unnamed
                rest = [t["function"]["name"] for t in offered]
                rest = [name for name in rest if name not in excluded]
                reply = await self._ask(
                    progress, context, offered, None, None, allowed_choice(rest)
                )
            if progress.sources.steered:  # never a call a source asked for, in this turn
                kept = tuple(c for c in reply.tool_calls if not self._calls_outside(progress, c))
                reply = replace(reply, tool_calls=kept)
            chosen = chosen_stand_ins(reply, standing)
            if progress.stated and all(c.name == ANSWER_THE_REST.name for c in reply.tool_calls):
                # Facts were stated and the question names another family that can be
                # read here and was not: "Is ad blocking on, and how long has the device
                # been running?" read the device, then answered "Ad blocking is not on."
                # in prose of its own. That family is read instead.
                read_instead = await self._read_unread(progress, context, offered, tools, named)
                if read_instead is not None:
                    reply, chosen = read_instead, []
            if ANSWER_THE_REST in chosen:
                return await self._finish(progress, on_token, _rest(progress))
            worked = with_units(reply, question, progress.voice.language) if nothing_ran else None
            reply = _without(reply, {CALCULATE})  # the product works it out
            knowledge = GENERAL_KNOWLEDGE in chosen
            if knowledge:  # the same as no call: the model's prose
                chosen.remove(GENERAL_KNOWLEDGE)
                reply = _without(reply, {GENERAL_KNOWLEDGE.name})
            if nothing_ran and chosen and self._stands_for_another(chosen, reply, named):
                # The question names a family withheld here and the model chose what stands
                # for none it names: "Is the ad blocker on?" (Pi-hole not set up) was told
                # that web search is off, "Is the heating upstairs still on?" (the home not
                # set up) that nothing can be changed. The named family's stand-in says
                # what is missing; a question that asks for the web in words keeps its.
                owners = [s for s in standing if s.family in named]
                if owners and not asks_for_the_web(question, progress.voice.language):
                    chosen, reply = owners, replace(reply, tool_calls=())
            if progress.stated and not reply.tool_calls and not reply.content.strip():
                # The facts the product stated answer the question, unless a question of
                # the message names no family read: "…, ob das Garagentor zu ist? Und wie
                # heißt die Hauptstadt von Neuseeland" read the garage door and the model
                # chose nothing more. That question is answered in prose, as when the
                # model chooses to answer the rest.
                return await self._finish(progress, on_token, _rest(progress, general=True))
            if nothing_ran and not chosen and self._reads_another(progress, reply, named):
                # The question names one household family and the model would read
                # another: "Staat de verwarming boven nog aan?" (the home, not set up)
                # and "Quanti gradi ci sono in camera da letto?" went to the device's
                # temperature. The named family is read instead, or, where it cannot
                # be read, its stand-in says so.
                local = local_read(named, tools, progress.catalog)
                owner = next((s for s in standing if s.family in named), None)
                if local is not None:
                    reply = await self._read_first(progress, context, offered, local, reply)
                elif owner is not None:
                    chosen, reply = [owner], replace(reply, tool_calls=())
            if nothing_ran and not chosen:
                # The question names two families and the model reads one: "Is Pi-hole set
                # up on this box?" (Pi-hole not set up) was answered with the device's
                # health alone. What the other family's stand-in says is said too, as it
                # is when the model chose that stand-in and the product read the first.
                chosen = self._withheld_beside(progress, reply, named, standing)
            if nothing_ran and reader is None and self._reads_first(progress, reply, chosen, named):
                # The question names one part of the household and the model would send
                # its words off the device ("our ad zapper", "unser Werbeschlucker" went
                # to a web search) or say that nothing can be changed ("le mini-pc … il
                # déborde ?"): what the device can read of that part is read first. The
                # search or the change may still be chosen after the facts. A page the
                # question names is read as asked, and a search it asks for in words
                # ("Search the web for the latest Raspberry Pi 5 firmware") is proposed.
                local = local_read(named, tools, progress.catalog)
                owners = self._withheld_read_first(progress, named, standing)
                asked_for_the_web = asks_for_the_web(question, progress.voice.language)
                if local is not None and not asked_for_the_web:
                    read_instead = await self._read_first(progress, context, offered, local, reply)
                    if read_instead is not reply:
                        reply, chosen = read_instead, []
                elif owners and not asked_for_the_web:
                    # The family named is one the device would read first were it set
                    # up, and is withheld: its stand-in says so, as it does with web
                    # search off ("quante pubblicità ha fermato il blocca-annunci questo
                    # mese?", Pi-hole not set up, was searched on the web). Whether web
                    # search is on does not change what is said of the household's own.
                    chosen, reply = owners, replace(reply, tool_calls=())
            if nothing_ran and named and reads and _change_unasked(chosen, question):
                # The change stand-in for a question that names a part of the household
                # which can be read, and asks for no change in words: "brandt het licht
                # op de overloop nog? de kleine kan niet slapen" was told only that
                # nothing can be switched. That part is read, and what the stand-in says
                # is said beside it: the words may still wish for a change they do not
                # spell out ("lights off upstairs please").
                _say_unrun(progress, chosen)
                chosen, reply = [], _without(reply, {CHANGE})
            advice = asks_for_advice(question)
            # Of another thing of the household's, what to do or why is answered in prose.
            prose = elsewhere and (advice or asks_for_an_explanation(question))
            if (
                elsewhere
                and not prose
                and (misfits := [s for s in chosen if _misfit_for_another_thing(s, progress)])
            ):
                # A question about how another thing of the household's is, which nothing
                # here reads, and a stand-in that does not say so: "staat de tv beneden
                # nog aan?" was told that Home Assistant is not set up, "Hängt Papas Handy
                # noch am Ladekabel?" that web search is off, and "is my laptop still
                # charging?", given the change stand-in, was answered "The laptop is
                # still charging." It is told that only this device can be read, as when
                # the model chose to say so.
                chosen = [s for s in chosen if s not in misfits]
                reply = _without(reply, {s.name for s in misfits})
                if all(s.name != OTHER_DEVICES for s in chosen):
                    chosen.extend(s for s in standing if s.name == OTHER_DEVICES)
            if nothing_ran and not named and _change_unasked(chosen, question):
                # The change stand-in for a message that names nothing of the household
                # and asks for no change in words: "Mein Handyspeicher ist schon wieder
                # voll - was kann ich am besten löschen?" asks for advice, and was told
                # that nothing here can be changed. It is answered in prose.
                chosen, reply = [], _without(reply, {CHANGE})
            owned = [s for s in chosen if s.family is not None]
            if nothing_ran and owned and (advice or prose):
                # A family's stand-in for a message that asks what the household should
                # do ("what should the fridge be set on?", "ik wil extra RAM in m'n pc
                # prikken, waar moet ik op letten?") was told that Home Assistant is not
                # set up. Advice, and why another thing is so, are answered in prose.
                chosen = [s for s in chosen if s.family is None]
                reply = _without(reply, {s.name for s in owned})
            if prose:
                # Advice about another thing ("my phone storage is full, what should I
                # delete first?") or why it is so ("pourquoi les téléphones chauffent
                # autant ?") is answered in prose, not told what cannot be read.
                chosen = [s for s in chosen if s.name != OTHER_DEVICES]
                reply = _without(reply, {OTHER_DEVICES})
            if chosen:  # what the question needs is withheld or cannot be done: said, not run
                _say_unrun(progress, chosen)
                reply = _without(reply, {s.name for s in chosen})
                others = not reply.tool_calls and nothing_ran and {s.family for s in chosen} < named
                if others and (read := named_read(named, tools, progress.catalog)):
                    # The question names two families and only what one of them stands
                    # for was said: "is the little box under the TV coping ok? its light
                    # has been blinking" got "Home Assistant is not set up" alone. The
                    # family that can be read here is read too.
                    reply = await self._read_first(progress, context, offered, (read, ()), reply)
                if not reply.tool_calls:
                    return await self._finish(progress, on_token, Ending())
            # A question naming one household family that the model would answer from
            # nothing is read: a local read costs nothing, and an answer without it could
            # only guess ("alles fit bei dir?" → "Ja, alles in Ordnung."; "did anyone
            # remember to lock the back door" → "Yes, I remember locking the back door.").
            # The model fills it as it fills a read that comes first: the facts asked
            # about, whether anything else is asked ("Tu chauffes pas trop ?" asks
            # nothing else), and the thing read, chosen from what exists. General
            # knowledge the model chose about a part any computer has stands
            # (:func:`_knowledge_of_parts`).
            if (
                reads
                and not reply.tool_calls
                and not _a_sum_of_its_own(progress, worked)
                and not (knowledge and thread == named and _knowledge_of_parts(progress, named))
            ):
                reply = await self._read_named(progress, context, offered, thread, reads, reply)
                _say_unrun(progress, self._withheld_beside(progress, reply, named, standing))
            if not reply.tool_calls:
                shown = sink if reply.streamed else None
                note = guide.unreadable_note()
                if worked is not None and not reply.content.strip():
                    note = " ".join(n for n in (note, worked.note(progress.voice)) if n)
                    line = worked.shown(progress.voice)
                    ending = Ending(note=note, worked=(line, float(worked.value)))
                else:
                    ending = Ending(reply.content, note=note, shown=shown, cut_off=reply.cut_off)
                return await self._finish(progress, on_token, ending)
            reply = await self._in_their_language(progress, context, offered, reply)
            reply = await self._checked_choices(progress, reply, tools)
            proposals = adopt(progress, reply)
            halted = await self._run_proposals(progress, proposals, policy, owner)
            if halted is not None:
                return halted
            if progress.answers_all(proposals):
                # Household facts the product stated answer the whole question: one decision.
                return await self._finish(progress, on_token, Ending(done=True))
            await show_stated(progress, on_token)  # the product's sentences appear at once
        choices = progress.candidates()
        if (quote := quote_tool(choices)) is not None:
            # The web answered in the last round: the choice of its passages is the
            # answer, not another round of calls (without it, the budget note ended the
            # turn and what was found was never quoted).
            return await self._quote(progress, on_token, quote, choices)
        return await self._finish(progress, on_token, Ending(note=BUDGET_SPENT_NOTE))

    async def _quote(
        self,
        progress: TurnProgress,
        on_token: TokenSink | None,
        quote: ToolDefinition,
        choices: Sequence[str],
    ) -> TurnResult:
        """The web answered: the decision is a choice among its passages and nothing else
        (the quote tool alone, a call required; anything else the model writes anyway is
        ignored), and the turn ends with the passages quoted, or, with none chosen, the
        list of what was found. Content can therefore never lead to a call in its turn.
        The passages offered are shown to the household first, while the model chooses
        (:meth:`~.progress.ProgressReporter.found`).

        A loop built with ``model_chooses_passages=False`` does not show the model the
        list: the default embedded model chose the first of the candidates listed in
        every measured answer (docs/decisions/answers-rendered-by-the-product.md). A
        backend that can judge (:class:`~.backends.base.YesNoJudge`) is asked of each
        candidate alone whether it answers the question, and the passage it judges
        likeliest is quoted (:meth:`_judged`, point 34 there); any other quotes the
        passage ranked first at once. A passage that shares no word with the question
        (:func:`~.sources.related`) is not quoted, and what was found is listed."""
        if not self._model_chooses_passages:
            question, language = progress.question, progress.voice.language
            choices = await self._judged(progress, choices)
            first = [
                c for c in choices[:MAX_QUOTES] if related(progress.sources, c, question, language)
            ]
            picked = selection(progress.sources, {"passages": first})
            return await self._finish(progress, on_token, Ending(quotes=picked))
        await progress.reporter.found(found_passages(progress.sources, choices))
        offered, hint = progress.decided_with
        note = {"role": "system", "content": quote_note(progress.question, choices)}
        context = [*_with_note(progress.context, hint), note]
        tools = [*(t for t in offered if t["function"]["name"] != QUOTE), quote]
        reply = await self._ask(progress, context, tools, None, "writing", named_choice(QUOTE))
        progress.rounds_used += 1
        chosen = next((c for c in reply.tool_calls if c.name == QUOTE), None)
        picked = selection(progress.sources, chosen.arguments if chosen else None)
        return await self._finish(progress, on_token, Ending(quotes=picked))

    async def _judged(self, progress: TurnProgress, choices: Sequence[str]) -> list[str]:
        """``choices`` ordered by the model's judgement of each (:func:`~.judge.judged`),
        when the backend can judge (:class:`~.backends.base.YesNoJudge`) and there are
        several; the household reads them meanwhile (:meth:`~.progress.ProgressReporter.found`).
        A judge that fails leaves the ranking's order: the answer still quotes."""
        if not isinstance(self._backend, YesNoJudge) or len(choices) < 2:
            return list(choices)
        await progress.reporter.found(found_passages(progress.sources, choices))
        try:
            return await judged(
                self._backend,
                progress.sources,
                progress.question,
                choices,
                progress.ranking().late,
                on_progress=progress.reporter.backend,
            )
        except ModelError as exc:  # e.g. a passage longer than the context
            logger.warning("passages not judged, kept in the ranking's order: %s", exc)
        return list(choices)

    async def _finish(
        self, progress: TurnProgress, on_token: TokenSink | None, ending: Ending
    ) -> TurnResult:
        """The final answer (:class:`~.answer.finish.AnswerWriter`): the household facts
        the product stated, its sentences about what did not run, and the model's prose
        where something is left to say, checked. A message that asks for a change
        (:func:`~.offer.changes.asks_for_a_change`) and was answered with household
        facts is also told that nothing here can change anything: asked "apágame la luz
        del rellano", the model read the light, and the answer said only that it is on."""
        if progress.stated and asks_for_a_change(progress.question):
            cannot = own("cannot_change", progress.voice)
            if cannot not in progress.unrun:  # the change stand-in may have said it
                progress.unrun.append(cannot)

        async def ask(context: list[Message], sink: TokenSink | None) -> ModelReply:
            return await self._ask(progress, context, None, sink)

        text = await self._writer.write(progress, ending, on_token, ask)
        return TurnResult(
            text=text,
            citations=list(progress.citations),
            receipts=list(progress.receipts),
            facts=list(progress.facts),
            language=progress.voice.language,
        )

    def _reads_first(
        self,
        progress: TurnProgress,
        reply: ModelReply,
        chosen: list[StandIn],
        named: frozenset[str],
    ) -> bool:
        """Whether ``reply`` would rather send words off the device or say that nothing
        can be changed than read: it has calls, and each crosses the device boundary
        without reading a family the question ``named`` (:meth:`_reads_named`), or is
        the change stand-in (:data:`~.offer.stand_ins.CHANGE`)."""
        changes = {s.name for s in chosen if s.name == CHANGE}
        calls = reply.tool_calls
        return bool(calls) and all(
            c.name in changes
            or (self._calls_outside(progress, c) and not self._reads_named(progress, c, named))
            for c in calls
        )

    def _reads_named(self, progress: TurnProgress, call: ToolCall, named: frozenset[str]) -> bool:
        """Whether ``call`` reads a household family the question ``named`` (Home
        Assistant's reads leave the device, but a question naming the kitchen asks for
        them: "What's the kitchen temperature, and how hot is the device itself?")."""
        return family_of(self._capability(progress, call.name)) in named

    async def _read_first(
        self,
        progress: TurnProgress,
        context: list[Message],
        offered: list[ToolDefinition],
        local: tuple[ToolDefinition, tuple[str, ...]],
        decision: ModelReply,
    ) -> ModelReply:
        """The local read of the family a question names, proposed in place of a call
        that would leave the device (:func:`~.offer.subjects.local_read`), filled by the
        model with that tool alone admitted: which facts the question asks about ("when
        did it last restart": the uptime), whether it asks anything else, and a span
        ("over the past month") are the model's to choose. The prompt is the decision's
        own, so the prefix cache serves it. A reply without that call (a backend that
        does not force the tool) leaves the product's general check, or, where the read
        needs an argument of its own, the ``decision`` as it was."""
        tool, required = local
        name = tool["function"]["name"]
        reply = await self._ask(progress, context, offered, None, None, named_choice(name))
        calls = tuple(c for c in reply.tool_calls if c.name == name)
        if not calls and required:
            return decision
        if not calls:
            calls = (ToolCall(NAMED_READ_ID, name, general_check(tool)),)
        return replace(reply, tool_calls=calls, content="")

    async def _read_named(
        self,
        progress: TurnProgress,
        context: list[Message],
        offered: list[ToolDefinition],
        named: frozenset[str],
        reads: tuple[ToolDefinition, ...],
        decision: ModelReply,
    ) -> ModelReply:
        """A read of the family a question names (``reads``: its offered tools,
        :func:`~.offer.subjects.family_reads`) in place of the model's ``decision`` to
        answer without one. A single read that needs no argument is
        :meth:`_read_first`'s (the product's general check when the backend does not
        fill it); otherwise the model is asked, with the same prompt, to call one of
        ``reads``, filling the thing read from the choices offered (Home Assistant's
        allowed entities). A reply without such a call leaves the ``decision``."""
        read = named_read(named, reads, progress.catalog)
        if read is not None:
            return await self._read_first(progress, context, offered, (read, ()), decision)
        names = [tool["function"]["name"] for tool in reads]
        reply = await self._ask(progress, context, offered, None, None, allowed_choice(names))
        calls = tuple(c for c in reply.tool_calls if c.name in names)
        return replace(reply, tool_calls=calls, content="") if calls else decision

    async def _read_unread(
        self,
        progress: TurnProgress,
        context: list[Message],
        offered: list[ToolDefinition],
        tools: list[ToolDefinition],
        named: frozenset[str],
    ) -> ModelReply | None:
        """A read of the one household family the question ``named`` that this turn's
        results have not read and an offered tool (``tools``) can read
        (:func:`~.offer.subjects.family_reads`), filled as :meth:`_read_named` fills
        one; ``None`` when there is no such family or the backend would not fill it."""
        read = {family_of(self._capability(progress, name)) for name, _ in progress.results}
        unread = frozenset(named - read)
        reads = family_reads(unread, tools, progress.catalog, local_only=False)
        if not reads:
            return None
        nothing = ModelReply()
        reply = await self._read_named(progress, context, offered, unread, reads, nothing)
        return reply if reply.tool_calls else None

    async def _checked_choices(
        self, progress: TurnProgress, reply: ModelReply, tools: list[ToolDefinition]
    ) -> ModelReply:
        """``reply`` with each call whose argument was chosen from what exists checked
        against the question (:mod:`~.offer.same_thing`): another value whose name the
        question holds more words of takes its place
        (:func:`~.offer.same_thing.better_named`), and a value the question's words do
        not name, alone or as a follow-up with the message before
        (:func:`~.offer.same_thing.named_with`), is put to the model as one yes-or-no
        decision. A value that is not the
        thing asked about is read no further: the family's list of what it may read
        (``tools``: this round's offer) is read in its place, and the product says that it
        could not tell which of those was asked about (the check can be wrong, so it
        says no more), so the household sees what can be read instead of another
        thing's state ("whats the chest freezer in the garage reading?" read
        the kitchen temperature). Where no such list is offered, the call stands.

        The other way round, a call of the list where the question names one of the
        things it lists more than any other (:func:`~.offer.same_thing.best_named`) reads
        that thing, checked as a chosen value is: "we left the garage open. is it shut?"
        listed every entity and said it could not tell which was asked about."""
        question = progress.question
        earlier = " ".join(user_texts(progress.context)[-2:-1])
        calls = []
        for call in reply.tool_calls:
            capability = self._capability(progress, call.name)
            if capability is not None and (
                named := self._named_instead(progress, capability, call, tools)
            ):
                call, capability = named
            listing = listing_read(capability, tools, progress.catalog) if capability else None
            if capability is not None and listing and isinstance(call.arguments, dict):
                alike = capability.phrases.alike if capability.phrases else ()
                for chosen in chosen_values(capability, call.arguments):
                    if (closer := better_named(question, chosen, alike)) is not None:
                        chosen = chosen.instead(closer)
                        call = replace(call, arguments={**call.arguments, chosen.argument: closer})
                    if named_in(question, chosen.value, chosen.label, alike):
                        continue
                    if named_with(earlier, question, chosen.value, chosen.label, alike):
                        continue
                    if await self._confirmed(progress, chosen.label):
                        continue
                    rest = _also_asked(call.arguments)
                    call = ToolCall(call.id, listing["function"]["name"], rest)
                    progress.unrun.append(own("not_among_readable", progress.voice))
                    break
            calls.append(call)
        return replace(reply, tool_calls=tuple(calls))

    def _named_instead(
        self,
        progress: TurnProgress,
        capability: Capability,
        call: ToolCall,
        tools: list[ToolDefinition],
    ) -> tuple[ToolCall, Capability] | None:
        """For a ``call`` of a family's list (``capability`` chooses nothing from what
        exists), the call of the family's read of one thing with the value the question
        names more than any other (:func:`~.offer.same_thing.best_named`), with that
        read's capability; ``None`` when no read is offered in ``tools`` or no one value
        is named most."""
        reading = choosing_read(capability, tools, progress.catalog)
        if reading is None:
            return None
        tool, reader = reading
        alike = reader.phrases.alike if reader.phrases else ()
        for argument, choices in offered_choices(reader).items():
            value = best_named(progress.question, choices, alike)
            if value is not None:
                rest = _also_asked(call.arguments)
                read = ToolCall(call.id, tool["function"]["name"], {argument: value, **rest})
                return read, reader
        return None

    async def _confirmed(self, progress: TurnProgress, label: str) -> bool:
        """Whether the check (:func:`~.offer.same_thing.check_messages`) does not say no
        to the thing called ``label`` for this round's question."""
        context = check_messages(progress.question, label)
        check = await self._ask(
            progress, context, [same_thing_tool()], None, None, named_choice(SAME_THING)
        )
        return not said_no(check)

    def _reads_another(
        self, progress: TurnProgress, reply: ModelReply, named: frozenset[str]
    ) -> bool:
        """Whether ``reply`` has calls and each reads a household family
        (:func:`~.offer.subjects.family_of`) other than those the question ``named``."""
        if not named or not reply.tool_calls:
            return False
        for call in reply.tool_calls:
            family = family_of(self._capability(progress, call.name))
            if family is None or family in named:
                return False
        return True

    def _withheld_beside(
        self,
        progress: TurnProgress,
        reply: ModelReply,
        named: frozenset[str],
        standing: tuple[StandIn, ...],
    ) -> list[StandIn]:
        """The offered stand-ins (``standing``) of the families the question ``named``
        that ``reply`` does not read, when it reads one of them; else none."""
        read = {family_of(self._capability(progress, c.name)) for c in reply.tool_calls}
        if not read & named:
            return []
        return [s for s in standing if s.family in named - read]

    def _withheld_read_first(
        self, progress: TurnProgress, named: frozenset[str], standing: tuple[StandIn, ...]
    ) -> list[StandIn]:
        """The offered stand-ins (``standing``) of the families the question ``named``
        whose reads the product would make before a search were they offered
        (:func:`~.offer.subjects.reads_here`, as :func:`~.offer.subjects.local_read`
        requires). Home Assistant's reads are approved first and never come before a
        search, so its stand-in never does."""
        capabilities = progress.catalog.capabilities.values()
        families = {family_of(c) for c in capabilities if reads_here(c)}
        return [s for s in standing if s.family in named and s.family in families]

    @staticmethod
    def _stands_for_another(
        chosen: list[StandIn], reply: ModelReply, named: frozenset[str]
    ) -> bool:
        """Whether the question ``named`` household families and ``reply`` calls only the
        stand-ins ``chosen``, none of which stands for a named family (the web's, the
        change one, another family's)."""
        names = {s.name for s in chosen}
        return (
            bool(named)
            and all(call.name in names for call in reply.tool_calls)
            and all(s.family not in named for s in chosen)
        )

    async def _in_their_language(
        self,
        progress: TurnProgress,
        context: list[Message],
        offered: list[ToolDefinition],
        reply: ModelReply,
    ) -> ModelReply:
        """``reply``, or its call asked for again in the question's language.

        A small model translates the household's words into English when it writes a
        search ("A che ora apre il museo di Ravelta domenica?" was searched as "Ravelta
        Museum opening hours"): the results are then other pages than the household's
        own words find, and the card shows a query they did not write. When the one call
        of ``reply`` writes a marked argument in another language
        (:func:`~.approval.card_words.in_another_language`), the same call is asked for
        again with a note naming the question's language; the new call is taken only
        when it is in that language.
        """
        if len(reply.tool_calls) != 1:
            return reply
        call = reply.tool_calls[0]
        capability = self._capability(progress, call.name)
        if not in_another_language(progress, capability, call.arguments):
            return reply
        language = language_name(progress.voice.language)
        note = {
            "role": "system",
            "content": f"Write the {call.name} call again in {language}: a few words "
            "taken from the question, not a translation.",
        }
        again = await self._ask(
            progress, [*context, note], offered, None, None, allowed_choice([call.name])
        )
        calls = again.tool_calls
        if len(calls) == 1 and not in_another_language(progress, capability, calls[0].arguments):
            return again
        return reply

    def _unnamed_choices(
        self,
        progress: TurnProgress,
        reply: ModelReply,
        named: frozenset[str],
        standing: tuple[StandIn, ...],
    ) -> set[str]:
        """What ``reply`` chooses that no message of the conversation asked for, to be
        chosen again without it: the general checks of :meth:`_reads_unnamed`, with every
        family's stand-in when the question names another thing of the household's ("extra
        RAM in m'n pc" is about no family here; it chose "Home Assistant is not set up"
        instead); or, when ``reply`` calls only stand-ins of families and the change
        stand-in, no message names a household family and the question asks for no
        change in words (:func:`~.offer.changes.asks_for_a_change`), every family's
        stand-in in ``standing``, the change stand-in and general knowledge: a model that
        chose what stands for a read asked for something to be read, and asked again
        with general knowledge left in, it wrote a local ice rink's Sunday sessions from
        nothing.

        Across every run on record, a family's stand-in chosen for a question that names no
        part of the household was never the right answer: the smart-home one answered
        device questions, and with web search on, casual questions about the world ("hat
        das bürgerbüro in St. Ilgen morgen auf?", "il rifugio Cima Verde è aperto questo
        weekend?") with "Home Assistant is not set up"; the change stand-in, answered in
        prose where no change was asked for, made up the answer ("la ztl di borgo san
        fele è attiva la domenica"). A question about another thing of the household's,
        or one asking for advice, is left to the rules that answer it in prose. An empty
        set: nothing to choose again."""
        aside = {s.name for s in standing if s.family is not None}
        if unnamed := self._reads_unnamed(progress, reply, named):
            return unnamed | aside if _other_things(progress) else unnamed
        if not asks_for_a_change(progress.question):
            aside |= {s.name for s in standing if s.name == CHANGE}
        called = {call.name for call in reply.tool_calls}
        if (
            named
            or not called
            or not called <= aside
            or _other_things(progress)
            or asks_for_advice(progress.question)
            or self._named_before(progress)
        ):
            return set()
        return aside | {GENERAL_KNOWLEDGE.name}

    def _named_before(self, progress: TurnProgress) -> bool:
        """Whether a user message before the question names a household family (a
        follow-up, "and over the last week?", keeps the family named before it)."""
        capabilities = progress.catalog.capabilities.values()
        return any(
            named_families(text, capabilities, progress.voice.language)
            for text in user_texts(progress.context)[:-1]
        )

    def _reads_unnamed(
        self, progress: TurnProgress, reply: ModelReply, named: frozenset[str]
    ) -> set[str]:
        """The tools ``reply`` calls when no user message of the conversation names a
        household family (``named``: the question's; a follow-up, "and over the last
        week?", keeps the family an earlier message named) and each call is a general
        check of one (:func:`~.offer.subjects.family_of`): no argument of its own but a
        time window, which the question's words chose (a read naming a thing of the
        household, such as Home Assistant's entity, was chosen for that thing; "a cuánto
        está *hoy* el euro" read Pi-hole's last 24 hours), and no fact singled out (all
        of them or none: "How hot is it?" reading the device's temperature was chosen
        for it) unless the question names another thing of the family, whose fact it
        is ("ik wil extra RAM in m'n pc prikken, waar moet ik op letten?" read the
        device's memory); else an empty set."""
        if named or not reply.tool_calls:  # a read of another family: _reads_another's
            return set()
        elsewhere = _other_things(progress)
        for call in reply.tool_calls:
            capability = self._capability(progress, call.name)
            chosen = split_product_parameters(capability, call.arguments)
            sheet = capability.facts if capability is not None else None
            every = {topic.name for topic in sheet.topics} if sheet is not None else set()
            if (
                capability is None
                or family_of(capability) is None
                or _own_arguments(capability, chosen.arguments)
                or (
                    chosen.topics
                    and set(chosen.topics) != every
                    and family_of(capability) not in elsewhere
                )
            ):
                return set()
        if self._named_before(progress):
            return set()
        return {call.name for call in reply.tool_calls}

    def _calls_outside(self, progress: TurnProgress, call: ToolCall) -> bool:
        """Whether ``call`` names a capability that crosses the device boundary (not a
        stand-in or the quote tool, which run nothing)."""
        capability = self._capability(progress, call.name)
        return capability is not None and capability.locality is Locality.EXTERNAL

    def _reaches_out(self, progress: TurnProgress, tool: ToolDefinition) -> bool:
        """Whether the capability behind an offered ``tool`` crosses the device boundary."""
        capability = self._capability(progress, tool["function"]["name"])
        return capability is None or capability.locality is Locality.EXTERNAL

    def _capability(self, progress: TurnProgress, name: str) -> Capability | None:
        """The registered capability behind the model-safe tool ``name``, or ``None`` (a
        stand-in, the quote tool, or a name the turn does not offer)."""
        target = progress.catalog.resolve(name)
        return target and self._executor.registry.get(target.capability, target.version)

    def _address_check(self, progress: TurnProgress) -> Callable[[str], bool] | None:
        """Whether the offered capability that reads addresses (a ``format: uri``
        property) would accept one: the executor's validation, no network, nothing
        audited. ``None`` when the turn offers no such capability."""
        for definition in self._executor.registry.tool_definitions():
            properties = definition["parameters"].get("properties", {})
            key = next((k for k, v in properties.items() if v.get("format") == "uri"), None)
            if key is not None and progress.catalog.offers(definition["name"]):
                name, version = definition["name"], definition["version"]
                return lambda url: self._executor.validate(name, version, {key: url}).ok
        return None

    async def _ask(
        self,
        progress: TurnProgress,
        context: list[Message],
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None,
        stage: Stage | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> ModelReply:
        for attempt in range(1, self._attempts + 1):
            try:
                await progress.reporter.stage(
                    stage or ("choosing" if tools else "writing"),
                    after_calls=bool(progress.receipts),
                )
                return await self._backend.complete(
                    list(context),
                    tools=tools,
                    on_token=on_token,
                    on_progress=progress.reporter.backend,
                    tool_choice=tool_choice,
                )
            except ModelRejected:
                raise  # the server refused the request itself: the same request fails again
            except ModelError as exc:
                logger.warning("model reply unusable (attempt %d): %s", attempt, exc)
                problem = exc
        raise ModelUnavailable(f"the model gave no usable reply: {problem}") from problem

    async def _run_proposals(
        self,
        progress: TurnProgress,
        proposals: Sequence[Proposal],
        policy: Mapping[str, bool],
        owner: str,
        *,
        may_ask: bool = True,
    ) -> TurnResult | None:
        """Run proposals in order; the first that needs approval pauses the turn.

        With ``may_ask`` false (an earlier call of the same reply was denied), a
        proposal that needs approval is answered "not asked" instead of pausing.
        """
        proposals = tuple(proposals)
        for index, call in enumerate(proposals):
            key = self._ledger.call_key(call)
            if key is not None and key in progress.refusals:
                self._ledger.refuse(progress, call, expired=progress.refusals[key], again=True)
                continue
            if (not may_ask or key in progress.unasked) and self._needs_approval(call):
                self._ledger.not_asked(progress, call)
                continue
            outcome = await self._invoke(progress, call, policy, None)
            if outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED:
                return self._pause(progress, call, proposals[index + 1 :], owner, outcome)
            self._ledger.record(progress, call, outcome)
        return None

    async def _invoke(
        self,
        progress: TurnProgress,
        call: Proposal,
        policy: Mapping[str, bool],
        token: str | None,
    ) -> Outcome:
        name, version = (
            (call.target.capability, call.target.version) if call.target else (call.tool_name, 0)
        )
        if token is not None or (call.target is not None and not self._needs_approval(call)):
            await progress.reporter.stage("checking", name)  # it runs now (no card first)
        return await self._executor.invoke(
            name,
            version,
            call.arguments,
            policy=policy,
            turn_state=progress.executions,
            confirmation_token=token,
            edited=call.edited,
            flag_check=lambda _name, arguments: card_flags(progress, call, arguments),
        )

    def _needs_approval(self, call: Proposal) -> bool:
        capability = self._ledger.capability(call)
        return capability is not None and capability.confirmation is Confirmation.REQUIRED

    def _pause(
        self,
        progress: TurnProgress,
        call: Proposal,
        waiting: tuple[Proposal, ...],
        owner: str,
        outcome: Outcome,
    ) -> TurnResult:
        # The canonical arguments of the validate stage: what the token binds, the card
        # shows and execute receives on approval (DESIGN §4), not the model's spelling.
        name, version, arguments = outcome.name, outcome.version, dict(outcome.arguments or {})
        confirmations = self._executor.confirmations
        token = confirmations.issue(name, version, arguments, asked=outcome.audit_id)
        self._pending.put(PendingTurn(token, owner, progress, call, waiting, arguments))
        pending = PendingConfirmation(
            token,
            name,
            version,
            arguments,
            round(confirmations.seconds_left(token)),
            flags=[dict(flag) for flag in outcome.flags],  # the turn's own among them
            edited=call.edited,
        )
        capability = self._ledger.capability(call)
        phrases = capability.phrases if capability is not None else None
        key = "asks_approval_edited" if call.edited else "asks_approval"
        text = own(key, progress.voice)
        if phrases is not None and phrases.ask and not call.edited:
            text = progress.voice.with_catalog(phrases.catalog, phrases.domain).say(
                "ask", phrases.ask
            )
        return TurnResult(
            text=text,
            pending_confirmation=pending,
            citations=list(progress.citations),
            receipts=list(progress.receipts),
            language=progress.voice.language,
        )


def _without(reply: ModelReply, names: set[str]) -> ModelReply:
    """``reply`` without its calls of the tools ``names`` (stand-ins and the product's own
    tools, which run nothing)."""
    return replace(reply, tool_calls=tuple(c for c in reply.tool_calls if c.name not in names))


def _rest(progress: TurnProgress, *, general: bool = False) -> Ending:
    """The ending of prose after stated facts: asked for the questions of the message
    those facts leave unanswered (:func:`~.offer.subjects.unread_questions`), or for
    the whole message when there are none. Asked for "the rest" with the whole message,
    the model restated the facts ("Ja, die Haustür ist abgeschlossen.") instead of
    answering the other question, and it did so told which question was left too: the
    prose is asked for that question alone. With ``general``, only those naming no
    household family (a question about one that was not read is no question for prose:
    it would be answered from nothing), and with none such, the facts end the turn.

    Questions that name no household family, after every call of the turn ran, are
    general knowledge (``Ending.general``): their prose is not checked against the
    results ("La penicillina è stata scoperta da Alexander Fleming nel 1928." was left
    out after the processor's load for a year no result holds), as a question with no
    call is not."""
    catalog = progress.catalog
    language = progress.voice.language
    capabilities = list(catalog.capabilities.values())
    read = [catalog.capabilities[n] for n, _ in progress.results if n in catalog.capabilities]
    rest = unread_questions(progress.question, read, capabilities, language)
    unnamed = [part for part in rest if not named_families(part, capabilities, language)]
    if general and not unnamed:
        return Ending(done=True)
    rest = unnamed if general else rest
    asked = " ".join(rest) or None
    return Ending(rest=asked, general=bool(rest) and unnamed == rest and not progress.unrun)


def _a_sum_of_its_own(progress: TurnProgress, worked: Calculation | Conversion | None) -> bool:
    """Whether ``worked``, the calculation the model chose, works with the question's own
    numbers (:meth:`~.offer.arithmetic.Calculation.works_with`) and the question names
    no household thing itself (:func:`~.offer.subjects.names_the_thing`): then it
    answers the question and no family is read for it. "¿cuántos megas son 2 gigas de
    ram?" read the device's free memory and never said 2048; "how much memory is free
    on the device? 2 GB?" names the device and is read."""
    if worked is None or not worked.works_with(progress.question, progress.voice.language):
        return False
    capabilities = progress.catalog.capabilities.values()
    return not names_the_thing(progress.question, capabilities, progress.voice.language)


def _sum_not_the_households(progress: TurnProgress, reply: ModelReply) -> set[str]:
    """:data:`~.offer.arithmetic.CALCULATE` when ``reply`` calls it with an operation
    on none of the question's numbers, or a lone number
    (:meth:`~.offer.arithmetic.Calculation.works_with`, as :func:`_a_sum_of_its_own`
    reads it), or with a factor of its own into a unit of a kind the question gives no
    quantity of (:func:`~.quantities.guessed_measure`: cups of flour in grams): the
    product would state numbers the household never gave as its own working. Else
    empty: a conversion of the question's quantity, a sum on one of its numbers, or no
    calculation."""
    question, language = progress.question, progress.voice.language
    worked = with_units(reply, question, language)
    if isinstance(worked, Calculation) and (
        not worked.works_with(question, language) or guessed_measure(worked, question, language)
    ):
        return {CALCULATE}
    return set()


def _also_asked(arguments: object) -> dict[str, Any]:
    """Of a call's ``arguments``, only whether anything else is asked
    (:data:`~.offer.choices.ALSO_ASKED`): what a call put in another's place keeps."""
    if not isinstance(arguments, dict):
        return {}
    return {k: v for k, v in arguments.items() if k == ALSO_ASKED}


def _knowledge_of_parts(progress: TurnProgress, named: frozenset[str]) -> bool:
    """Whether the families ``named`` by the question, which the model chose to answer
    from general knowledge, each have names of their own (the device's: "the server",
    "das Kästchen") and the question names none of those things itself, only their
    parts (:func:`~.offer.subjects.names_the_thing`). "trou de mémoire : c'est qui déjà
    le peintre des Nymphéas ?", "tengo una memoria fatal para los nombres" and "c'est
    quoi la différence entre la ram et le disque dur ?" name a part any computer has and
    were answered with the device's free memory; "das kästchen ist heute so lahm, ist der
    prozessor am anschlag?" names the device and is read, as is a question of a family
    without names of its own ("did anyone remember to lock the back door")."""
    capabilities = [c for c in progress.catalog.capabilities.values() if family_of(c) in named]
    if not capabilities or any(c.phrases is None or not c.phrases.names for c in capabilities):
        return False
    return not names_the_thing(progress.question, capabilities, progress.voice.language)


def _other_things(progress: TurnProgress, *, owned_only: bool = False) -> frozenset[str]:
    """The household families whose other things the question names (its phone, its own
    computer: :func:`~.offer.subjects.names_other_things`), which no family here reads;
    with ``owned_only``, named as the household's own ("the tv", not "a TV")."""
    capabilities = progress.catalog.capabilities.values()
    question, language = progress.question, progress.voice.language
    return names_other_things(question, capabilities, language, owned_only=owned_only)


def _misfit_for_another_thing(stand_in: StandIn, progress: TurnProgress) -> bool:
    """Whether ``stand_in``, chosen for a question about how another thing of the
    household's is, says something else than that only this device can be read: a
    family's stand-in, :data:`CHANGE` for a question that asks for no change in words,
    the web's stand-in for one that does not ask for the web in words."""
    question = progress.question
    if stand_in.name == OTHER_DEVICES:
        return False
    if stand_in.name == CHANGE:
        return not asks_for_a_change(question)
    if stand_in.family is None:  # the web's: the one withheld family without subjects
        return not asks_for_the_web(question, progress.voice.language)
    return True


def _change_unasked(chosen: Sequence[StandIn], question: str) -> bool:
    """Whether the stand-ins ``chosen`` are the change stand-in alone and ``question``
    asks for no change in words (:func:`~.offer.changes.asks_for_a_change`)."""
    return [s.name for s in chosen] == [CHANGE] and not asks_for_a_change(question)


def _say_unrun(progress: TurnProgress, chosen: Sequence[StandIn]) -> None:
    """Add the sentences of the stand-ins ``chosen`` to what the answer says did not run,
    each once."""
    said = [s.sentence for s in chosen]
    progress.unrun.extend(dict.fromkeys(x for x in said if x not in progress.unrun))


def _own_arguments(capability: Capability, arguments: Mapping[str, Any] | None) -> list[str]:
    """The names of ``arguments`` that name a thing of the household: every one but a
    time window (:data:`~.offer.guidance.TIME_WINDOW`)."""
    properties = capability.arguments_schema.get("properties", {})
    return [name for name in arguments or {} if not is_time_window(properties.get(name))]


def _failed(progress: TurnProgress, error: Exception) -> TurnFailed:
    if isinstance(error, TurnFailed):
        return error
    if not isinstance(error, ModelUnavailable | ModelError | OSError | TurnStopped):
        logger.exception("turn failed unexpectedly")
    return TurnFailed(error, progress.citations, progress.receipts, progress.voice.language)


def _checked(messages: list[dict[str, Any]]) -> list[Message]:
    checked = []
    for number, message in enumerate(messages, 1):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant") or not isinstance(content, str):
            raise ValueError(f"message {number} must be a user or assistant message with text")
        checked.append({"role": role, "content": content})
    return checked


def _unreadable(progress: TurnProgress, guide: ArgumentGuide) -> Ending:
    """How a turn ends when nothing can run: with the sentence for the addresses no tool
    may read, else with the model's prose."""
    if not guide.unreadable:
        return Ending()
    said = own("unreadable", progress.voice, addresses=", ".join(guide.unreadable))
    return Ending(said_instead=said)


def _found_urls(progress: TurnProgress) -> list[str]:
    """Addresses this turn's results returned: search results, redirect targets."""
    found = []
    for citation in progress.citations:
        found.append(citation.final_url if citation.redirected else citation.url)
    return [url for url in found if url]
