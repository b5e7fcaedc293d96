"""A client for SearXNG's JSON search API that never fabricates an answer (DESIGN §3).

Shapes come from real captured responses (``fixtures/searxng/``): ``GET /search``
with ``format=json`` answers 200 with ``results`` and ``unresponsive_engines``
(``[[engine, reason], ...]``) even when every engine failed; 403 when ``json`` is
not in ``search.formats``; 429 from the limiter; 400 ``{"error": ...}`` for a bad
parameter; 302 for an external ``!!bang``. Every one of those that is not a real
answer raises :class:`SearxngError` with the reason and, where one exists, the fix.

Query hygiene (:func:`prepare_query`, docs/decisions/web-search-query-hygiene.md):
SearXNG parses *every* whitespace-separated word of ``q`` that starts with ``!``,
``:`` or ``<`` as syntax (searx/query.py ``RawTextQuery``), and built-in answerers
and plugins act on the first word. Such words get a leading ``.`` so the words
reach the engines as written; a rewrite that slips through anyway is caught by
comparing SearXNG's echoed ``query`` with what was sent.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import httpx

from sovereign.executor import ArgumentRefused

from ._household_http import read_json

DEFAULT_BASE_URL = "http://127.0.0.1:8093"
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""Cap on a SearXNG response body, in bytes (a 9-result page is ~8 KiB)."""
BACKSTOP_TIMEOUT_SECONDS = 60.0
"""httpx's per-operation timeout, in seconds, when the caller owns the deadline; it only
stops a client used without any deadline from waiting forever."""

SYNTAX_PREFIXES = ("!", ":", "<")
"""First characters SearXNG's query parser acts on: ``!``/``!!`` bangs and the ``!!``
redirect, ``:`` language, ``<`` timeout (searx/query.py ``PARSER_CLASSES``)."""
FIRST_WORD_TRIGGERS = frozenset(
    {"random", "min", "max", "avg", "sum", "prod", "range"}  # built-in answerers
    | {"time", "timezone", "timezones", "now", "clock"}  # time_zone plugin (outbound)
    | {"tor-check"}  # tor_check plugin (outbound)
)
"""First words that make SearXNG answer itself or call a third party instead of searching."""
START_FIX = (
    "start it (deploy/searxng/start-searxng, or systemctl start sovereign-searxng where its "
    "unit is installed) and run `sovereign doctor`."
)
"""The owner's repair for a SearXNG that cannot be reached (never the household's answer)."""
NEUTRAL_MARK = "."
"""Put before a word SearXNG would act on; not syntax to SearXNG, punctuation to engines."""


class Problem(StrEnum):
    """Why a search produced no usable answer."""

    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    JSON_DISABLED = "json_disabled"
    LIMITER = "limiter"
    BAD_REQUEST = "bad_request"
    REDIRECT = "redirect"
    HTTP_ERROR = "http_error"
    BAD_RESPONSE = "bad_response"
    QUERY_REWRITTEN = "query_rewritten"
    ANSWERED_LOCALLY = "answered_locally"
    ALL_ENGINES_FAILED = "all_engines_failed"


MESSAGES = {
    "timeout": "SearXNG at {url} did not answer within {seconds} s.",
    "timeout_unbounded": "SearXNG at {url} did not answer.",
    "unreachable": "SearXNG at {url} is not reachable ({reason}).",
    "too_large": "SearXNG's answer is over {limit} bytes.",
    "redirect": "SearXNG answered with a redirect (HTTP {status}) instead of results; it was "
    "not followed.",
    "json_disabled": "SearXNG refused the JSON API (HTTP 403).",
    "limiter": "SearXNG's limiter refused the request (HTTP 429).",
    "bad_request": "SearXNG rejected the request (HTTP 400): {reason}.",
    "bad_request_unexplained": "SearXNG rejected the request (HTTP 400): no reason given.",
    "http_error": "SearXNG answered HTTP {status}.",
    "not_json": "SearXNG did not answer with a JSON object (content type {content_type}).",
    "not_json_untyped": "SearXNG did not answer with a JSON object (content type none).",
    "no_results": "SearXNG's answer has no results list.",
    "query_rewritten": "SearXNG read part of the query as its own syntax, so the search "
    "engines did not get the approved words; nothing from that search is used.",
    "answered_locally": "SearXNG answered the query itself with a built-in answerer instead "
    "of asking the search engines.",
    "all_engines_failed": "all search engines failed: SearXNG found nothing and {count} "
    "engine(s) reported errors: {names}.",
}
"""Why a search failed, by key: one English sentence (never the query), its
``{placeholders}`` filled from the error's values. ``sovereign doctor`` says each from
its own catalog (context ``searxng:<key>``)."""
FIXES = {
    Problem.UNREACHABLE: START_FIX,
    Problem.JSON_DISABLED: "add json to search.formats in SearXNG's settings.yml "
    "(search: formats: [html, json]) and restart SearXNG.",
    Problem.LIMITER: "set server.limiter: false in SearXNG's settings.yml (and "
    "SEARXNG_LIMITER=false) and restart SearXNG; it only serves this device.",
    Problem.ALL_ENGINES_FAILED: "check the device's internet connection; engines suspended "
    "after errors recover on their own within minutes.",
}
"""What the device's owner can change, by problem, in English (``sovereign doctor`` says
each from its catalog, context ``searxng_fix:<problem>``)."""


class SearxngError(Exception):
    """A search that failed. ``problem``: a :class:`Problem`; ``key``: which sentence of
    :data:`MESSAGES` says why, filled with ``values``; ``message``: that sentence in
    English; ``fix``: what the device's owner can change (:data:`FIXES`), or ``None``;
    ``sent``: whether the request reached SearXNG (``False`` only when the connection
    itself failed, so nothing was sent; ``None`` when that cannot be told, as for a
    deadline or a connection that broke after it was made)."""

    def __init__(
        self,
        problem: Problem,
        key: str,
        *,
        sent: bool | None = True,
        **values: object,
    ) -> None:
        message = MESSAGES[key].format(**values)
        super().__init__(message)
        self.problem = problem
        self.key = key
        self.values = values
        self.message = message
        self.fix = FIXES.get(problem)
        self.sent = sent

    def sentence(self) -> str:
        """The message followed by the fix, for the household."""
        return f"{self.message} Fix: {self.fix}" if self.fix else self.message


@dataclass(frozen=True)
class SearchPage:
    """One SearXNG answer that counts as a search result.

    Attributes:
        query: the ``q`` that was sent. results: SearXNG's ``results`` entries as-is.
        failed_engines: ``(engine, reason)`` pairs from ``unresponsive_engines``.
    """

    query: str
    results: list[Any]
    failed_engines: list[tuple[str, str]] = field(default_factory=list)

    def answering_engines(self) -> set[str]:
        """Engine names that contributed at least one result."""
        names: set[str] = set()
        for result in self.results:
            engines = result.get("engines") if isinstance(result, dict) else None
            if isinstance(engines, list):
                names.update(name for name in engines if isinstance(name, str))
        return names


def prepare_query(text: str) -> str:
    """The ``q`` to send for the approved ``text``.

    Whitespace runs become one space (SearXNG does the same before the engines see
    the words); a word starting with ``!``, ``:`` or ``<``, and a first word in
    :data:`FIRST_WORD_TRIGGERS`, get :data:`NEUTRAL_MARK` in front. Every character of
    ``text`` other than whitespace is kept, in order.

    Raises:
        ValueError: ``text`` has no non-whitespace character.
    """
    words = text.split()
    if not words:
        raise ArgumentRefused(
            "query: must contain words, not only whitespace.", "no_words", argument="query"
        )
    safe = [NEUTRAL_MARK + word if word.startswith(SYNTAX_PREFIXES) else word for word in words]
    if words[0].lower() in FIRST_WORD_TRIGGERS:
        safe[0] = NEUTRAL_MARK + safe[0]
    return " ".join(safe)


