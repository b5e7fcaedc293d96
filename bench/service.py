"""Throughput and latency of POST /api/v1/conversation/message with a zero-latency model.

Runs the real service under uvicorn on 127.0.0.1 (in a child process) with a
scripted model that answers at once, and drives it with 1 and 32 concurrent
clients. The baseline is a bare echo route added to the same app, behind the
same session and CSRF middleware, measured in the same run; the ratios say what
the conversation layer (validation, policy read, turn loop, audit) costs.

Usage: .venv/bin/python bench/service.py [--requests N] [--concurrency 1,32]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

PASSWORD = "benchmark password"
ANSWER = "All quiet on this device."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(port: int, data_dir: str) -> None:
    from sovereign.conversation.backends.scripted import ScriptedBackend
    from sovereign.service.app import create_app
    from sovereign.service.server import serve_forever, server_config
    from sovereign.service.settings import Settings

    app = create_app(
        Settings(data_dir=Path(data_dir), backend="scripted", port=port),
        backend=ScriptedBackend(lambda messages, tools: ANSWER),
    )

    @app.post("/api/v1/bench/echo")
    async def echo(body: dict[str, Any]) -> dict[str, Any]:
        return body

    config = server_config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    serve_forever(config)  # as `sovereign serve` runs it: read deadlines, connection cap


async def _wait_ready(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as client:
        for _ in range(200):
            try:
                if (await client.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise RuntimeError("the service did not start")


async def _run(base: str, path: str, concurrency: int, total: int) -> dict[str, float]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    origin = {"Origin": base}  # the service refuses state changes from any other origin
    async with httpx.AsyncClient(
        base_url=base, limits=limits, timeout=30, headers=origin
    ) as client:
        login = await client.post("/api/v1/auth/login", json={"password": PASSWORD})
        headers = {"X-CSRF-Token": login.json()["csrf_token"]}
        body = {"message": "how is the device?"}
        latencies: list[float] = []
        remaining = total

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                started = time.perf_counter()
                response = await client.post(path, json=body, headers=headers)
                latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    raise RuntimeError(f"{path}: HTTP {response.status_code} {response.text}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100)
    return {"per_second": total / elapsed, "p50_ms": cuts[49] * 1000, "p99_ms": cuts[98] * 1000}


async def _measure(base: str, concurrency: int, total: int) -> None:
    await _run(base, "/api/v1/conversation/message", concurrency, max(20, total // 10))  # warm-up
    echo = await _run(base, "/api/v1/bench/echo", concurrency, total)
    turns = await _run(base, "/api/v1/conversation/message", concurrency, total)
    print(f"\n{concurrency} concurrent client(s), {total} requests each:")
    print(f"  {'':10} {'per second':>11} {'p50 ms':>8} {'p99 ms':>8}")
    for label, row in (("echo", echo), ("turns", turns)):
        print(f"  {label:10} {row['per_second']:11.1f} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f}")
    print(
        f"  turns/echo: throughput x{turns['per_second'] / echo['per_second']:.2f}, "
        f"p50 x{turns['p50_ms'] / echo['p50_ms']:.2f}, p99 x{turns['p99_ms'] / echo['p99_ms']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests per measurement")
    parser.add_argument("--concurrency", default="1,32", help="comma-separated client counts")
    options = parser.parse_args()

    from sovereign.service.owner import OwnerAccount

    with tempfile.TemporaryDirectory() as data_dir:
        OwnerAccount(Path(data_dir)).set_password(PASSWORD)
        port = _free_port()
        server = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(port, data_dir), daemon=True
        )
        server.start()
        base = f"http://127.0.0.1:{port}"
        try:
            asyncio.run(_wait_ready(base))
            print("POST /api/v1/conversation/message, zero-latency scripted model, real uvicorn")
            for concurrency in (int(c) for c in options.concurrency.split(",")):
                asyncio.run(_measure(base, concurrency, options.requests))
        finally:
            server.terminate()
            server.join()


if __name__ == "__main__":
    main()
