"""Pure-ASGI CSRF middleware: one of the session's tab secrets must come back in
``X-CSRF-Token``.

Applies to every request that needs a session (see
:func:`~sovereign.service.session_auth.requires_session`), whatever its method:
GET of /conversation/policy included. Missing or wrong → 403 ``CSRF_FAILED``.
The secret is handed out only by sign-in and setup (:mod:`.sessions`), so the
cookies alone, wherever they were sent, never pass.
Runs inside :class:`~sovereign.service.session_auth.SessionAuthMiddleware`.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import NO_TAB_SECRET, boundary_voice, error_response
from .session_auth import requires_session, session_of

CSRF_HEADER = "X-CSRF-Token"
_HEADER_KEY = CSRF_HEADER.lower().encode()


def header_value(scope: Scope, key: bytes) -> str | None:
    """The first value of request header ``key`` (lower-case bytes), or ``None``."""
    for name, value in scope.get("headers", ()):
        if name == key:
            return value.decode("latin-1")
    return None


def tab_secret(scope: Scope) -> str | None:
    """The tab secret the request presents in ``X-CSRF-Token``, or ``None``."""
    return header_value(scope, _HEADER_KEY)


class CSRFMiddleware:
    """Refuse guarded requests whose ``X-CSRF-Token`` does not match their session.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not requires_session(scope["path"]):
            await self.app(scope, receive, send)
            return
        session = session_of(scope)
        if session is None or not session.tab_matches(tab_secret(scope)):
            sentence = boundary_voice(scope).say(*NO_TAB_SECRET, header=CSRF_HEADER)
            response = error_response(403, "CSRF_FAILED", sentence)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