class SearxngClient:
    """Talks to one SearXNG instance; no redirects followed, no environment proxies.

    Args:
        base_url: e.g. ``http://127.0.0.1:8093`` (http/https only).
        deadline_seconds: one deadline per call, in seconds; ``None`` when the caller
            enforces its own (the executor does).
        transport: an httpx transport, for tests.

    Raises:
        ValueError: ``base_url`` is not an http(s) URL with a host.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        deadline_seconds: float | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"SearXNG base URL must be http(s)://host[:port], not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.deadline_seconds = deadline_seconds
        self._transport = transport

    async def search(
        self,
        query: str,
        *,
        time_range: str | None = None,
        language: str | None = None,
        safesearch: int | None = None,
    ) -> SearchPage:
        """``GET /search`` for an already prepared ``query`` (see :func:`prepare_query`).

        ``language`` and ``safesearch`` are SearXNG's parameters of those names (``None``:
        not sent, the instance's defaults apply); ``safesearch`` is sent as its digit.

        Returns:
            the page, with at least one result or no failed engine.
        Raises:
            SearxngError: for every answer that is not a real search result.
        """
        params = {"q": query, "format": "json", "categories": "general", "locale": "en"}
        if language is not None:
            params["language"] = language
        if safesearch is not None:
            params["safesearch"] = str(safesearch)
        if time_range:
            params["time_range"] = time_range
        status, headers, body = await self._get("/search", params)
        _check_status(status, body)
        return interpret(_json_body(headers, body), sent_query=query)

    async def empty_search_status(self) -> int:
        """HTTP status of ``GET /search?q=&format=json``: 403 JSON not enabled, 429 limiter,
        400 ("No query") JSON enabled. SearXNG checks the format before the query, so
        this asks no engine anything; raises SearxngError when unreachable."""
        status, _, _ = await self._get("/search", {"q": "", "format": "json"})
        return status

    async def healthz(self) -> tuple[int, str]:
        """``GET /healthz`` → ``(status, body text)``; raises SearxngError when unreachable."""
        status, _, body = await self._get("/healthz", {})
        return status, body.decode("utf-8", "replace").strip()

    async def _get(self, path: str, params: dict[str, str]) -> tuple[int, httpx.Headers, bytes]:
        try:
            async with (
                self._deadline(),
                self._client() as client,
                client.stream("GET", path, params=params) as response,
            ):
                body = await _read_capped(response)
                return response.status_code, response.headers, body
        except (TimeoutError, httpx.TimeoutException) as exc:
            sent = False if isinstance(exc, httpx.ConnectTimeout) else None
            if not self.deadline_seconds:
                raise SearxngError(
                    Problem.TIMEOUT, "timeout_unbounded", sent=sent, url=self.base_url
                ) from exc
            raise SearxngError(Problem.TIMEOUT, "timeout", sent=sent, url=self.base_url,
                               seconds=f"{self.deadline_seconds:g}") from exc  # fmt: skip
        except httpx.HTTPError as exc:
            raise SearxngError(
                Problem.UNREACHABLE,
                "unreachable",
                sent=False if isinstance(exc, httpx.ConnectError) else None,
                url=self.base_url,
                reason=_reason(exc),
            ) from exc

    def _deadline(self) -> Any:
        if self.deadline_seconds is None:
            return nullcontext()
        return asyncio.timeout(self.deadline_seconds)

    @asynccontextmanager
    async def _client(self) -> Any:
        async with httpx.AsyncClient(
            base_url=self.base_url,
            transport=self._transport,
            verify=_tls_context(),  # built once: loading the CA bundle costs ~40 ms a call
            trust_env=False,
            follow_redirects=False,
            timeout=self.deadline_seconds or BACKSTOP_TIMEOUT_SECONDS,
            headers={"Accept": "application/json", "User-Agent": "sovereign-web-search"},
        ) as client:
            yield client


async def _read_capped(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise SearxngError(Problem.BAD_RESPONSE, "too_large", limit=MAX_RESPONSE_BYTES)
        chunks.append(chunk)
    return b"".join(chunks)


def _reason(exc: httpx.HTTPError) -> str:
    cause = exc.__cause__ or exc.__context__
    text = str(cause or exc) or type(exc).__name__
    return text if len(text) <= 160 else text[:159] + "…"


def _check_status(status: int, body: bytes) -> None:
    if status == 200:
        return
    if 300 <= status < 400:
        raise SearxngError(Problem.REDIRECT, "redirect", status=status)
    if status == 403:
        raise SearxngError(Problem.JSON_DISABLED, "json_disabled")
    if status == 429:
        raise SearxngError(Problem.LIMITER, "limiter")
    if status == 400:
        reason = _error_text(body)
        if reason is None:
            raise SearxngError(Problem.BAD_REQUEST, "bad_request_unexplained")
        raise SearxngError(Problem.BAD_REQUEST, "bad_request", reason=reason)
    raise SearxngError(Problem.HTTP_ERROR, "http_error", status=status)


def _error_text(body: bytes) -> str | None:
    parsed = read_json(body)
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, str):
        return None
    return error if len(error) <= 200 else error[:199] + "…"


def _json_body(headers: httpx.Headers, body: bytes) -> dict[str, Any]:
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    parsed = read_json(body) if content_type == "application/json" else None
    if not isinstance(parsed, dict) and not content_type:
        raise SearxngError(Problem.BAD_RESPONSE, "not_json_untyped")
    if not isinstance(parsed, dict):
        raise SearxngError(Problem.BAD_RESPONSE, "not_json", content_type=content_type)
    return parsed


def interpret(body: dict[str, Any], *, sent_query: str) -> SearchPage:
    """Decide whether a 200 JSON answer is a search result (fields may come and go).

    Raises:
        SearxngError: no ``results`` list; the echoed ``query`` differs from
            ``sent_query``; a built-in answerer replied instead of the engines; or no
            result while engines failed (all search engines failed).
    """
    results = body.get("results")
    if not isinstance(results, list):
        raise SearxngError(Problem.BAD_RESPONSE, "no_results")
    echoed = body.get("query")
    if isinstance(echoed, str) and echoed != sent_query:
        raise SearxngError(Problem.QUERY_REWRITTEN, "query_rewritten")
    failed = _failed_engines(body.get("unresponsive_engines"))
    if not results and _answered_by_answerer(body.get("answers")):
        raise SearxngError(Problem.ANSWERED_LOCALLY, "answered_locally")
    if not results and failed:
        names = ", ".join(f"{name} ({reason})" for name, reason in failed[:8])
        raise SearxngError(
            Problem.ALL_ENGINES_FAILED, "all_engines_failed", count=len(failed), names=names
        )
    return SearchPage(query=sent_query, results=results, failed_engines=failed)


def _failed_engines(raw: Any) -> list[tuple[str, str]]:
    failed: list[tuple[str, str]] = []
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, list | tuple) and entry:
            reason = str(entry[1]) if len(entry) > 1 else "error"
            failed.append((str(entry[0]), reason))
        elif isinstance(entry, str):
            failed.append((entry, "error"))
    return failed


def _answered_by_answerer(answers: Any) -> bool:
    if not isinstance(answers, list):
        return False
    return any(
        isinstance(answer, dict) and str(answer.get("engine", "")).startswith("answerer")
        for answer in answers
    )


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The default verifying TLS context (system CA bundle), created once per process."""
    return ssl.create_default_context()
