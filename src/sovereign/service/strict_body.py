"""Pure-ASGI checks that a request body has one meaning (DESIGN §4: bad input is a 4xx).

- ``Content-Length`` together with ``Transfer-Encoding`` → 400
  ``AMBIGUOUS_BODY_LENGTH``, and the connection is closed: two framings of one body
  are how requests are smuggled past whatever reads the other one.
- A JSON body that repeats a key (at any depth) → 400 ``DUPLICATE_JSON_KEY``
  naming it: JSON parsers disagree on which value wins (``json.loads`` keeps the
  last), so ``{"confirmation": {...}, "confirmation": {...}}`` could mean one thing
  to a check and another to the code that acts.

The framing is checked before anything reads the body (:class:`FramingMiddleware`);
the keys once a request has passed the session check (:class:`DuplicateKeyMiddleware`:
the body is read whole, bounded by :class:`~.body_limit.BodyLimitMiddleware` outside
it, and replayed to the app unchanged; a body that is not JSON at all is left to the
routes to refuse).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import AMBIGUOUS_LENGTH, REPEATED_KEY, boundary_voice, error_response

MAX_KEY_SHOWN = 60
"""Longest repeated key quoted in the error sentence, in characters."""


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Repeated(key)
        result[key] = value
    return result


def repeated_key(body: bytes) -> str | None:
    """The first key a JSON object in ``body`` repeats, or ``None`` (also for a body
    that is not JSON: the route refuses that with its own error)."""
    try:
        json.loads(body, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        return repeated.key
    except (ValueError, RecursionError):
        return None
    return None


class FramingMiddleware:
    """Refuse a request that gives both ``Content-Length`` and ``Transfer-Encoding``
    (400 ``AMBIGUOUS_BODY_LENGTH``, connection closed), before anything reads it.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = {name for name, _ in scope.get("headers", ())}
        if scope["type"] == "http" and {b"transfer-encoding", b"content-length"} <= names:
            message = boundary_voice(scope).say(*AMBIGUOUS_LENGTH)
            refusal = error_response(400, "AMBIGUOUS_BODY_LENGTH", message)
            refusal.headers["Connection"] = "close"
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


class DuplicateKeyMiddleware:
    """Refuse a JSON body that repeats a key (400 ``DUPLICATE_JSON_KEY``). Runs inside
    the session check, so a request refused for want of a session is never read.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body, replay = await _read_body(receive)
        key = repeated_key(body) if body else None
        if key is not None:
            shown = key if len(key) <= MAX_KEY_SHOWN else key[:MAX_KEY_SHOWN] + "…"
            message = boundary_voice(scope).say(*REPEATED_KEY, key=json.dumps(shown))
            await error_response(400, "DUPLICATE_JSON_KEY", message)(scope, replay, send)
            return
        await self.app(scope, replay, send)


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole body, and a ``receive`` that hands it to the app once, then the rest."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", _prepend([message], receive)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    return body, _prepend([{"type": "http.request", "body": body, "more_body": False}], receive)


def _prepend(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay
