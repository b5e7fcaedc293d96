"""The service's boundary: what pinning and headers cost, and when slow clients are cut off.

1. Cost per request of Host/Origin pinning and the security headers, in process:
   a bare ASGI app, then the same app inside both layers, same run; prints
   microseconds per request and the ratio.
2. Read deadlines with the production limits (``ConnectionLimits()``), against the
   real service under ``server_config`` on 127.0.0.1: a silent connection,
   trickled headers and a trickled body (one byte every 0.5 s), each timed from
   connect to close and printed against its deadline; then a connection past the cap.

Usage: .venv/bin/python bench/boundary.py [--requests N] [--skip-deadlines]
Takes about a minute with the deadlines (the body deadline alone is 30 s).
"""

from __future__ import annotations

import argparse
import asyncio
import select
import socket
import tempfile
import threading
import time
from pathlib import Path

HOST = b"sovereign.localhost:8092"


async def _bare(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def _drive(app, requests: int) -> float:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/x",
        "scheme": "http",
        "headers": [(b"host", HOST), (b"origin", b"http://" + HOST)],
    }

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message) -> None:
        pass

    started = time.perf_counter()
    for _ in range(requests):
        await app(dict(scope), receive, send)
    return (time.perf_counter() - started) / requests * 1e6


def layer_cost(requests: int) -> None:
    from sovereign.service.host_pinning import HostOriginMiddleware
    from sovereign.service.security_headers import SecurityHeadersMiddleware
    from sovereign.service.settings import Settings

    settings = Settings()
    wrapped = SecurityHeadersMiddleware(
        HostOriginMiddleware(_bare, pins=settings.host_pins, console_url=settings.console_url())
    )
    asyncio.run(_drive(wrapped, requests // 10))  # warm-up
    bare = asyncio.run(_drive(_bare, requests))
    layered = asyncio.run(_drive(wrapped, requests))
    print(f"1. per request, {requests} requests in process:")
    print(
        f"   bare app {bare:8.2f} us   with pinning + headers {layered:8.2f} us   "
        f"added {layered - bare:6.2f} us (x{layered / bare:.2f})"
    )


def _serve(data_dir: Path):
    import uvicorn

    from sovereign.conversation.backends.scripted import ScriptedBackend
    from sovereign.service.app import create_app
    from sovereign.service.server import server_config
    from sovereign.service.settings import Settings

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(
        Settings(data_dir=data_dir, backend="scripted", port=port), backend=ScriptedBackend([])
    )
    server = uvicorn.Server(server_config(app, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return server, thread, port


def _time_to_close(port: int, first: bytes, trickle: bytes, interval: float) -> tuple[float, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        started, received = time.monotonic(), b""
        client.sendall(first)
        for i in range(2000):  # bounded: 2000 waits of at most `interval` each
            if i < len(trickle):
                try:
                    client.send(trickle[i : i + 1])
                except OSError:
                    break
            if select.select([client], [], [], interval)[0]:
                chunk = client.recv(65536)
                if not chunk:
                    break
                received += chunk
        return time.monotonic() - started, received.split(b"\r\n", 1)[0]


def deadlines() -> None:
    from sovereign.service.server import ConnectionLimits

    limits = ConnectionLimits()
    with tempfile.TemporaryDirectory() as data_dir:
        server, thread, port = _serve(Path(data_dir))
        host = f"sovereign.localhost:{port}".encode()
        head = b"POST /api/v1/auth/login HTTP/1.1\r\nHost: " + host + b"\r\nOrigin: http://" + host
        cases = [
            ("silent connection", b"", b"", limits.header_seconds),
            (
                "trickled headers",
                b"GET /healthz HTTP/1.1\r\nHost: sov",
                b"x" * 200,
                limits.header_seconds,
            ),
            (
                "trickled body",
                head + b"\r\nContent-Length: 900\r\n\r\n{",
                b"x" * 200,
                limits.body_seconds,
            ),
        ]
        print("2. production read deadlines, one byte every 0.5 s:")
        for label, first, trickle, deadline in cases:
            elapsed, status = _time_to_close(port, first, trickle, 0.5)
            answer = status.decode() or "(closed, no answer)"
            print(
                f"   {label:18} closed after {elapsed:6.2f} s, deadline {deadline:5.1f} s "
                f"(x{elapsed / deadline:.3f})  {answer}"
            )
        held = [
            socket.create_connection(("127.0.0.1", port)) for _ in range(limits.max_connections)
        ]
        time.sleep(0.5)
        elapsed, status = _time_to_close(port, b"", b"", 0.05)
        print(
            f"   connection {limits.max_connections + 1} of {limits.max_connections}: "
            f"answered in {elapsed * 1000:.1f} ms: {status.decode()}"
        )
        for client in held:
            client.close()
        server.should_exit = True
        thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--skip-deadlines", action="store_true")
    options = parser.parse_args()
    layer_cost(options.requests)
    if not options.skip_deadlines:
        deadlines()


if __name__ == "__main__":
    main()
