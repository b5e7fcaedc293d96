"""Pure-ASGI session middleware: finds the signed-in session, guards ``/api/v1/``.

Every ``/api/v1/`` path needs a live session except the three that let a browser
sign in (:data:`PUBLIC_API_PATHS`). Without one: 401 ``NOT_SIGNED_IN``. The
session found (or ``None``) is put in ``scope["state"]["session"]`` for the
routes and the CSRF middleware.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie

from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import NO_SESSION, boundary_voice, error_response
from .sessions import COOKIE_NAME, Session, SessionStore, cookie_name

API_PREFIX = "/api/v1/"
PUBLIC_API_PATHS = frozenset(
    {"/api/v1/auth/state", "/api/v1/auth/words", "/api/v1/auth/setup", "/api/v1/auth/login"}
)


def requires_session(path: str) -> bool:
    """True for every ``/api/v1/`` path except sign-in state, setup and login."""
    return path.startswith(API_PREFIX) and path not in PUBLIC_API_PATHS


def session_of(scope: Scope) -> Session | None:
    """The session the middleware attached to this request, if any."""
    return scope.get("state", {}).get("session")


def cookie_value(scope: Scope, name: str = COOKIE_NAME) -> str | None:
    """The value of cookie ``name`` in the request headers, or ``None``."""
    for key, value in scope.get("headers", ()):
        if key != b"cookie":
            continue
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(value.decode("latin-1"))
        except CookieError:
            continue
        if name in jar:
            return jar[name].value
    return None


class SessionAuthMiddleware:
    """Attach the request's session; refuse guarded paths without one.

    Args:
        app: the wrapped ASGI app.
        sessions: where sessions live.
    """

    def __init__(self, app: ASGIApp, sessions: SessionStore) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = self.sessions.lookup(
            cookie_value(scope, cookie_name(scope.get("scheme", "http")))
        )
        scope.setdefault("state", {})["session"] = session
        if session is None and requires_session(scope["path"]):
            sentence = boundary_voice(scope).say(*NO_SESSION)
            response = error_response(401, "NOT_SIGNED_IN", sentence)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
