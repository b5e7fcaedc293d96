"""A fake OpenAI-compatible server on 127.0.0.1 that replays captured responses."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fixtures import LLM as FIXTURES

HOLD_SECONDS = 5.0
"""How long a held stream waits for the client to show it received the first part."""


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


@dataclass
class Canned:
    """One reply: a JSON body, a raw text body, or server-sent events."""

    status: int = 200
    body: Any = None
    raw: str | None = None
    events: list[Any] | None = None
    delay_seconds: float = 0.0
    hold_after: int | None = None
    """With ``events``: send this many, then wait for ``release`` before the rest."""
    release: threading.Event = field(default_factory=threading.Event)
    hold_seconds: float = HOLD_SECONDS
    released_in_time: bool | None = None
    """Set once sent: True when ``release`` came before the hold timed out."""
    cut_at_byte: int | None = None
    """With ``events``: send only this many bytes of the whole stream, then close."""
    chunked: bool = False
    """With ``events``: send the stream with chunked transfer encoding (HTTP/1.1), so a
    close before the last chunk is a broken body, not the body's end."""


def captured(name: str, key: str | None = None) -> Canned:
    """The reply stored in a fixture file (whole body, ``response``/``body``, or one key)."""
    data = fixture(name)
    if key is not None:
        data = data[key]
    if "events" in data:
        return Canned(data.get("status", 200), events=data["events"])
    if "response" in data:
        body = data["response"]
        if "_non_json_body" in body:
            return Canned(data["status"], raw=body["_non_json_body"])
        return Canned(data.get("status", 200), body)
    if "body" in data:
        return Canned(200, data["body"])
    return Canned(200, data)


def completion(content: str | None = "", tool_calls: list[Any] | None = None) -> Canned:
    """A 200 ``chat.completion`` holding one assistant message."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return Canned(body={"object": "chat.completion", "choices": [{"index": 0, "message": message}]})


def chunks(*pieces: str, hold_after: int | None = None, finish: str | None = "stop") -> Canned:
    """A stream of ``chat.completion.chunk`` events, one content piece each, then the
    terminal event (``finish_reason``; ``None`` leaves it out) and [DONE]."""
    events: list[Any] = [
        {"object": "chat.completion.chunk", "choices": [{"delta": {"role": "assistant"}}]}
    ]
    events += [
        {"object": "chat.completion.chunk", "choices": [{"delta": {"content": p}}]} for p in pieces
    ]
    if finish is not None:
        events.append(
            {"object": "chat.completion.chunk", "choices": [{"delta": {}, "finish_reason": finish}]}
        )
    return Canned(events=[*events, "[DONE]"], hold_after=hold_after)


def sse_bytes(events: list[Any]) -> bytes:
    """The whole body a server writes for ``events`` (``data: <json>`` and a blank line each)."""
    frames = (e if isinstance(e, str) else json.dumps(e) for e in events)
    return b"".join(f"data: {frame}\n\n".encode() for frame in frames)


@dataclass
class ReplayServer:
    replies: deque[Canned] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def queue(self, *replies: Canned) -> None:
        self.replies.extend(replies)


def start(server_state: ReplayServer) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            server_state.requests.append(json.loads(self.rfile.read(length)))
            if not server_state.replies:
                return self._send(599, "application/json", b'{"error": "no reply queued"}')
            canned = server_state.replies.popleft()
            time.sleep(canned.delay_seconds)
            if canned.events is not None:
                return self._events(canned)
            text = canned.raw if canned.raw is not None else json.dumps(canned.body)
            self._send(canned.status, "application/json", text.encode())

        def _events(self, canned: Canned) -> None:
            if canned.cut_at_byte is not None:
                return self._cut(canned)
            self.send_response(canned.status)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for number, event in enumerate(canned.events):
                if number == canned.hold_after:
                    canned.released_in_time = canned.release.wait(canned.hold_seconds)
                data = event if isinstance(event, str) else json.dumps(event)
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()

        def _cut(self, canned: Canned) -> None:
            """The stream's first ``cut_at_byte`` bytes, then the connection closes."""
            body = sse_bytes(canned.events or [])[: canned.cut_at_byte]
            if canned.chunked:
                self.protocol_version = "HTTP/1.1"
            self.send_response(canned.status)
            self.send_header("Content-Type", "text/event-stream")
            if canned.chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                if body:
                    self.wfile.write(f"{len(body) + 1:x}\r\n".encode() + body)  # one short
            else:
                self.end_headers()
                self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd
