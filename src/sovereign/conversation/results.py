"""What a turn returns, as data that serialises straight to the wire (DESIGN §4).

``TurnResult.to_wire()`` is exactly the response object of
``POST /api/v1/conversation/message``::

    {"text": "…",
     "pending_confirmation": null | {"token", "capability", "version", "arguments",
                                     "expires_in_seconds", "flags", "edited", "words"},
     "citations": [{"capability", "title", "url", "snippet", "retrieved_at"}],
     "receipts": [{"capability", "locality", "outcome"[, "error_code", "sent", "name"]}],
     "facts": [{"capability", "result", "lines", "heading"}],
     "receipt": {"headline", "lines", "stayed_local", "label"},
     "approval_notes": {"ran", "failed", "not_run", "lost"}}   // with a card only

``receipt`` is the receipts said by the product in the answer's language
(:mod:`.voice.receipts`), the account of what left the device the Console shows under
the answer; each of ``receipts`` names its capability as the household calls it in that
language (``name``), when the product has a name for it. Each citation also carries
``heading``, the name of the list of sources in the answer's language, and an answer
that asks for approval carries ``approval_notes``, what is said if the answer to that
approval breaks off (:mod:`.voice.around`); the card itself carries ``words``, its words
and the notes of its decision in the answer's language (:mod:`.voice.card`).

A turn that fails after it began raises :class:`TurnFailed`, which carries the
citations and receipts gathered so far: whatever goes wrong after an external
call ran, the household is still told that it ran (DESIGN §4), in the turn's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .voice.around import approval_notes, say_name
from .voice.card import card_words, edit_detail, edit_refusal
from .voice.catalogs import DEFAULT_LANGUAGE, Voice
from .voice.receipts import receipts_wire, say_receipt
from .voice.sentences import OWN_SENTENCES

if TYPE_CHECKING:
    from sovereign.executor import Refusal

ReceiptOutcome = Literal["executed", "denied", "expired", "refused", "failed"]
FACTS_HEADING = OWN_SENTENCES["facts_heading"]
"""The facts panel's heading in English (the catalogs' source text)."""


class InvalidConfirmation(Exception):
    """A confirmation answer named a token that is unknown, already used or not this owner's.

    The service answers ``400 {"error": {"code": "INVALID_CONFIRMATION", ...}}``.
    """


class InvalidEdit(Exception):
    """The household's edited arguments were refused at stages 1-2 (DESIGN §4).

    Nothing was answered: the original card stays answerable until it expires.
    ``code`` is the executor's (``INVALID_ARGUMENTS``, ``FETCH_TARGET_REJECTED``, …)
    and ``message`` its sentence (English, as the executor says it); ``refusal`` its
    language-free :class:`~sovereign.executor.Refusal` (``None``: none given);
    ``language`` is the paused turn's. The service answers ``422 INVALID_EDIT`` with
    :attr:`sentence` and :attr:`detail`.
    """

    def __init__(
        self,
        code: str,
        message: str,
        language: str = DEFAULT_LANGUAGE,
        refusal: Refusal | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.language = code, message, language
        self.refusal = refusal

    @property
    def sentence(self) -> str:
        """The refusal said in the turn's language (:func:`.voice.card.edit_refusal`)."""
        return edit_refusal(self.code, Voice(self.language))

    @property
    def detail(self) -> tuple[str, str]:
        """``(detail, language)``: the executor's detail said in the turn's language from
        its refusal (:func:`.voice.card.edit_detail`), or its English ``message`` and
        ``"en"`` when there is no refusal or the catalog does not say it."""
        if self.refusal is not None:
            voice = Voice(self.language)
            said = edit_detail(self.refusal.code, self.refusal.values, voice)
            if said is not None:
                return said, voice.language
        return self.message, DEFAULT_LANGUAGE


