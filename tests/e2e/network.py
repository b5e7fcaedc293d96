"""The end-to-end test's whole network: loopback servers and a recorder of every connection.

* :class:`ConnectionLog` hears every ``socket.connect`` and ``socket.getaddrinfo``
  made anywhere in this process (a :func:`sys.addaudithook` hook), so a test can
  show that nothing but the servers it started was contacted, and that no name
  went to the system resolver.
* :class:`PageServer` plays the web: it serves one real news page from
  ``tests/fixtures/extraction/html`` and a redirect, and records every request.
* :class:`WebPort` is web.fetch's connector (the socket layer *under* the address
  guard): a test URL has no port, so the guard admits ``news.example`` → 127.0.0.1
  port 80, and this connector opens the page server's port instead. It refuses
  any address that is not loopback.
"""

from __future__ import annotations

import gzip
import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpcore

from tests.fixtures import EXTRACTION

ARTICLE_ID = "35b158918c676ff2c74445517db76c83db70a805cc50b64e1369b354a027fcbd"
"""The page served as the article: a short news story (Cleveland.com, 2019), so the model
reads it quickly."""


class ConnectionLog:
    """Every outbound connection attempt and name look-up in this process, while active.

    ``connects`` holds ``(host, port)`` pairs in order; ``lookups`` the host names
    passed to ``getaddrinfo``. Audit hooks cannot be removed, so one hook is
    installed for the process and records only while a log is active.
    """

    _active: ConnectionLog | None = None
    _installed = False

    def __init__(self) -> None:
        self.connects: list[tuple[str, int]] = []
        self.lookups: list[str] = []
        self._lock = threading.Lock()

    def __enter__(self) -> ConnectionLog:
        if not ConnectionLog._installed:
            sys.addaudithook(_audit_hook)
            ConnectionLog._installed = True
        ConnectionLog._active = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        ConnectionLog._active = None

    def mark(self) -> int:
        """A position in ``connects``; :meth:`since` lists what came after it."""
        with self._lock:
            return len(self.connects)

    def since(self, mark: int) -> list[tuple[str, int]]:
        with self._lock:
            return list(self.connects[mark:])

    def _record(self, event: str, args: tuple[Any, ...]) -> None:
        with self._lock:
            if event == "socket.connect" and isinstance(args[1], tuple):
                self.connects.append((str(args[1][0]), int(args[1][1])))
            elif event == "socket.connect":
                self.connects.append((str(args[1]), 0))
            elif event == "socket.getaddrinfo":
                self.lookups.append(str(args[0]))


def _audit_hook(event: str, args: tuple[Any, ...]) -> None:
    log = ConnectionLog._active
    if log is not None and event in ("socket.connect", "socket.getaddrinfo"):
        log._record(event, args)


@dataclass(frozen=True)
class PageRequest:
    """One request the page server received: method, path and headers (lower-case names)."""

    method: str
    path: str
    headers: dict[str, str]


@dataclass
class PageServer:
    """``news.example`` on 127.0.0.1:<free port>.

    ``/article`` is a real page (HTML, UTF-8, with a ``Set-Cookie`` a browser would
    keep); ``/latest`` answers 302 to ``/article``. Anything else is 404.
    """

    requests: list[PageRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.article = gzip.decompress((EXTRACTION / "html" / f"{ARTICLE_ID}.html.gz").read_bytes())
        truth = json.loads((EXTRACTION / "ground-truth.json").read_text(encoding="utf-8"))
        self.article_text: str = truth[ARTICLE_ID]["articleBody"]
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,))
        self._thread.daemon = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def __enter__(self) -> PageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        if path == "/article":
            headers = {
                "Content-Type": "text/html; charset=utf-8",
                "Set-Cookie": "visitor=household-tracking-id; Path=/",
            }
            return 200, headers, self.article
        if path == "/latest":
            return 302, {"Location": "/article"}, b""
        return 404, {"Content-Type": "text/plain"}, b"not found"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        pages = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                pages.requests.append(PageRequest(self.command, self.path, headers))
                status, extra, body = pages._answer(self.path)
                self.send_response(status)
                for name, value in {**extra, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_HEAD = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


class WebPort(httpcore.AsyncNetworkBackend):
    """web.fetch's socket layer in the test: 127.0.0.1:80 is the page server's port.

    Records every attempt it is asked for (after the guard admitted the address)
    in ``attempts``; refuses anything but 127.0.0.1 port 80.
    """

    def __init__(self, page_port: int) -> None:
        self.page_port = page_port
        self.attempts: list[tuple[str, int]] = []
        self._real = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        self.attempts.append((host, port))
        if (host, port) != ("127.0.0.1", 80):
            raise httpcore.ConnectError(f"the test network has nothing at {host}:{port}")
        return await self._real.connect_tcp(host, self.page_port, timeout=timeout)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        raise AssertionError("web.fetch must never open a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._real.sleep(seconds)
