"""HTTP to the household's own services (Pi-hole, Home Assistant).

One client recipe and one error boundary: no environment proxies, redirects
never followed, bodies read under a byte cap, and every transport error turned
into a :class:`CapabilityError` whose message names the service, never a secret.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from sovereign.executor import CapabilityError, valid_value

USER_AGENT = "sovereign"

# httpx error class → what the household is told; the first match wins, so
# subclasses come before their bases.
_TRANSPORT_ERRORS: tuple[tuple[type[Exception], str], ...] = (
    (httpx.ConnectTimeout, "the connection timed out"),
    (httpx.TimeoutException, "it took too long to answer"),
    (httpx.ConnectError, "the connection was refused or the host is unreachable"),
    (httpx.RemoteProtocolError, "it broke off the response"),
    (httpx.ReadError, "the connection failed while reading"),
    (httpx.WriteError, "the connection failed while sending"),
    (httpx.NetworkError, "the network failed"),
    (httpx.DecodingError, "its response could not be decoded"),
    (httpx.TooManyRedirects, "it redirected too often"),
    (httpx.HTTPError, "the HTTP exchange failed"),
    (OSError, "the network failed"),
)


def describe_transport_error(exc: Exception) -> str:
    """A short phrase for a transport error, e.g. ``"the connection timed out"``.

    Built from the error's class only, so nothing carried in the exception's
    text (URLs, headers) can reach a message.
    """
    for error_class, phrase in _TRANSPORT_ERRORS:
        if isinstance(exc, error_class):
            return phrase
    return "an unexpected error occurred"


@dataclass(frozen=True)
class JsonReply:
    """One HTTP response: ``status`` (int) and ``body`` (parsed JSON, or None if not JSON)."""

    status: int
    body: Any


def make_client(base_url: str, *, timeout_seconds: float) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` for one household service.

    Args:
        base_url: e.g. ``http://127.0.0.1:8080``; request paths are relative to it.
        timeout_seconds: per-phase timeout (connect, read, write, pool), in seconds.

    Environment proxies (``HTTP_PROXY`` and friends) are ignored and redirects
    are not followed.
    """
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=timeout_seconds,
        follow_redirects=False,
        trust_env=False,
        headers={"Accept": "application/json", "User-Agent": USER_AGENT},
    )


async def request_json(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    *,
    service: str,
    max_bytes: int,
    **kwargs: Any,
) -> JsonReply:
    """Send one request and read its JSON reply under a byte cap.

    Args:
        client: from :func:`make_client`.
        method, path: e.g. ``"GET"``, ``"/api/states"``.
        service: the service's name for messages, e.g. ``"Pi-hole"``.
        max_bytes: cap on the response body, in bytes.
        **kwargs: passed to ``httpx.AsyncClient.stream`` (headers, json, params).

    Returns:
        A :class:`JsonReply` (its body read by :func:`read_json`); any status
        except a redirect is returned for the caller to judge.

    Raises:
        CapabilityError: the service is unreachable or failed mid-exchange, answered
            with a redirect (3xx, never followed), or sent more than ``max_bytes``.
    """
    try:
        async with client.stream(method, path, **kwargs) as response:
            if response.is_redirect:
                raise CapabilityError(
                    f"{service} answered with a redirect (HTTP {response.status_code}), which "
                    "is never followed; set its base_url to the address it actually serves."
                )
            raw = await _read_capped(response, max_bytes, service)
    except (httpx.HTTPError, OSError) as exc:
        raise CapabilityError(
            f"Could not reach {service}: {describe_transport_error(exc)}."
        ) from exc
    return JsonReply(response.status_code, read_json(raw))


def read_json(raw: bytes) -> Any:
    """The JSON value of a reply body, its text valid (a ``"\\ud83d"`` escape becomes
    U+FFFD: :func:`sovereign.executor.valid_value`), or ``None`` when the body is not
    JSON, not UTF-8 or nested deeper than the parser goes."""
    try:
        return valid_value(json.loads(raw))
    except (ValueError, RecursionError):
        return None


async def _read_capped(response: httpx.Response, max_bytes: int, service: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise CapabilityError(f"{service} sent a response larger than {max_bytes} bytes.")
        chunks.append(chunk)
    return b"".join(chunks)
