"""uvicorn as the appliance runs it: read deadlines and a connection cap (DESIGN §5).

uvicorn has no deadline for reading a request: ``timeout_keep_alive`` covers only
the idle time between requests and is cancelled by every byte received, so a
client that trickles its headers or body, or connects and sends nothing, holds a
connection for ever. :class:`DeadlineProtocol` (uvicorn's h11 protocol) adds:

- a **header deadline**: a request's headers must have arrived within
  ``header_seconds`` of the connection opening (or of the previous response);
- a **body deadline**: its body must have arrived within ``body_seconds`` of its
  headers, whether or not the app reads it (an early 401 included);
- a **connection cap**: past ``max_connections`` open connections a new one is
  answered 503 at once, without reading its request. The answer is sent, the
  writing side shut (the client reads the 503 and then the end), and whatever the
  client sends is read and dropped until it closes (at most
  :data:`REFUSED_LINGER_SECONDS`): closing a socket with unread bytes in it would
  reset the connection, and a reset throws the 503 away before the client reads it.

A request h11 cannot parse gets a 400 ``MALFORMED_REQUEST`` in the error envelope
(not uvicorn's plain text), and the connection is closed.

On a missed deadline the connection is closed, after a 408 ``REQUEST_TIMEOUT``
when part of a request had arrived and no answer was started. Nothing bounds the
*response*: a streamed answer may take as long as the model needs.
"""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import envelope
from .security_headers import HEADERS, NO_STORE

HEADER_SECONDS = 10.0
BODY_SECONDS = 30.0
MAX_CONNECTIONS = 64
KEEP_ALIVE_SECONDS = 5
MAX_HEADER_BYTES = 16 * 1024
REFUSED_LINGER_SECONDS = 2.0
"""How long a connection refused at the cap is drained before it is closed anyway."""


@dataclass(frozen=True)
class ConnectionLimits:
    """Deadlines in seconds and the cap on open connections (see the module docstring).

    Defaults: 10 s for headers (a phone on weak Wi-Fi sends 16 KiB of headers in far
    less), 30 s for a body (the largest accepted, 256 KiB, at 9 KiB/s), 64
    connections (a household's few browsers open about six each), 5 s keep-alive.
    """

    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    max_connections: int = MAX_CONNECTIONS
    keep_alive_seconds: int = KEEP_ALIVE_SECONDS

    def __post_init__(self) -> None:
        if min(self.header_seconds, self.body_seconds, self.max_connections) <= 0:
            raise ValueError("deadlines and the connection cap must be positive")


def raw_response(status: str, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer that closes the connection, written below the app."""
    body = json.dumps(envelope(code, message)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *HEADERS,
        NO_STORE,
    ]
    lines = [f"HTTP/1.1 {status}".encode(), *(name + b": " + value for name, value in headers)]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and the cap of :attr:`limits`."""

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    _refused = False
    _timer: asyncio.TimerHandle | None = None
    _phase: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.limits.max_connections:
            self._refuse(transport)
            return
        super().connection_made(transport)
        self._watch()

    def _refuse(self, transport: asyncio.Transport) -> None:
        """Answer 503, shut the writing side and drain until the client closes."""
        self._refused, self.transport = True, transport
        transport.write(
            raw_response(
                "503 Service Unavailable",
                "TOO_MANY_CONNECTIONS",
                "Too many connections are open; try again shortly.",
            )
        )
        if transport.can_write_eof():
            transport.write_eof()
        self._timer = self.loop.call_later(REFUSED_LINGER_SECONDS, transport.close)

    def data_received(self, data: bytes) -> None:
        if not self._refused:  # a refused client's bytes are read and dropped
            super().data_received(data)
            self._watch()

    def eof_received(self) -> bool | None:
        if self._refused:
            self.transport.close()
            return False
        return super().eof_received()

    def send_400_response(self, msg: str) -> None:
        """A request h11 refused (not HTTP/1.1 as it must be): our envelope, then close."""
        sentence = "The request is not valid HTTP/1.1, so the connection was closed."
        self.transport.write(raw_response("400 Bad Request", "MALFORMED_REQUEST", sentence))
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            if self._timer is not None:
                self._timer.cancel()
            return
        self._arm(None, 0.0)
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the deadline of the phase the client is in: headers, body or none."""
        state = self.conn.their_state
        if state is h11.IDLE:
            self._arm(state, self.limits.header_seconds)
        elif state is h11.SEND_BODY:
            self._arm(state, self.limits.body_seconds)
        else:
            self._arm(None, 0.0)

    def _arm(self, phase: Any, seconds: float) -> None:
        if phase is self._phase and (phase is None or self._timer is not None):
            return  # same phase: its deadline stands, however many bytes trickle in
        if self._timer is not None:
            self._timer.cancel()
        self._phase, self._timer = phase, None
        if phase is not None:
            self._timer = self.loop.call_later(seconds, self._expired)

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle if self._phase is h11.SEND_BODY else None
        started = bool(self.conn.trailing_data[0]) if self._phase is h11.IDLE else True
        answered = cycle is not None and cycle.response_started
        if cycle is not None:
            cycle.disconnected = True  # the app's next receive() says the client left
            cycle.message_event.set()
        if started and not answered:
            self.transport.write(
                raw_response(
                    "408 Request Timeout",
                    "REQUEST_TIMEOUT",
                    "The request did not arrive in time, so the connection was closed.",
                )
            )
        self.transport.close()


def server_config(
    app: Any, *, limits: ConnectionLimits | None = None, **options: Any
) -> uvicorn.Config:
    """The uvicorn configuration ``sovereign serve`` runs ``app`` with.

    Args:
        app: the ASGI app (``create_app``).
        limits: deadlines and connection cap (default :class:`ConnectionLimits`).
        options: further ``uvicorn.Config`` options (host, port, TLS files, log level).
    """
    limits = limits or ConnectionLimits()
    protocol = type("DeadlineProtocol", (DeadlineProtocol,), {"limits": limits})
    settings: dict[str, Any] = {
        "http": protocol,
        "ws": "none",
        "timeout_keep_alive": limits.keep_alive_seconds,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "proxy_headers": False,  # the peer address is the real one, never a header's claim
        "server_header": False,
        **options,
    }
    return uvicorn.Config(app, **settings)


def serve_forever(config: uvicorn.Config, sockets: list[socket.socket] | None = None) -> None:
    """Run the server until it is told to stop (Ctrl-C, SIGTERM).

    Args:
        config: from :func:`server_config`.
        sockets: listening sockets already bound (:func:`~.listeners.bind_listeners`);
            ``None`` lets uvicorn bind ``config``'s host and port.
    """
    uvicorn.Server(config).run(sockets=sockets)
