"""Request bodies whose text is valid where it enters the service, and responses that
are valid whatever they hold (issue 32).

A browser's ``JSON.stringify`` writes half an emoji as the escape ``"\\ud83d"``, and
some clients send such a half as raw (invalid) UTF-8 bytes. Read as they are, the
first becomes a Python string no JSON response, log or tokenizer can encode, and
the second fails to decode at all. Every JSON body is therefore read by
:class:`ValidTextRequest`: bytes that are not UTF-8 are decoded with U+FFFD for
each bad sequence, and every string of the parsed value (keys too) is made valid
(:func:`sovereign.executor.valid_value`), before any model sees it. Every router
of the service uses :class:`ValidTextRoute` (FastAPI's documented way to swap the
request class: a custom ``APIRoute``).

Text from models and capabilities is made valid where it enters too (the backends,
the executor); :class:`ValidJSONResponse` is the last wall, so that no text a layer
let through can turn an answer, or the receipts of a call that ran, into a 500.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from sovereign.executor import valid_value

__all__ = ["ValidJSONResponse", "ValidTextRequest", "ValidTextRoute", "read_json_body"]


def read_json_body(body: bytes) -> Any:
    """The JSON value of a request body, its text valid.

    Bytes that are not UTF-8 are decoded with U+FFFD per bad sequence (the JSON
    standard, RFC 8259 §8.1, allows no other encoding in a body); a lone surrogate
    written as an escape becomes U+FFFD too.

    Raises:
        json.JSONDecodeError: the body is not JSON (FastAPI answers 400 MALFORMED_JSON).
    """
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        value = json.loads(body.decode("utf-8", "replace"))
    return valid_value(value)


class ValidTextRequest(Request):
    """A request whose :meth:`json` is :func:`read_json_body` of its body."""

    async def json(self) -> Any:
        """The body's JSON value, text valid (parsed once, then kept)."""
        if not hasattr(self, "_json"):
            self._json = read_json_body(await self.body())
        return self._json


class ValidTextRoute(APIRoute):
    """An ``APIRoute`` whose handler reads the request as a :class:`ValidTextRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's handler, given the request re-wrapped (same scope and stream)."""
        handler = super().get_route_handler()

        async def valid_text_handler(request: Request) -> Response:
            return await handler(ValidTextRequest(request.scope, request.receive))

        return valid_text_handler


class ValidJSONResponse(JSONResponse):
    """A JSON response whose every string is valid UTF-8 (the service's default class)."""

    def render(self, content: Any) -> bytes:
        """``content`` as UTF-8 JSON, each lone surrogate in it written as U+FFFD."""
        return super().render(valid_value(content))
