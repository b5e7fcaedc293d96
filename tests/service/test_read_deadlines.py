"""Slow clients on loopback: trickled headers and bodies, silent connections and too
many connections, against the real service under ``server_config`` (DESIGN §5).

Deadlines are shortened (0.6 s for headers, 1.2 s for a body) so the tests run in
seconds; every loop is bounded, every socket has a timeout.
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from sovereign.service.server import ConnectionLimits, server_config

from .harness import build_harness

LIMITS = ConnectionLimits(header_seconds=0.6, body_seconds=1.2, max_connections=4)
SLACK = 2.0
"""Seconds a close may come after its deadline on a loaded 2-core machine."""
TRICKLE_INTERVAL = 0.1
MAX_TRICKLES = 100


@pytest.fixture
def server(tmp_path) -> Iterator[tuple[int, object]]:
    harness = build_harness(tmp_path)

    async def slow() -> dict[str, bool]:
        await asyncio.sleep(LIMITS.header_seconds + LIMITS.body_seconds + 0.5)
        return {"slow": True}

    harness.app.add_api_route("/slow", slow)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = server_config(harness.app, limits=LIMITS, log_level="warning", lifespan="off")
    uvicorn_server = uvicorn.Server(config)
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if uvicorn_server.started:
            break
        time.sleep(0.02)
    try:
        yield port, harness.app
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def connect(port: int) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port), timeout=10)
    client.setblocking(False)
    return client


def head(port: int, method: str = "GET", path: str = "/healthz", extra: str = "") -> bytes:
    """A request head naming the app's own host (its settings say port 8092)."""
    return (
        f"{method} {path} HTTP/1.1\r\nHost: sovereign.localhost:8092\r\n"
        f"Origin: http://sovereign.localhost:8092\r\n{extra}\r\n"
    ).encode()


def trickle_until_closed(client: socket.socket, pieces: bytes) -> tuple[float, bytes]:
    """Send ``pieces`` a byte per interval (then nothing) until the server closes;
    returns (seconds from the first byte to the close, everything received)."""
    start, received = time.monotonic(), b""
    for i in range(MAX_TRICKLES):
        if i < len(pieces):
            try:
                client.send(pieces[i : i + 1])
            except OSError:
                break
        readable, _, _ = select.select([client], [], [], TRICKLE_INTERVAL)
        if readable:
            try:
                chunk = client.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    else:
        raise AssertionError("the server never closed the connection")
    return time.monotonic() - start, received


def wait_closed(client: socket.socket) -> tuple[float, bytes]:
    return trickle_until_closed(client, b"")


def error_code(raw: bytes) -> str:
    return json.loads(raw.split(b"\r\n\r\n", 1)[1])["error"]["code"]


def test_a_connection_that_sends_nothing_is_closed_at_the_header_deadline(server):
    port, _ = server
    with connect(port) as client:
        elapsed, received = wait_closed(client)
    assert LIMITS.header_seconds - 0.1 <= elapsed <= LIMITS.header_seconds + SLACK
    assert received == b""  # nothing was asked, so nothing is answered


def test_trickled_headers_get_a_408_at_the_header_deadline(server):
    port, _ = server
    with connect(port) as client:
        client.send(b"GET /healthz HTTP/1.1\r\nHost: sov")
        elapsed, received = trickle_until_closed(client, b"ereign.localhost" + b"x" * 80)
    assert elapsed <= LIMITS.header_seconds + SLACK
    assert received.startswith(b"HTTP/1.1 408 ")
    assert error_code(received) == "REQUEST_TIMEOUT"
    assert b"content-security-policy" in received


def test_a_trickled_body_gets_a_408_at_the_body_deadline(server):
    port, app = server
    with connect(port) as client:
        client.send(
            head(
                port,
                "POST",
                "/api/v1/auth/login",
                "Content-Type: application/json\r\nContent-Length: 400\r\n",
            )
        )
        elapsed, received = trickle_until_closed(client, b'{"password": "' + b"a" * 300)
    assert LIMITS.body_seconds - 0.1 <= elapsed <= LIMITS.body_seconds + SLACK
    assert received.startswith(b"HTTP/1.1 408 ")
    assert app.state.services.throttle.retry_after("owner") == 0  # no sign-in was tried


