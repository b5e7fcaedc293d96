"""A tiny threaded HTTP server on 127.0.0.1 for fake services (standard library only)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    """One request a fake saw: method, path (no query), query (dict of lists), headers, body."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    """What a fake answers: status, JSON body (or raw bytes) and extra headers."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Reply]


class LoopbackServer:
    """Serves ``handler`` on ``127.0.0.1:<free port>`` in a daemon thread.

    ``requests`` lists every request seen, in order. Use as a context manager.
    """

    def __init__(self, handler: Handler) -> None:
        self.requests: list[Request] = []
        self._handler = handler
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._request_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _request_class(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                parts = urlsplit(self.path)
                request = Request(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                )
                outer.requests.append(request)
                reply = outer._handler(request)
                raw = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
                data = raw if isinstance(raw, bytes) else raw.encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return _Handler
