"""Receipts and citations collected from a turn's outcomes (DESIGN §4).

Citations are read from the result shapes of RFC-0017: ``web.search`` gives
``{results: [{title, url, snippet}], retrieved_at}`` and ``web.fetch`` gives
``{url, final_url, title, text, redirected, retrieved_at}``. Other capabilities cite
nothing; their executed results are the turn's facts instead (:func:`fact_for`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sovereign.executor import Capability, Outcome, OutcomeKind

from ..answer.facts import panel_lines
from ..results import Citation, Fact, Receipt, ReceiptOutcome
from ..voice.catalogs import Voice
from ..voice.receipts import host_of
from ..voice.sentences import own

PAGE_READ = "page read"
"""The snippet of a web.fetch citation."""
REDIRECT_NOT_FOLLOWED = "redirect, not followed"
"""The snippet of a web.fetch citation answered with a redirect."""
REDIRECT_NOT_ALLOWED = "redirect to a site the household does not allow, not followed"
"""The snippet when the household's site list does not allow the redirect's target."""

_RECEIPT_OUTCOMES: dict[OutcomeKind, ReceiptOutcome] = {
    OutcomeKind.EXECUTED: "executed",
    OutcomeKind.DENIED: "denied",
    OutcomeKind.EXPIRED: "expired",
    OutcomeKind.REFUSED: "refused",
    OutcomeKind.FAILED: "failed",
}


def receipt_for(outcome: Outcome) -> Receipt | None:
    """A receipt for ``outcome``, or ``None`` when it named no real capability
    or only asked for confirmation (the later answer gets the receipt). Its ``host`` is
    the one its canonical ``url`` argument names, if any (where a web.fetch went)."""
    if outcome.capability is None or outcome.kind not in _RECEIPT_OUTCOMES:
        return None
    code = None if outcome.ok or outcome.error_code is None else str(outcome.error_code)
    kind = _RECEIPT_OUTCOMES[outcome.kind]
    host = host_of((outcome.arguments or {}).get("url"))
    locality = str(outcome.capability.locality)
    return Receipt(outcome.name, locality, kind, code, outcome.sent, host)


def denial_receipt(capability: Capability, *, expired: bool) -> Receipt:
    """The receipt of a call the household denied or left to expire."""
    return Receipt(capability.name, str(capability.locality), "expired" if expired else "denied")


NOT_ASKED = "NOT_ASKED"
"""The ``error_code`` of a refused receipt for a call never put to the household: an
earlier call of the same model reply was denied (DESIGN §4, issue: queued proposals)."""


def not_asked_receipt(capability: Capability) -> Receipt:
    """The receipt of a call that needed approval and was not asked after a denial."""
    return Receipt(capability.name, str(capability.locality), "refused", NOT_ASKED)


def citations_for(outcome: Outcome) -> list[Citation]:
    """The sources an executed call brought into the turn (``[]`` for anything else)."""
    reader = _READERS.get(outcome.name)
    if not outcome.ok or reader is None or not isinstance(outcome.result, dict):
        return []
    return reader(outcome.name, outcome.result)


def is_web_source(capability: str) -> bool:
    """Whether ``capability``'s results are web sources (cited, never facts): search
    results and pages, whose text may describe anything."""
    return capability in _READERS


def fact_for(outcome: Outcome, voice: Voice) -> Fact | None:
    """The fact an executed call that is not a web source brought into the turn, or
    ``None``; its ``lines`` are every topic of its fact sheet said in ``voice``'s
    language (the facts panel), by the renderer that says the answer's facts, and its
    ``heading`` the panel's heading in the same language."""
    if not outcome.ok or outcome.name in _READERS or not isinstance(outcome.result, dict):
        return None
    capability = outcome.capability
    sheet = capability.facts if capability is not None else None
    lines = panel_lines(sheet, outcome.result, voice) if sheet is not None else []
    return Fact(outcome.name, outcome.result, lines, own("facts_heading", voice))


def _search_citations(capability: str, result: dict[str, Any]) -> list[Citation]:
    retrieved_at = str(result.get("retrieved_at", ""))
    return [
        Citation(
            capability,
            str(item.get("title", "")),
            str(item.get("url", "")),
            str(item.get("snippet", "")),
            retrieved_at,
        )
        for item in result.get("results", [])
        if isinstance(item, dict) and item.get("url")
    ]


def _fetch_citations(capability: str, result: dict[str, Any]) -> list[Citation]:
    if not result.get("url"):
        return []
    retrieved_at = str(result.get("retrieved_at", ""))
    if result.get("redirected"):
        url, target = str(result["url"]), str(result.get("final_url") or "")
        allowed = result.get("redirect_allowed") is not False
        snippet = REDIRECT_NOT_FOLLOWED if allowed else REDIRECT_NOT_ALLOWED
        return [Citation(capability, url, url, snippet, retrieved_at, True, target, allowed)]
    url = str(result.get("final_url") or result["url"])
    title = str(result.get("title") or url)
    return [Citation(capability, title, url, PAGE_READ, retrieved_at)]


_READERS: dict[str, Callable[[str, dict[str, Any]], list[Citation]]] = {
    "web.search": _search_citations,
    "web.fetch": _fetch_citations,
}
