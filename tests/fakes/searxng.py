"""A replaying fake SearXNG on 127.0.0.1, built from real captured responses.

Every answer is one of the exchanges in ``tests/fixtures/searxng/*.json``
(captured from SearXNG 2026.8.22 under granian): its status, content type,
``Location`` and body are replayed byte for byte, except that by default a JSON
body's ``query`` is replaced by the ``q`` actually received with whitespace runs
collapsed — what SearXNG echoes for a query with no syntax in it. The fake does
not parse SearXNG's query syntax; replay with ``echo_query=False`` to get the
captured echo verbatim.

Usage::

    with FakeSearxng() as fake:                       # /search → search_basic
        fake.answer("/search", "search_partial_failure_http500")
        ... call fake.base_url ...
        fake.requests[-1].raw_query                    # exactly as received
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fixtures import SEARXNG as FIXTURES_DIR


@dataclass(frozen=True)
class ReceivedRequest:
    """One request the fake saw.

    Attributes:
        method, path: as sent (path without the query string).
        raw_query: the query string exactly as received, still percent-encoded.
        params: ``raw_query`` decoded, as a dict of lists (blank values kept).
        headers: header names in lower case.
    """

    method: str
    path: str
    raw_query: str
    params: dict[str, list[str]]
    headers: dict[str, str]

    @property
    def q(self) -> str | None:
        """The decoded ``q`` parameter, or None."""
        values = self.params.get("q")
        return values[0] if values else None


@dataclass(frozen=True)
class Reply:
    """One answer: status, headers (lower-case names), body, and how long to wait first."""

    status: int
    headers: dict[str, str]
    body: Any
    delay_seconds: float = 0.0
    echo_query: bool = True

    @classmethod
    def from_fixture(cls, name: str, fixtures_dir: Path = FIXTURES_DIR) -> Reply:
        """The exchange captured in ``<fixtures_dir>/<name>.json``."""
        exchange = json.loads((fixtures_dir / f"{name}.json").read_text(encoding="utf-8"))
        kept = ("content-type", "location")
        headers = {k: v for k, v in exchange["headers"].items() if k in kept}
        return cls(exchange["status"], headers, exchange["body"])

    def with_changes(self, **changes: Any) -> Reply:
        """A copy with fields replaced (``headers``, ``body``, ``delay_seconds``...)."""
        return replace(self, **changes)

    def render(self, request: ReceivedRequest) -> bytes:
        """The body bytes to send for ``request``."""
        body = self.body
        if isinstance(body, (dict, list)):
            if self.echo_query and isinstance(body, dict) and isinstance(body.get("query"), str):
                body = {**body, "query": " ".join((request.q or "").split())}
            return json.dumps(body, ensure_ascii=False).encode()
        return body if isinstance(body, bytes) else str(body).encode()


Answer = str | Reply | Callable[[ReceivedRequest], Reply]


@dataclass
class FakeSearxng:
    """SearXNG on ``127.0.0.1:<free port>`` answering from fixtures.

    Defaults: ``/search`` → ``search_basic``, ``/healthz`` → ``healthz``, anything else
    → ``not_found``. A ``/search`` without ``q`` (or with an empty one) whose chosen
    reply is a 200 gets ``error_empty_q`` / ``error_missing_q`` instead, as SearXNG
    checks the format before the query. ``requests`` records every request received.
    """

    fixtures_dir: Path = FIXTURES_DIR
    requests: list[ReceivedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._routes: dict[str, Answer] = {"/search": "search_basic", "/healthz": "healthz"}
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def answer(
        self,
        path: str,
        answer: Answer,
        *,
        delay_seconds: float | None = None,
        echo_query: bool | None = None,
    ) -> None:
        """Answer ``path`` with a fixture name, a :class:`Reply`, or a function of the request.

        ``delay_seconds`` and ``echo_query`` override the reply's own (fixture names and
        Replies only).
        """
        if not callable(answer):
            reply = self._reply(answer)
            changes: dict[str, Any] = {}
            if delay_seconds is not None:
                changes["delay_seconds"] = delay_seconds
            if echo_query is not None:
                changes["echo_query"] = echo_query
            answer = reply.with_changes(**changes)
        self._routes[path] = answer

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``; only valid once started."""
        if self._server is None:
            raise RuntimeError("FakeSearxng is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def requests_to(self, path: str) -> list[ReceivedRequest]:
        """The requests received for ``path``."""
        with self._lock:
            return [request for request in self.requests if request.path == path]

    def start(self) -> FakeSearxng:
        """Bind and serve in a daemon thread; returns self."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; delayed replies still waiting are abandoned."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeSearxng:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _reply(self, answer: str | Reply) -> Reply:
        return Reply.from_fixture(answer, self.fixtures_dir) if isinstance(answer, str) else answer

    def _respond(self, request: ReceivedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            answer = self._routes.get(request.path, "not_found")
        if callable(answer):
            return answer(request)
        reply = self._reply(answer)
        if request.path == "/search" and reply.status == 200 and not request.q:
            # SearXNG checks the format first, then answers 400 "No query".
            missing = "error_empty_q" if "q" in request.params else "error_missing_q"
            return self._reply(missing)
        return reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once, as from SearXNG

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                request = ReceivedRequest(
                    method=self.command,
                    path=parts.path,
                    raw_query=parts.query,
                    params=parse_qs(parts.query, keep_blank_values=True),
                    headers={k.lower(): v for k, v in self.headers.items()},
                )
                reply = fake._respond(request)
                if reply.delay_seconds and fake._stopping.wait(reply.delay_seconds):
                    return
                body = reply.render(request)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@dataclass
class CapturedSearchHandler:
    """An httpx handler (for ``httpx.MockTransport``) answering every search with one
    captured SearXNG response, echoing the query received; records each query that left.

    For tests that drive web.search without sockets; :class:`FakeSearxng` is the
    loopback server for tests that need one.
    """

    fixture: str = "search_capability_shape"
    queries: list[str] = field(default_factory=list)
    on_request: Any = None
    """Called with no arguments as each search arrives, before it is answered."""

    def handler(self, request: Any) -> Any:
        import httpx

        if self.on_request is not None:
            self.on_request()
        query = request.url.params.get("q", "")
        self.queries.append(query)
        captured = json.loads((FIXTURES_DIR / f"{self.fixture}.json").read_text())
        return httpx.Response(captured["status"], json={**captured["body"], "query": query})
