"""The three ways a fetch can end without a page, and the one boundary that translates errors.

* :class:`InvalidURL`: the URL itself is unacceptable (scheme, syntax).
* :class:`TargetRejected`: the destination is forbidden; raised before any socket opens.
* :class:`FetchFailed`: DNS, connection, TLS, protocol, deadline or response refusal.

:func:`translate` is the only place that turns httpcore, httpx, TLS and OS errors
into :class:`FetchFailed`; a destination refusal never becomes a network failure
and a network failure never becomes a refusal (DESIGN §3).
"""

from __future__ import annotations

import socket
import ssl

import httpcore
import httpx

from .verdict import Verdict

__all__ = ["FetchError", "FetchFailed", "InvalidURL", "TargetRejected", "translate"]


class FetchError(Exception):
    """Base of the fetch errors; ``reason`` is one human sentence without secrets."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidURL(FetchError):
    """The URL is not an acceptable http/https URL."""


class TargetRejected(FetchError):
    """The destination is forbidden by :func:`sovereign.net.policy.classify`.

    Attributes:
        verdict: the refusing :class:`Verdict`.
        destination: the host or address refused, as text.
    """

    def __init__(self, verdict: Verdict, destination: str) -> None:
        super().__init__(f"{destination} is not an allowed destination ({verdict})")
        self.verdict = verdict
        self.destination = destination


class FetchFailed(FetchError):
    """The page could not be retrieved; ``reason`` says why."""


# Most specific class first: the first isinstance match names the reason.
_REASONS: tuple[tuple[type[BaseException], str], ...] = (
    (ssl.SSLCertVerificationError, "the server's TLS certificate could not be verified"),
    (ssl.SSLError, "the TLS handshake failed"),
    (socket.gaierror, "the host name could not be resolved"),
    (TimeoutError, "the server did not answer in time"),
    (httpcore.TimeoutException, "the server did not answer in time"),
    (httpx.TimeoutException, "the server did not answer in time"),
    (ConnectionRefusedError, "the server refused the connection"),
    (ConnectionResetError, "the server closed the connection"),
    (httpcore.ConnectError, "could not connect to the server"),
    (httpx.ConnectError, "could not connect to the server"),
    (httpcore.ReadError, "the connection broke while reading"),
    (httpcore.WriteError, "the connection broke while sending"),
    (httpcore.NetworkError, "the connection failed"),
    (httpx.NetworkError, "the connection failed"),
    (httpcore.RemoteProtocolError, "the server sent an invalid HTTP response"),
    (httpx.RemoteProtocolError, "the server sent an invalid HTTP response"),
    (httpcore.ProtocolError, "the HTTP exchange failed"),
    (httpx.ProtocolError, "the HTTP exchange failed"),
    (httpcore.UnsupportedProtocol, "the URL's protocol is not supported"),
    (httpx.UnsupportedProtocol, "the URL's protocol is not supported"),
    (httpx.DecodingError, "the response body could not be decoded"),
    (httpx.TooManyRedirects, "too many redirects"),
    (httpcore.ConnectionNotAvailable, "the connection failed"),
    (httpx.StreamError, "the response stream failed"),
    (httpx.HTTPError, "the HTTP request failed"),
    (httpx.CookieConflict, "the HTTP request failed"),
    (httpx.InvalidURL, "the URL could not be requested"),
    (httpcore.ProxyError, "the HTTP request failed"),
    (OSError, "a network error occurred"),
)


def translate(exc: BaseException) -> FetchFailed | None:
    """The :class:`FetchFailed` for a network-layer exception, or ``None`` if it is not one.

    Looks through ``__cause__``/``__context__`` for a TLS or resolver error first,
    since httpcore wraps them (a bad certificate surfaces as ``ConnectError``).
    """
    chain = _chain(exc)
    for kind in (ssl.SSLError, socket.gaierror, ConnectionRefusedError):
        cause = next((e for e in chain if isinstance(e, kind)), None)
        if cause is not None:
            return FetchFailed(_reason(cause))
    reason = _reason(exc)
    return FetchFailed(reason) if reason else None


def _reason(exc: BaseException) -> str:
    return next((text for kind, text in _REASONS if isinstance(exc, kind)), "")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 16:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
