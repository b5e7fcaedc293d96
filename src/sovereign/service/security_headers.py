"""Pure-ASGI security headers on every response, refusals included (DESIGN §5).

- ``Content-Security-Policy`` (:data:`CONTENT_SECURITY_POLICY`): scripts, styles,
  images and requests from this origin only, no inline script or style, no plugin,
  no ``<base>``, forms post here only, no page may frame this one and this one
  frames nothing (``frame-src``/``child-src 'none'``: not even itself, so no frame
  of the Console can be made to do what a hidden tab asks; no worker either);
- ``X-Frame-Options: DENY`` for browsers older than ``frame-ancestors``;
- ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
  ``Cross-Origin-Opener-Policy`` and ``Cross-Origin-Resource-Policy: same-origin``;
- ``Cache-Control: no-store`` on every ``/api/`` response (one carries the CSRF
  token), whatever the route set;
- every ``Access-Control-*`` header is dropped: no CORS, ever.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; object-src 'none'; frame-src 'none'; child-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
"""Set on every HTTP response, replacing any value of the same name."""

NO_STORE = (b"cache-control", b"no-store")
_REPLACED = frozenset(name for name, _ in HEADERS)


def secure_headers(headers: list[tuple[bytes, bytes]], path: str) -> list[tuple[bytes, bytes]]:
    """``headers`` (lower-case names) without CORS headers or the names set here, plus ours.

    Args:
        headers: a response's header list, as in ``http.response.start``.
        path: the request path; ``/api/...`` answers also get ``Cache-Control: no-store``.
    """
    api = path.startswith("/api/")
    replaced = _REPLACED | {NO_STORE[0]} if api else _REPLACED
    kept = [
        (name, value)
        for name, value in headers
        if name.lower() not in replaced and not name.lower().startswith(b"access-control-")
    ]
    return [*kept, *HEADERS, *([NO_STORE] if api else [])]


class SecurityHeadersMiddleware:
    """Add the headers above to every HTTP response that passes through.

    Args:
        app: the wrapped ASGI app (every other layer of the service).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": secure_headers(list(message.get("headers", [])), path),
                }
            await send(message)

        await self.app(scope, receive, send_secured)
