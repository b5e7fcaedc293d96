"""``web.search`` v1: the household's own SearXNG, queried over its JSON API (DESIGN §3, RFC-0017).

read_only / external, so every call needs the household's approval of the exact
query; behind the ``external_enabled`` policy switch. The household's search language
and safe search (:class:`sovereign.egress.SearchSettings`) join the canonical
arguments at validation, so the card shows them and the token binds them with the
query. The SearXNG client lives in :mod:`sovereign.capabilities.searxng`; this module
maps its answer onto the capability's result and its failures onto
:class:`CapabilityError`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

from sovereign.egress import (
    DEFAULT_SEARCH_SETTINGS,
    LANGUAGES,
    SAFESEARCH_LEVELS,
    SearchSettings,
)
from sovereign.executor import (
    ArgumentRefused,
    Capability,
    CapabilityError,
    Effect,
    Locality,
    Registry,
)

from . import web_phrases
from ._refusals import visible_argument
from .searxng import DEFAULT_BASE_URL, SearchPage, SearxngClient, SearxngError, prepare_query

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 10.0
"""Deadline for one search, in seconds (RFC-0017: SearXNG runs on this device)."""
MAX_RESULTS = 5
"""Most results handed to the model (RFC-0017: a summary, not an export)."""
MAX_TITLE_CHARS = 300
MAX_SNIPPET_CHARS = 600
MAX_URL_CHARS = 2048
"""Per-field caps in characters; a longer URL is dropped rather than cut."""
TIME_RANGE_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
"""SearXNG's ``time_range`` values (``searx/webadapter.py``: day, week, month, year) and
the span each covers, in days."""

ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "What to search the web for, in plain words.",
            # Words the household never wrote are taken out of the model's query before
            # the card, or flagged on it (sovereign.conversation.approval.added_words,
            # docs/decisions/query-words.md).
            "x-household-words": True,
        },
        "time_range": {
            "type": "string",
            "enum": list(TIME_RANGE_DAYS),
            "description": (
                "Only results from the last day, week, month or year: the period the user "
                "named. Leave it out unless the user names one: 'latest' or 'new' does not."
            ),
            # Offered to the model only when the question names a span, and then only the
            # value that covers it ("the past 3 days" is a week). It hides pages by when
            # they were published, so for a span that may lie ahead, the coming weekend,
            # it also covers as long again before it: "this weekend" is a month, never a
            # day (sovereign.conversation.offer.guidance, time_spans.json;
            # docs/decisions/offered-tools-and-arguments.md).
            "x-time-window": TIME_RANGE_DAYS,
            "x-published-window": True,
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}

CANONICAL_SCHEMA: dict[str, Any] = {
    **ARGUMENTS_SCHEMA,
    "properties": {
        **ARGUMENTS_SCHEMA["properties"],
        "language": {"type": "string", "enum": sorted(LANGUAGES)},
        "safesearch": {"type": "integer", "enum": sorted(SAFESEARCH_LEVELS)},
    },
}
"""The canonical arguments: the model's two plus the household's ``language`` and
``safesearch`` (SearXNG's parameter names), which the model is never offered."""

SearchSettingsReader = Callable[[], SearchSettings]
"""Returns the household's search settings as they are now (read fresh per call)."""

_TEXT = {"type": "string"}

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "The query exactly as it was approved and sent to SearXNG "
            "(its canonical form: see docs/decisions/web-search-query-hygiene.md).",
        },
        "results": {
            "type": "array",
            "maxItems": MAX_RESULTS,
            "items": {
                "type": "object",
                "properties": {"title": _TEXT, "url": _TEXT, "snippet": _TEXT},
                "required": ["title", "url", "snippet"],
                "additionalProperties": False,
            },
        },
        "result_count": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_RESULTS,
            "description": "How many entries `results` holds.",
        },
        "retrieved_at": {"type": "string", "description": "UTC time of the search, ISO 8601."},
        "failed_engine_count": {
            "type": "integer",
            "minimum": 0,
            "description": "How many of SearXNG's search engines reported an error for this "
            "query (its unresponsive_engines). When above 0 the results come from the "
            "engines that did answer and may be incomplete.",
        },
    },
    "required": ["query", "results", "result_count", "retrieved_at", "failed_engine_count"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Search the web through this household's own SearXNG. Use it when asked to search or look "
    "something up online, and for news, weather, prices, opening hours and other facts that "
    "change; general knowledge needs no search. The household sees and approves the exact "
    "query before it leaves the device, so keep private details out of it. The query is "
    "searched as literal words: SearXNG's !bang and :language syntax has no effect. Returns up "
    "to 5 results with title, url and snippet."
)


