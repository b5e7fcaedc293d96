"""Retrieve one page: never follow redirects, refuse non-text types, cap everything (DESIGN §3).

:func:`fetch` is transport-agnostic: production passes a
:class:`~sovereign.net.transport.PinnedTransport`; shaping tests pass an
``httpx.MockTransport``. All network errors are translated here, at one boundary.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from urllib.parse import urljoin

import httpx

from .decode import BodyDecoder, decoder_for
from .errors import FetchError, FetchFailed, translate
from .url import parse_url

__all__ = [
    "ALLOWED_MEDIA_TYPES", "REQUEST_HEADERS", "FetchLimits", "Page", "fetch", "redirect_target"
]

CONNECT_ATTEMPT_SECONDS = 5.0
"""Per-address connect timeout, in seconds, so a silent first address leaves time for the next."""

ALLOWED_MEDIA_TYPES = frozenset({"text/html", "text/plain", "application/json"})

_RFC9110_TCHARS = r"[a-z0-9!#$%&'*+.^_`|~-]+"
_MEDIA_TYPE = re.compile(rf"^{_RFC9110_TCHARS}/{_RFC9110_TCHARS}$")
_ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986 §3.1 scheme
_CHARSET = re.compile(r'^charset\s*=\s*"?([^";\s]+)"?$', re.IGNORECASE)

# Nothing identifying: no cookies, no Referer, no Accept-Language; one fixed User-Agent.
REQUEST_HEADERS = {
    "User-Agent": "Sovereign/1 (household assistant; web.fetch)",
    "Accept": "text/html, text/plain;q=0.9, application/json;q=0.9, */*;q=0.1",
    "Accept-Encoding": "gzip, deflate, br",
}


@dataclass(frozen=True)
class FetchLimits:
    """Bounds of one fetch.

    Attributes:
        max_download_bytes: raw bytes read off the connection (default 2 MiB).
        max_body_bytes: decoded body bytes kept (default 2 MiB); past either cap
            the body is cut and the page marked truncated.
        deadline_seconds: one deadline for connect, headers and body together
            (default 13 s, inside web.fetch's 15 s so extraction still fits).
    """

    max_download_bytes: int = 2 * 1024 * 1024
    max_body_bytes: int = 2 * 1024 * 1024
    deadline_seconds: float = 13.0


@dataclass(frozen=True)
class Page:
    """What came back: the body is decoded from its Content-Encoding, not yet from its charset.

    ``final_url`` is the Location target of a redirect as the server sent it (resolved
    against ``url`` only when relative, see :func:`redirect_target`), ``None`` for a
    redirect without one, else ``url``. A redirect has an empty body.
    """

    url: str
    final_url: str | None
    status: int
    media_type: str
    charset: str | None
    body: bytes
    truncated: bool
    redirected: bool


async def fetch(
    url: str, transport: httpx.AsyncBaseTransport, limits: FetchLimits | None = None
) -> Page:
    """GET ``url`` once through ``transport`` within the limits.

    Raises:
        InvalidURL: the URL is not acceptable. TargetRejected: the destination is
        refused (before any socket opens). FetchFailed: anything else, with a reason:
        resolution, connection, TLS, deadline, an error status, a refused content
        type or encoding.
    """
    limits = limits or FetchLimits()
    target = parse_url(url)
    connect = min(CONNECT_ATTEMPT_SECONDS, limits.deadline_seconds)
    timeouts = {"connect": connect, "read": None, "write": None, "pool": None}
    request = httpx.Request(
        "GET", target.url, headers=REQUEST_HEADERS, extensions={"timeout": timeouts}
    )
    try:
        async with asyncio.timeout(limits.deadline_seconds):
            return await _exchange(request, transport, limits)
    except FetchError:
        raise
    except TimeoutError as exc:
        raise FetchFailed(f"the page did not arrive within {limits.deadline_seconds:g} s") from exc
    except Exception as exc:
        failed = translate(exc)
        if failed is None:
            raise
        raise failed from exc


async def _exchange(
    request: httpx.Request, transport: httpx.AsyncBaseTransport, limits: FetchLimits
) -> Page:
    response = await transport.handle_async_request(request)
    try:
        url = str(request.url)
        media_type, charset = media_type_of(response.headers.get("content-type"))
        if 300 <= response.status_code < 400:
            location = redirect_target(url, response.headers.get("location"))
            return Page(url, location, response.status_code, media_type, charset, b"", False, True)
        if not 200 <= response.status_code < 300:
            raise FetchFailed(
                f"the server answered {response.status_code} {response.reason_phrase}".rstrip()
            )
        if media_type not in ALLOWED_MEDIA_TYPES:
            raise FetchFailed(
                f"the content type {media_type or '(none)'} is refused; "
                "only HTML, plain text and JSON are fetched"
            )
        decoder = decoder_for(response.headers.get("content-encoding"))
        body, truncated = await _read_capped(response, decoder, limits)
        return Page(url, url, response.status_code, media_type, charset, body, truncated, False)
    finally:
        await response.aclose()


def media_type_of(header: str | None) -> tuple[str, str | None]:
    """``("text/html", "utf-8")`` from ``"TEXT/HTML; Charset=UTF-8"``; else ``("", None)``."""
    if not header:
        return "", None
    essence, *parameters = header.split(";")
    essence = essence.strip().lower()
    if not _MEDIA_TYPE.match(essence):
        return "", None
    charset = next(
        (m.group(1).lower() for p in parameters if (m := _CHARSET.match(p.strip()))), None
    )
    return essence, charset


def redirect_target(base: str, location: str | None) -> str | None:
    """The ``Location`` target as the server sent it; only a relative reference is resolved.

    RFC 9110 §10.2.2 / RFC 3986 §4.3: a reference that starts with a scheme is absolute
    and is reported character for character (``file:///etc/passwd`` stays so); any other
    reference (``/next``, ``../x``, ``//host/x``, ``?q``) is resolved against ``base``
    (RFC 3986 §5.2). Returns ``None`` for a missing or blank header.
    """
    if not location or not location.strip():
        return None
    location = location.strip()
    if _ABSOLUTE_URI.match(location):
        return location
    return urljoin(base, location)


async def _read_capped(
    response: httpx.Response, decoder: BodyDecoder, limits: FetchLimits
) -> tuple[bytes, bool]:
    """Read and decode the body until it ends or a cap is reached; ``(body, truncated)``.

    A compressed body whose stream stops before its proper end (a gzip member without
    its trailer, brotli without its last meta-block) is truncated, not complete.
    """
    body = bytearray()
    downloaded = 0
    stream = response.stream
    if not isinstance(stream, httpx.AsyncByteStream):
        raise FetchFailed("the transport returned a synchronous body")
    async for chunk in stream:  # raw bytes, still in their Content-Encoding
        over_download = downloaded + len(chunk) > limits.max_download_bytes
        chunk = chunk[: limits.max_download_bytes - downloaded]
        downloaded += len(chunk)
        room = limits.max_body_bytes - len(body)
        decoded = decoder.decode(chunk, room + 1)
        body += decoded[:room]
        if over_download or len(decoded) > room or decoder.pending():
            return bytes(body), True
    return bytes(body), not decoder.finished()
