"""``web.fetch`` v1: one page's text through the SSRF-safe transport (DESIGN §3, RFC-0017).

read_only / external, so every call needs the household's approval; behind the
``external_enabled`` policy switch. The validate stage turns the URL into its
canonical form, the one shown, approved and requested (INVALID_ARGUMENTS when it
cannot), and refuses every destination that needs no look-up to refuse
(FETCH_TARGET_REJECTED, no card). Names are resolved and their addresses judged at
execute, after approval, by :mod:`sovereign.net` (before any socket opens).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpcore
import httpx

from sovereign.egress import require_visible
from sovereign.executor import Capability, CapabilityError, Effect, ErrorCode, Locality, Registry
from sovereign.net import (
    AddressPolicy,
    FetchFailed,
    FetchLimits,
    InvalidURL,
    Page,
    PinnedTransport,
    Resolver,
    TargetRejected,
    classify_host,
    extract_text,
    fetch,
    parse_url,
)

MAX_RESULT_BYTES = 65536
TIMEOUT_SECONDS = 15.0

ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "minLength": 1,
            "maxLength": 8192,
            "description": "The http:// or https:// address of the page to read.",
        }
    },
    "required": ["url"],
    "additionalProperties": False,
}

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "url",
        "final_url",
        "content_type",
        "text",
        "truncated",
        "redirected",
        "retrieved_at",
    ],
    "properties": {
        "url": {"type": "string"},
        "final_url": {"type": ["string", "null"]},
        "content_type": {"type": "string"},
        "text": {"type": "string"},
        "truncated": {"type": "boolean"},
        "redirected": {"type": "boolean"},
        "retrieved_at": {"type": "string"},
    },
    "additionalProperties": False,
}

TransportFactory = Callable[[], httpx.AsyncBaseTransport]


def canonical_url(
    arguments: dict[str, Any], address_policy: AddressPolicy | None = None
) -> dict[str, Any]:
    """Stage 2: the canonical arguments, ``url`` exactly as it will be requested.

    The visible-character rule over the whole URL as proposed (:mod:`sovereign.egress`),
    then :func:`sovereign.net.parse_url`: the result is its canonical URL (lower-case
    scheme and host, IDNA, no default port, no fragment, one percent-encoding, no dot
    segments), which the card shows, the token binds and the transport requests.

    Destinations that can only be refused are refused here, before any card and
    without any network activity (:func:`sovereign.net.classify_host`): an IP literal
    in a forbidden range (every spelling the parser accepts), a user name in the URL,
    a non-canonical numeric host, and names of this device or the home network. Any
    other name is only resolved after approval.

    Raises:
        ValueError: the URL is malformed or holds an invisible character
            (→ INVALID_ARGUMENTS).
        CapabilityError: FETCH_TARGET_REJECTED, naming the verdict.
    """
    raw = arguments["url"]
    require_visible(raw, "URL")
    try:
        target = parse_url(raw)
        verdict = classify_host(target.host, address_policy or AddressPolicy())
    except InvalidURL as exc:
        raise ValueError(f"url: {exc.reason}") from exc
    except TargetRejected as exc:
        raise _rejected(exc) from exc
    if verdict is not None and not verdict.allowed:
        raise _rejected(TargetRejected(verdict, target.host.name))
    return {**arguments, "url": target.url}


def _rejected(exc: TargetRejected) -> CapabilityError:
    return CapabilityError(
        exc.reason, code=ErrorCode.FETCH_TARGET_REJECTED, reason=str(exc.verdict)
    )


class WebFetch:
    """The execute function of ``web.fetch``.

    Args:
        transport_factory: makes a fresh transport per call (production: a
            :class:`~sovereign.net.PinnedTransport`; shaping tests: httpx.MockTransport).
        limits: byte caps and the network deadline.
        max_result_bytes: the serialized result is cut to fit this many bytes.
    """

    def __init__(
        self,
        transport_factory: TransportFactory,
        *,
        limits: FetchLimits | None = None,
        max_result_bytes: int = MAX_RESULT_BYTES,
    ) -> None:
        self.transport_factory = transport_factory
        self.limits = limits or FetchLimits()
        self.max_result_bytes = max_result_bytes

    async def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Fetch ``arguments["url"]`` and return the result object.

        Raises:
            CapabilityError: FETCH_TARGET_REJECTED or FETCH_FAILED, with the reason.
        """
        url = arguments["url"]
        page = await self._retrieve(url)
        text = ""
        if not page.redirected:
            text = await asyncio.to_thread(extract_text, page.body, page.media_type, page.charset)
        result = {
            "url": url,
            "final_url": page.final_url,
            "content_type": page.media_type,
            "text": "",
            "truncated": page.truncated,
            "redirected": page.redirected,
            "retrieved_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        return fit_text(result, text, self.max_result_bytes)

    async def _retrieve(self, url: str) -> Page:
        try:
            async with self.transport_factory() as transport:
                return await fetch(url, transport, self.limits)
        except TargetRejected as exc:
            raise _rejected(exc) from exc
        except (FetchFailed, InvalidURL) as exc:
            raise CapabilityError(
                f"Could not fetch the page: {exc.reason}.", code=ErrorCode.FETCH_FAILED
            ) from exc


def fit_text(result: dict[str, Any], text: str, max_bytes: int) -> dict[str, Any]:
    """Put the longest prefix of ``text`` (whole characters) into ``result`` that keeps
    its UTF-8 JSON serialization within ``max_bytes``; sets ``truncated`` if cut."""
    result = {**result, "text": text}
    if _size(result) <= max_bytes:
        return result
    cut = {**result, "truncated": True}  # measured as it will be sent
    low, high = 0, min(len(text) - 1, max_bytes)  # the whole text does not fit
    while low < high:  # longest prefix that fits
        middle = (low + high + 1) // 2
        if _size({**cut, "text": text[:middle]}) <= max_bytes:
            low = middle
        else:
            high = middle - 1
    return {**cut, "text": text[:low]}


def _size(result: dict[str, Any]) -> int:
    return len(json.dumps(result, ensure_ascii=False).encode())


def register(
    registry: Registry,
    *,
    resolver: Resolver | None = None,
    address_policy: AddressPolicy | None = None,
    limits: FetchLimits | None = None,
    connector: httpcore.AsyncNetworkBackend | None = None,
) -> None:
    """Add ``web.fetch`` v1 to ``registry``.

    Args:
        resolver: name resolution (default: the system resolver). A test maps a
            name to 127.0.0.1 with :class:`sovereign.net.StaticResolver`.
        address_policy: default: the fixed range table plus this device's
            addresses. A test reaches its loopback server with
            ``AddressPolicy(unsafe_allow={ip_address("127.0.0.1")})``.
        limits: byte caps and network deadline (default :class:`FetchLimits`).
        connector: the socket layer under the guard (tests record attempts with it).
    """

    def transport() -> httpx.AsyncBaseTransport:
        return PinnedTransport(resolver=resolver, policy=address_policy, connector=connector)

    registry.add(
        Capability(
            name="web.fetch",
            version=1,
            description=(
                "Read one web page (http or https) and return its main text. Redirects are "
                "reported, not followed. Use it after web.search to read a result."
            ),
            arguments_schema=ARGUMENTS_SCHEMA,
            result_schema=RESULT_SCHEMA,
            effect=Effect.READ_ONLY,
            locality=Locality.EXTERNAL,
            execute=WebFetch(transport, limits=limits),
            timeout_seconds=TIMEOUT_SECONDS,
            max_result_bytes=MAX_RESULT_BYTES,
            policy_key="external_enabled",
            validate_arguments=functools.partial(canonical_url, address_policy=address_policy),
        )
    )