def check_arguments(
    arguments: dict[str, Any], settings: SearchSettings = DEFAULT_SEARCH_SETTINGS
) -> dict[str, Any]:
    """Stage 2: the canonical arguments, exactly the ``q``, ``language`` and
    ``safesearch`` SearXNG will get.

    The visible-character rule first (no invisible, separator or non-plain whitespace
    character; :mod:`sovereign.egress`), then Unicode NFC, then :func:`prepare_query`
    (spaces merged and trimmed, SearXNG syntax neutralised). Then the household's
    ``settings`` are added as ``language`` and ``safesearch``. The confirmation binds
    the result, the card shows it and execute sends it unchanged
    (docs/decisions/web-search-query-hygiene.md, household-egress-settings.md).

    A proposal may carry ``language`` or ``safesearch`` only with the household's
    value (so the card's arguments sent back are a fixed point); any other value is
    refused, since the model does not choose them.

    Raises:
        ValueError: with a sentence naming the problem (→ INVALID_ARGUMENTS).
    """
    household = settings.to_json()
    for key, value in household.items():
        if key in arguments and arguments[key] != value:
            raise ArgumentRefused(
                f"{key}: set by the household in the Console's settings "
                f"({value!r}), not per search; leave it out.",
                "household_setting",
                argument=key,
            )
    query = prepare_query(visible_argument(arguments["query"], "query", "query"))
    return {**arguments, "query": query, **household}


def shape_result(page: SearchPage, retrieved_at: datetime) -> dict[str, Any]:
    """Map a SearXNG answer onto web.search's result (at most :data:`MAX_RESULTS` entries).

    Entries without an http(s) URL, or with one over :data:`MAX_URL_CHARS`, are skipped;
    ``snippet`` is SearXNG's ``content`` ("" when absent).
    """
    results = [entry for raw in page.results if (entry := _entry(raw)) is not None]
    results = results[:MAX_RESULTS]
    return {
        "query": page.query,
        "results": results,
        "result_count": len(results),
        "retrieved_at": retrieved_at.astimezone(UTC).isoformat(timespec="seconds"),
        "failed_engine_count": len(page.failed_engines),
    }


def _entry(raw: Any) -> dict[str, str] | None:
    if not isinstance(raw, dict):
        return None
    url = raw.get("url")
    if not isinstance(url, str) or len(url) > MAX_URL_CHARS:
        return None
    if not url.lower().startswith(("http://", "https://")):
        return None
    return {
        "title": _text(raw.get("title"), MAX_TITLE_CHARS) or url,
        "url": url,
        "snippet": _text(raw.get("content"), MAX_SNIPPET_CHARS),
    }


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


NOTHING_SENT = (
    "The device's search service is not running, so nothing was searched and nothing left "
    "this device."
)
MAY_HAVE_LEFT = "The query may have left this device."


def search_failure(exc: SearxngError) -> CapabilityError:
    """The household's one plain sentence for a failed search, with the audit label
    ``searxng: <problem>`` and whether the request reached SearXNG. The owner's repair
    (:attr:`SearxngError.fix`) goes to the service log, Activity and ``sovereign
    doctor``, never into the answer."""
    logger.warning("web search failed: %s", exc.sentence())
    sentence = (
        NOTHING_SENT if exc.sent is False else f"Web search failed: {exc.message} {MAY_HAVE_LEFT}"
    )
    return CapabilityError(sentence, reason=f"searxng: {exc.problem}", sent=exc.sent)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def register(
    registry: Registry,
    *,
    base_url: str = DEFAULT_BASE_URL,
    timeout_seconds: float = TIMEOUT_SECONDS,
    search_settings: SearchSettingsReader = SearchSettings,
    transport: httpx.AsyncBaseTransport | None = None,
    clock: Callable[[], datetime] = _utc_now,
) -> None:
    """Add ``web.search`` v1 to ``registry``.

    Args:
        base_url: SearXNG's address (http/https), default ``http://127.0.0.1:8093``.
        timeout_seconds: the one deadline for a search, in seconds (default 10), enforced
            by the executor's execute stage (→ TIMEOUT).
        search_settings: returns the household's language and safe search, read fresh
            at every validation (default: ``auto`` and 0, SearXNG's own defaults).
        transport: an httpx transport, for tests. clock: returns the aware ``retrieved_at``.

    Raises:
        ValueError: ``base_url`` is not an http(s) URL.
        CapabilityDefinitionError: web.search v1 is already registered.
    """
    client = SearxngClient(base_url, transport=transport)

    def canonicalise(arguments: dict[str, Any]) -> dict[str, Any]:
        return check_arguments(arguments, search_settings())

    async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
        try:  # canonical since stage 2: sent exactly as approved and shown
            page = await client.search(
                arguments["query"],
                time_range=arguments.get("time_range"),
                language=arguments["language"],
                safesearch=arguments["safesearch"],
            )
        except SearxngError as exc:
            raise search_failure(exc) from exc
        return shape_result(page, clock())

    registry.add(
        Capability(
            name="web.search",
            version=1,
            phrases=web_phrases.SEARCH,
            description=DESCRIPTION,
            arguments_schema=ARGUMENTS_SCHEMA,
            result_schema=RESULT_SCHEMA,
            effect=Effect.READ_ONLY,
            locality=Locality.EXTERNAL,
            execute=execute,
            timeout_seconds=timeout_seconds,
            policy_key="external_enabled",
            validate_arguments=canonicalise,
            canonical_schema=CANONICAL_SCHEMA,
        )
    )