@dataclass(frozen=True)
class PendingConfirmation:
    """A proposed call waiting for the household's approval (RFC-0004).

    ``arguments`` are verbatim what will run if approved; ``expires_in_seconds``
    is the whole seconds left on the token when the response was built.
    ``flags`` are the household-identifier check's findings in ``arguments`` and the
    arguments this turn's results wrote (:mod:`.dictated`, kind ``from_a_result``)
    (``{"argument", "start", "end", "kind", "reason"}``, spans in code points);
    ``edited`` says the arguments are the household's own edit of the proposal.
    """

    token: str
    capability: str
    version: int
    arguments: dict[str, Any]
    expires_in_seconds: int
    flags: list[dict[str, Any]] = field(default_factory=list)
    edited: bool = False

    def to_wire(self) -> dict[str, Any]:
        """``{"token", "capability", "version", "arguments", "expires_in_seconds",
        "flags", "edited"}``."""
        return {
            "token": self.token,
            "capability": self.capability,
            "version": self.version,
            "arguments": self.arguments,
            "expires_in_seconds": self.expires_in_seconds,
            "flags": self.flags,
            "edited": self.edited,
        }


@dataclass(frozen=True)
class Citation:
    """A source the answer may rest on.

    For ``web.search``: one per result (title, url, snippet). For ``web.fetch``:
    the page read, with ``title`` the page's title (the URL when it has none) and
    ``snippet`` ``"page read"``; when
    the server answered with a redirect, nothing was read: ``snippet`` is
    ``"redirect, not followed"``, ``redirected`` is true and ``final_url`` names
    the target, which the household may choose to fetch in a new, separately
    confirmed request. ``retrieved_at`` is the capability's own ISO-8601 UTC timestamp.
    """

    capability: str
    title: str
    url: str
    snippet: str
    retrieved_at: str
    redirected: bool = False
    final_url: str | None = None
    redirect_allowed: bool = True
    """False when the household's site list does not allow the redirect's target."""

    def to_wire(self) -> dict[str, Any]:
        """``{"capability", "title", "url", "snippet", "retrieved_at"}``, plus
        ``"redirected": true`` and ``"final_url"`` for a redirect, and
        ``"redirect_allowed": false`` when the site list does not allow its target."""
        wire: dict[str, Any] = {
            "capability": self.capability,
            "title": self.title,
            "url": self.url,
            "snippet": self.snippet,
            "retrieved_at": self.retrieved_at,
        }
        if self.redirected:
            wire.update(redirected=True, final_url=self.final_url)
            if not self.redirect_allowed:
                wire["redirect_allowed"] = False
        return wire


@dataclass(frozen=True)
class Receipt:
    """What happened to one proposed call that named a real capability.

    ``outcome`` is ``executed``, ``denied`` (the household said no), ``expired``
    (nobody answered in time), ``refused`` (stages 1-3: bad arguments, policy,
    per-turn limit, or ``NOT_ASKED``: never put to the household because it
    denied an earlier call of the same model reply) or ``failed`` (stages 5-6).
    ``error_code`` is the executor's code (or ``NOT_ASKED``) for refused and
    failed calls and is put on the wire only when set. ``sent`` says, for a failed
    call, whether its request reached the service it talks to (``False``: nothing
    left); on the wire only when known. ``host`` is the ``host[:port]`` a call that
    connects to an address (web.fetch's ``url``) was sent to, from its canonical
    arguments; not on the wire: the receipt's lines name it.
    """

    capability: str
    locality: str
    outcome: ReceiptOutcome
    error_code: str | None = None
    sent: bool | None = None
    host: str | None = field(default=None, compare=False)

    def to_wire(self) -> dict[str, Any]:
        """``{"capability", "locality", "outcome"}`` plus ``"error_code"`` and ``"sent"``
        when set."""
        wire: dict[str, Any] = {
            "capability": self.capability,
            "locality": self.locality,
            "outcome": self.outcome,
        }
        if self.error_code is not None:
            wire["error_code"] = self.error_code
        if self.sent is not None:
            wire["sent"] = self.sent
        return wire


@dataclass(frozen=True)
class Fact:
    """The result of one executed household capability (system health, Pi-hole,
    Home Assistant: anything that is not a web source), shown beside the answer as
    it came back, so the household sees the real figures whatever the prose says.

    ``result`` is the capability's result exactly as its result schema shaped it;
    ``lines`` are its facts said in the household's language by the product (empty for a
    capability that declares none), the panel the Console shows under the answer;
    ``heading`` is that panel's heading ("What the device reported") from the same
    catalogs, in the same language as ``lines``.
    """

    capability: str
    result: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    heading: str = FACTS_HEADING

    def to_wire(self) -> dict[str, Any]:
        """``{"capability", "result", "lines", "heading"}``."""
        return {
            "capability": self.capability,
            "result": self.result,
            "lines": self.lines,
            "heading": self.heading,
        }


