"""Pure-ASGI Host and Origin pinning, before any route, session or throttle (DESIGN §5).

Defeats DNS rebinding and cross-site requests:

1. exactly one ``Host`` header, naming one of the service's own ``(name, port)``
   pins (:attr:`~.settings.Settings.host_pins`) → otherwise 421 ``HOST_NOT_ALLOWED``;
2. an ``Origin`` header, when present, must be this very origin (scheme, name and
   port of the request) → otherwise 403 ``ORIGIN_NOT_ALLOWED``;
3. a state-changing request (any method but GET and HEAD) must carry that
   ``Origin``, or, without one, ``Sec-Fetch-Site: same-origin`` → otherwise 403;
4. ``/api/`` refuses requests a browser marks ``Sec-Fetch-Site`` cross-site or
   same-site (a page on another port of the same address is same-site).

No CORS header is ever sent, so no other origin can read an answer.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import OTHER_HOST, OTHER_ORIGIN, boundary_voice, error_response
from .hosts import HostPin, read_authority, read_origin

SAFE_METHODS = frozenset({"GET", "HEAD"})
_FOREIGN_SITES = frozenset({b"cross-site", b"same-site"})


def _headers(scope: Scope, name: bytes) -> list[bytes]:
    return [value for key, value in scope.get("headers", ()) if key == name]


class HostOriginMiddleware:
    """Refuse requests for another host, and state changes from another origin.

    Args:
        app: the wrapped ASGI app.
        pins: every ``(name, port)`` the ``Host`` header may name.
        console_url: the Console's address, named in the refusal's sentence.

    Raises:
        ValueError: ``pins`` is empty (nothing could ever be served).
    """

    def __init__(self, app: ASGIApp, *, pins: frozenset[HostPin], console_url: str) -> None:
        if not pins:
            raise ValueError("at least one allowed host is needed")
        self.app, self.pins, self.console_url = app, pins, console_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no WebSocket route exists; refuse the handshake
            await send({"type": "websocket.close", "code": 1008})
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, code, said = refusal
        message = boundary_voice(scope).say(*said, console_url=self.console_url)
        await error_response(status, code, message)(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, tuple[str, str]] | None:
        hosts = _headers(scope, b"host")
        scheme = scope.get("scheme", "http")
        pin = read_authority(hosts[0].decode("latin-1"), scheme) if hosts else None
        if len(hosts) != 1 or pin not in self.pins:
            return 421, "HOST_NOT_ALLOWED", OTHER_HOST
        if not self._same_origin(scope, scheme, pin):
            return 403, "ORIGIN_NOT_ALLOWED", OTHER_ORIGIN
        return None

    def _same_origin(self, scope: Scope, scheme: str, pin: HostPin) -> bool:
        origins = _headers(scope, b"origin")
        sites = _headers(scope, b"sec-fetch-site")
        if len(origins) > 1 or len(sites) > 1:
            return False
        if scope["path"].startswith("/api/") and sites and sites[0] in _FOREIGN_SITES:
            return False
        if origins:
            return read_origin(origins[0].decode("latin-1")) == (scheme, pin)
        return scope["method"] in SAFE_METHODS or sites == [b"same-origin"]
