"""Pure-ASGI request-size limit: bodies over ``max_bytes`` get 413 ``REQUEST_TOO_LARGE``.

A declared ``Content-Length`` over the limit is refused before anything is read;
a chunked body is counted as it arrives and refused the moment it passes the limit.
"""

from __future__ import annotations

import contextlib

from babel.numbers import format_decimal
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import TOO_LARGE, boundary_voice, error_response

MAX_BODY_BYTES = 256 * 1024


class BodyLimitMiddleware:
    """Bound every request body.

    Args:
        app: the wrapped ASGI app.
        max_bytes: the largest body accepted, in bytes (default 256 KiB).
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        counted = _Counter(self.max_bytes, receive, send)
        with contextlib.suppress(_TooLarge):
            await self.app(scope, counted.receive, counted.send)
        if counted.exceeded and not counted.started:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        voice = boundary_voice(scope)
        limit = format_decimal(self.max_bytes, locale=voice.language)
        sentence = voice.say(*TOO_LARGE, limit=limit)
        await error_response(413, "REQUEST_TOO_LARGE", sentence)(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class _TooLarge(Exception):
    """Raised into the app when the body passes the limit; the middleware answers 413."""


class _Counter:
    """Counts body bytes as the app reads them; holds back the app's reply once over."""

    def __init__(self, max_bytes: int, receive: Receive, send: Send) -> None:
        self.max_bytes, self._receive, self._send = max_bytes, receive, send
        self.received, self.exceeded, self.started = 0, False, False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.max_bytes:
                self.exceeded = True
                raise _TooLarge
        return message

    async def send(self, message: Message) -> None:
        if self.exceeded and not self.started:
            return
        self.started = self.started or message["type"] == "http.response.start"
        await self._send(message)