@dataclass(frozen=True)
class TurnResult:
    """The answer to one message: prose, or a halt for confirmation, plus provenance.

    When ``pending_confirmation`` is set, ``text`` says what waits for approval
    and the turn continues only through ``TurnLoop.resume_turn``. ``language`` is the
    answer's (ISO 639-1): the receipt is said in it.
    """

    text: str
    pending_confirmation: PendingConfirmation | None = None
    citations: list[Citation] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    language: str = DEFAULT_LANGUAGE

    def to_wire(self) -> dict[str, Any]:
        """DESIGN §4's response object (see the module docstring)."""
        pending, voice = self.pending_confirmation, Voice(self.language)
        wire = {
            "text": self.text,
            "pending_confirmation": pending_wire(pending, voice) if pending else None,
            "citations": citations_wire(self.citations, voice),
            "receipts": receipts_wire(self.receipts, voice),
            "facts": [f.to_wire() for f in self.facts],
            "receipt": say_receipt(self.receipts, voice).to_wire(),
            "language": self.language,
        }
        if pending is not None:
            wire["approval_notes"] = approval_notes(pending.capability, voice)
        return wire


def pending_wire(pending: PendingConfirmation, voice: Voice) -> dict[str, Any]:
    """``pending`` as on the wire, with ``words``: the card's words in ``voice``'s
    language (:func:`.voice.card.card_words`)."""
    words = card_words(
        pending.capability, pending.arguments, voice, edited=pending.edited, flags=pending.flags
    )
    return {**pending.to_wire(), "words": words}


def citations_wire(citations: list[Citation], voice: Voice) -> list[dict[str, Any]]:
    """``citations`` as on the wire, each with ``heading`` (the name of the list of
    sources) and ``kind`` (what the source is: a search result, a page read, a redirect
    not followed), both in ``voice``'s language."""
    heading = say_name("sources_heading", voice)
    return [
        {**citation.to_wire(), "heading": heading, "kind": say_name(_kind(citation), voice)}
        for citation in citations
    ]


def _kind(citation: Citation) -> str:
    """The :data:`~.voice.around.NAMES` key of what ``citation`` is."""
    if citation.capability != "web.fetch":
        return "source_snippet"
    if not citation.redirected:
        return "source_page_read"
    return "source_redirect" if citation.redirect_allowed else "source_redirect_not_allowed"


class TurnFailed(Exception):
    """A turn that began and then could not finish, with what it had already done.

    DESIGN §4: after an external call ran, every response of that turn, success or
    error, carries its receipt and citations. So the turn loop never lets a failure
    escape bare once a turn has started: it raises this, ``from`` the cause.

    Attributes:
        error: the cause: :class:`~.backends.base.ModelUnavailable`,
            :class:`~.backends.base.ContextTooLong`, another
            :class:`~.backends.base.ModelError`, or an unexpected exception (a bug).
        citations, receipts: everything the turn gathered before it failed, in
            order (empty when it failed before any call was proposed).
        language: the turn's language (ISO 639-1), in which its receipt is said.
    """

    def __init__(
        self,
        error: Exception,
        citations: list[Citation],
        receipts: list[Receipt],
        language: str = DEFAULT_LANGUAGE,
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.citations = list(citations)
        self.receipts = list(receipts)
        self.language = language

    def provenance(self) -> dict[str, Any]:
        """``{"citations": [...], "receipts": [...]}`` as on the wire (both maybe empty;
        each citation with its ``heading`` and each receipt with its ``name`` in the turn's
        language)."""
        voice = Voice(self.language)
        return {
            "citations": citations_wire(self.citations, voice),
            "receipts": receipts_wire(self.receipts, voice),
        }

    def to_wire(self) -> dict[str, Any]:
        """What the error's body carries beside ``error``: :meth:`provenance`, the
        ``receipt`` said in the turn's language, as on a :class:`TurnResult`, and that
        ``language`` (ISO 639-1)."""
        receipt = say_receipt(self.receipts, Voice(self.language)).to_wire()
        return {**self.provenance(), "receipt": receipt, "language": self.language}