def test_a_body_trickled_after_an_early_answer_is_cut_at_the_body_deadline(server):
    port, _ = server
    with connect(port) as client:
        client.send(
            head(
                port,
                "POST",
                "/api/v1/conversation/policy",
                "Content-Type: application/json\r\nContent-Length: 400\r\n",
            )
        )
        elapsed, received = trickle_until_closed(client, b"{" + b" " * 300)
    assert received.startswith(b"HTTP/1.1 401 ")  # answered at once, the body never read
    assert elapsed <= LIMITS.body_seconds + SLACK


def test_after_a_response_the_next_requests_headers_have_their_own_deadline(server):
    port, _ = server
    with connect(port) as client:
        client.send(head(port))
        first, received = b"", b""
        for _ in range(50):
            select.select([client], [], [], 0.1)
            try:
                first += client.recv(65536)
            except BlockingIOError:
                continue
            if b'"status":"ok"' in first:
                break
        assert first.startswith(b"HTTP/1.1 200 ")
        elapsed, received = trickle_until_closed(client, b"GET /healthz HTTP/1.1\r\nHo" + b"x" * 90)
    assert elapsed <= LIMITS.header_seconds + SLACK
    assert received.startswith(b"HTTP/1.1 408 ")


def test_a_slow_answer_is_not_cut_by_the_read_deadlines(server):
    port, _ = server
    with connect(port) as client:
        client.send(head(port, path="/slow", extra="Connection: close\r\n"))
        elapsed, received = wait_closed(client)
    assert elapsed > LIMITS.header_seconds + LIMITS.body_seconds
    assert received.startswith(b"HTTP/1.1 200 ") and b'{"slow":true}' in received


def test_past_the_connection_cap_a_new_connection_is_refused_at_once(server):
    port, _ = server
    held = [connect(port) for _ in range(LIMITS.max_connections)]
    try:
        time.sleep(0.2)  # let the server accept them all
        with connect(port) as extra:
            elapsed, received = wait_closed(extra)
        assert elapsed < LIMITS.header_seconds
        assert received.startswith(b"HTTP/1.1 503 ")
        assert error_code(received) == "TOO_MANY_CONNECTIONS"
        for client in held:  # the silent ones are closed at their deadline …
            wait_closed(client)
    finally:
        for client in held:
            client.close()
    with connect(port) as later:  # … and the service takes new ones again
        later.send(head(port, extra="Connection: close\r\n"))
        _, received = wait_closed(later)
    assert received.startswith(b"HTTP/1.1 200 ")


def ask_at_once(port: int) -> bytes | str:
    """Connect, send a whole request at once (as every HTTP client does) and read the
    answer to the end; ``"reset"`` when the connection was reset instead."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(head(port, extra="Connection: close\r\n"))
            chunks = []
            while chunk := client.recv(65536):
                chunks.append(chunk)
            return b"".join(chunks)
    except ConnectionResetError:
        return "reset"


def test_every_client_refused_at_the_cap_reads_a_503_not_a_reset(server):
    port, _ = server
    held = [connect(port) for _ in range(LIMITS.max_connections)]
    try:
        time.sleep(0.2)
        answers: list[bytes | str] = []
        clients = [
            threading.Thread(target=lambda: answers.append(ask_at_once(port))) for _ in range(40)
        ]
        for client in clients:
            client.start()
        for client in clients:
            client.join(30)
    finally:
        for client in held:
            client.close()
    assert len(answers) == 40
    refused = [a for a in answers if a == "reset" or not a.startswith(b"HTTP/1.1 503 ")]
    assert refused == [], f"{len(refused)} of 40 got no 503: {refused[:3]}"
    assert all(error_code(a) == "TOO_MANY_CONNECTIONS" for a in answers)


def test_limits_must_be_positive():
    for bad in ({"header_seconds": 0}, {"body_seconds": -1}, {"max_connections": 0}):
        with pytest.raises(ValueError):
            ConnectionLimits(**bad)
