"""``web.fetch`` v1: one page's text through the SSRF-safe transport (DESIGN §3, RFC-0017).

read_only / external, so every call needs the household's approval; behind the
``external_enabled`` policy switch. The validate stage turns the URL into its
canonical form, the one shown, approved and requested (INVALID_ARGUMENTS when it
cannot), and refuses every destination that needs no look-up to refuse
(FETCH_TARGET_REJECTED, no card). The household's site list is applied at the
policy stage, before any card and any look-up (SITE_NOT_ALLOWED), and again at execute
on the URL about to be requested; a redirect is reported with whether the list allows
its target (:mod:`.site_rules`). Names are resolved and their addresses judged at
execute, after approval, by :mod:`sovereign.net` (before any socket opens).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from ipaddress import IPv6Network
from pathlib import Path
from typing import Any

import httpcore
import httpx

from sovereign.egress import SiteList
from sovereign.executor import (
    ArgumentRefused,
    Capability,
    CapabilityError,
    Effect,
    ErrorCode,
    Locality,
    Registry,
)
from sovereign.net import (
    AddressPolicy,
    FetchFailed,
    FetchLimits,
    InvalidURL,
    IPInterface,
    Page,
    PageText,
    PinnedTransport,
    Resolver,
    TargetRejected,
    classify_host,
    device_interfaces,
    extract_text,
    fetch,
    fixed_verdict,
    home_networks,
    parse_url,
    read_home_prefixes,
)

from . import web_phrases
from ._refusals import require_visible_argument
from .site_rules import SiteListReader, judge_url, not_allowed, site_list_check

MAX_RESULT_BYTES = 65536
TIMEOUT_SECONDS = 15.0
HOME_NETWORK_FILE = Path("capabilities") / "home-network.json"
"""Under the data directory: ``{"home_ipv6_prefixes": ["2001:db8:1200::/56"]}``, the
household's delegated IPv6 prefixes (docs/decisions/web-fetch-home-ipv6-prefix.md)."""
MAX_START_INDEX = 16 * 1024 * 1024
"""Largest ``start_index``, in characters: past any text a 2 MiB body can give."""

ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "minLength": 1,
            "maxLength": 8192,
            # The model may only copy an address the conversation holds
            # (sovereign.conversation.offer.guidance); the validate stage still checks it.
            "format": "uri",
            "description": "The http:// or https:// address of the page to read.",
        },
        "start_index": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_START_INDEX,
            "description": (
                "Where to start reading, in characters of the page's text (default 0). "
                "To read on, pass the next_start_index of the previous result."
            ),
        },
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
        "title",
        "text",
        "truncated",
        "redirected",
        "retrieved_at",
        "start_index",
        "next_start_index",
        "omitted_characters",
    ],
    "properties": {
        "url": {"type": "string"},
        "final_url": {"type": ["string", "null"]},
        "content_type": {"type": "string"},
        "title": {"type": ["string", "null"]},
        "text": {"type": "string"},
        "truncated": {"type": "boolean"},
        "redirected": {"type": "boolean"},
        "redirect_allowed": {
            "type": "boolean",
            "description": "Only for a redirect: false when the household's site list does "
            "not allow final_url's site, so fetching it would be refused.",
        },
        "retrieved_at": {"type": "string"},
        "start_index": {"type": "integer", "minimum": 0},
        "next_start_index": {"type": ["integer", "null"], "minimum": 0},
        "omitted_characters": {"type": "integer", "minimum": 0},
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
    ``start_index`` becomes an ``int`` and is left out when it is 0 (the default), so
    one request has one spelling.

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
    require_visible_argument(raw, "url", "URL")
    try:
        target = parse_url(raw)
        verdict = classify_host(target.host, address_policy or AddressPolicy())
    except InvalidURL as exc:
        raise ArgumentRefused(f"url: {exc.reason}", "malformed_address", argument="url") from exc
    except TargetRejected as exc:
        raise _rejected(exc) from exc
    if verdict is not None and not verdict.allowed:
        raise _rejected(TargetRejected(verdict, target.host.name))
    canonical = {**arguments, "url": target.url}
    if "start_index" in canonical:  # JSON Schema's integer admits 2.0: one spelling, an int
        canonical["start_index"] = int(canonical["start_index"])
        if canonical["start_index"] == 0:
            del canonical["start_index"]  # the default: the same request as leaving it out
    return canonical


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
        sites: the household's site list, read fresh per call (default: no list).
    """

    def __init__(
        self,
        transport_factory: TransportFactory,
        *,
        limits: FetchLimits | None = None,
        max_result_bytes: int = MAX_RESULT_BYTES,
        sites: SiteListReader = SiteList,
    ) -> None:
        self.transport_factory = transport_factory
        self.limits = limits or FetchLimits()
        self.max_result_bytes = max_result_bytes
        self.sites = sites

    async def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Fetch ``arguments["url"]`` and return the part of its text from ``start_index``.

        The site list is judged again on ``url``, the URL about to be requested; a
        redirect's target is judged too and reported in ``redirect_allowed``.

        Raises:
            CapabilityError: SITE_NOT_ALLOWED, FETCH_TARGET_REJECTED or FETCH_FAILED,
                with the reason.
        """
        url = arguments["url"]
        site_list = self.sites()
        site, verdict = judge_url(site_list, url)
        if not verdict.allowed:
            raise not_allowed(site, verdict)
        page = await self._retrieve(url)
        text = PageText("")
        if not page.redirected:
            text = await asyncio.to_thread(
                extract_text, page.body, page.media_type, page.charset, page.url
            )
        result = {
            "url": url,
            "final_url": page.final_url,
            "content_type": page.media_type,
            "title": text.title,
            "text": "",
            "truncated": page.truncated,
            "redirected": page.redirected,
            "retrieved_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        if page.redirected:
            target = page.final_url or ""
            result["redirect_allowed"] = bool(target) and judge_url(site_list, target)[1].allowed
        return fit_part(result, text, arguments.get("start_index", 0), self.max_result_bytes)

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


def fit_part(
    result: dict[str, Any], text: PageText, start: int, max_bytes: int
) -> dict[str, Any]:
    """``result`` with the longest part of ``text`` from character ``start`` that fits.

    The part is ``text.body[start:end]`` followed by the addresses of the link
    markers inside it (:meth:`PageText.part`); ``end`` is the largest offset that
    keeps the result's UTF-8 JSON within ``max_bytes``, moved back to a line break
    in the last fifth of the part when there is one, and never inside a marker.

    Sets ``start_index``; ``next_start_index`` (where the next part starts, ``None``
    at the end of the text); ``omitted_characters`` (characters of the text outside
    this part, before and after it); ``truncated`` when the body hit a byte cap or
    text is left after this part.
    """
    total = len(text.body)
    start = min(start, total)

    def shaped(end: int) -> dict[str, Any]:
        more = end < total
        return {
            **result,
            "text": text.part(start, end),
            "truncated": bool(result["truncated"]) or more,
            "start_index": start,
            "next_start_index": end if more else None,
            "omitted_characters": total - (end - start),
        }

    if _size(shaped(total)) <= max_bytes:
        return shaped(total)
    low, high = start, min(total - 1, start + max_bytes)  # the whole rest does not fit
    while low < high:
        middle = (low + high + 1) // 2
        if _size(shaped(middle)) <= max_bytes:
            low = middle
        else:
            high = middle - 1
    end = _nice_end(text, start, low)
    return shaped(end) if _size(shaped(end)) <= max_bytes else shaped(low)


def _nice_end(text: PageText, start: int, end: int) -> int:
    line_break = text.body.rfind("\n", start, end)
    if line_break > start and end - line_break <= (end - start) // 5:
        end = line_break + 1
    return max(start, text.boundary(end))


def _size(result: dict[str, Any]) -> int:
    return len(json.dumps(result, ensure_ascii=False).encode())


HOME_NETWORK = {
    "unusable": "{path} cannot be used ({reason}); every IPv6 page is refused until fixed",
    "none": "no global IPv6 address on this device and no home_ipv6_prefixes set",
    "set": "refused as the home network: {networks} (set in {path})",
    "assumed": "refused as the home network: {networks} (assumed: the /56 around each "
    "address; set home_ipv6_prefixes in {path} if the router was delegated a /48)",
}
"""What ``sovereign doctor`` says of the home network, by key, in English (it says each
from its own catalog, context ``home_network:<key>``)."""


def check_home_network(
    data_dir: Path, interfaces: Callable[[], Iterable[IPInterface]] = device_interfaces
) -> tuple[bool, str, dict[str, str]]:
    """What web.fetch refuses as the household's IPv6 network, for ``sovereign doctor``.

    Args:
        data_dir: the service's data directory. interfaces: the device's addresses.

    Returns:
        ``(ok, key, values)``: the sentence of :data:`HOME_NETWORK` that says it and what
        fills it. Not ok when :data:`HOME_NETWORK_FILE` cannot be used (every IPv6
        destination is then refused); the sentence names the /64s and prefixes refused
        around the device's global IPv6 addresses, and whether the prefixes were set.
    """
    path = data_dir / HOME_NETWORK_FILE
    try:
        configured = read_home_prefixes(path)
    except (OSError, ValueError) as exc:
        return False, "unusable", {"path": str(path), "reason": str(exc)}
    addresses = [i.ip for i in interfaces()
                 if i.version == 6 and fixed_verdict(i.ip) is None]
    own = [IPv6Network(f"{address}/64", strict=False) for address in addresses]
    networks = [*own, *home_networks(addresses, configured)]
    if not networks:
        return True, "none", {}
    refused = ", ".join(str(network) for network in dict.fromkeys(networks))
    return True, "set" if configured else "assumed", {"networks": refused, "path": str(path)}


def register(
    registry: Registry,
    *,
    resolver: Resolver | None = None,
    address_policy: AddressPolicy | None = None,
    limits: FetchLimits | None = None,
    connector: httpcore.AsyncNetworkBackend | None = None,
    sites: SiteListReader = SiteList,
    data_dir: Path | None = None,
) -> None:
    """Add ``web.fetch`` v1 to ``registry``.

    Args:
        resolver: name resolution (default: the system resolver). A test maps a
            name to 127.0.0.1 with :class:`sovereign.net.StaticResolver`.
        address_policy: default: the fixed range table plus this device's
            addresses and the household's IPv6 prefixes (read from ``data_dir``'s
            :data:`HOME_NETWORK_FILE` on every check). A test reaches its loopback
            server with ``AddressPolicy(unsafe_allow={ip_address("127.0.0.1")})``.
        limits: byte caps and network deadline (default :class:`FetchLimits`).
        connector: the socket layer under the guard (tests record attempts with it).
        sites: returns the household's site list, read fresh on every call (default:
            no list); checked at the policy stage and again at execute.
        data_dir: the service's data directory (default: no home prefixes configured).
    """
    if address_policy is None and data_dir is not None:
        address_policy = AddressPolicy(
            home_prefixes=functools.partial(read_home_prefixes, data_dir / HOME_NETWORK_FILE))

    def transport() -> httpx.AsyncBaseTransport:
        return PinnedTransport(resolver=resolver, policy=address_policy, connector=connector)

    registry.add(
        Capability(
            name="web.fetch",
            version=1,
            phrases=web_phrases.FETCH,
            description=(
                "Read one web page (http or https) and return its main text as Markdown; "
                "links read [n], their addresses listed at the end. Redirects are reported, "
                "not followed. Use it after web.search to read a result. A long page comes in "
                "parts: to read on, call again with the "
                "same url and start_index set to the result's next_start_index."
            ),
            arguments_schema=ARGUMENTS_SCHEMA,
            result_schema=RESULT_SCHEMA,
            effect=Effect.READ_ONLY,
            locality=Locality.EXTERNAL,
            execute=WebFetch(transport, limits=limits, sites=sites),
            timeout_seconds=TIMEOUT_SECONDS,
            max_result_bytes=MAX_RESULT_BYTES,
            policy_key="external_enabled",
            validate_arguments=functools.partial(canonical_url, address_policy=address_policy),
            check_policy=site_list_check(sites),
        )
    )
