"""An httpx transport that records every exchange with a model server, streams included.

The openai backend takes a ``transport``; this one passes each request on to a
real connection and keeps what went out and what came back, without holding a
stream back (bytes are copied as they pass, so answers still arrive piece by
piece). ``exchanges()`` gives them in the fixture format of
``tests/fixtures/llm/``: ``{"request", "status", "response"}``, or ``"events"``
for server-sent events (each ``data:`` as JSON, ``"[DONE]"`` as it is).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Exchange:
    """One request and the raw bytes of its answer, filled in as they arrive."""

    request: Any
    status: int
    content_type: str
    body: bytearray = field(default_factory=bytearray)

    def record(self) -> dict[str, Any]:
        """The exchange in the fixture format."""
        text = self.body.decode("utf-8", errors="replace")
        if "text/event-stream" in self.content_type:
            return {"request": self.request, "status": self.status, "events": sse_events(text)}
        try:
            response: Any = json.loads(text)
        except ValueError:
            response = {"_non_json_body": text}
        return {"request": self.request, "status": self.status, "response": response}


class RecordingTransport(httpx.AsyncBaseTransport):
    """Forwards to a plain connection (proxy variables ignored) and records each exchange."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(trust_env=False)
        self.log: list[Exchange] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        response = await self.inner.handle_async_request(request)
        exchange = Exchange(
            json.loads(body) if body else None,
            response.status_code,
            response.headers.get("content-type", ""),
        )
        self.log.append(exchange)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(response.stream, exchange.body),  # type: ignore[arg-type]
            extensions=response.extensions,
        )

    def exchanges(self) -> list[dict[str, Any]]:
        return [exchange.record() for exchange in self.log]

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Tee(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, sink: bytearray) -> None:
        self.inner, self.sink = inner, sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.sink.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


def sse_events(text: str) -> list[Any]:
    """The ``data:`` of each server-sent event in ``text``: JSON decoded, else as it is."""
    events: list[Any] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(
            line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")
        )
        if not data:
            continue
        try:
            events.append(json.loads(data))
        except ValueError:
            events.append(data)
    return events
