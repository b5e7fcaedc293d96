"""web.search round trip against the replaying SearXNG, through the executor, vs a bare GET.

The SearXNG is ``tests/fakes/searxng.py`` on 127.0.0.1, replaying the captured
``search_basic`` answer. Measured in the same run, with the same query:

- ``bare GET``: one ``httpx.AsyncClient.get`` of ``/search?q=...&format=json`` and
  ``json.loads`` of the body (the floor: loopback HTTP plus the fake's work);
- ``web.search``: an approved ``Executor.invoke`` of web.search v1 (validate, policy,
  token consume, query hygiene, SearXNG client, echo check, result shaping and
  schema check, audit line written to a temporary data directory).

Printed: median and p99 in milliseconds per call, and the ratio web.search / bare GET
(what the capability adds to a SearXNG on this device; a real SearXNG adds its engines'
time on top, which no fake can measure).

Usage: .venv/bin/python bench/search.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from sovereign.capabilities import web_search
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry, TurnState

REPO = Path(__file__).resolve().parents[1]

QUERY = "solar panel cleaning"


async def timed(call: Callable[[], Awaitable[None]], calls: int) -> list[float]:
    """Seconds per call, after ten warm-up calls."""
    for _ in range(10):
        await call()
    seconds = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        seconds.append(time.perf_counter() - started)
    return seconds


async def bare_get(base_url: str, calls: int) -> list[float]:
    async with httpx.AsyncClient(base_url=base_url, trust_env=False) as client:

        async def call() -> None:
            reply = await client.get("/search", params={"q": QUERY, "format": "json"})
            json.loads(reply.content)

        return await timed(call, calls)


async def approved_search(base_url: str, data_dir: Path, calls: int) -> list[float]:
    registry = Registry()
    web_search.register(registry, base_url=base_url)
    confirmations = ConfirmationStore()
    executor = Executor(registry, confirmations=confirmations, audit=AuditLog(data_dir))
    arguments = {"query": QUERY}

    async def call() -> None:
        token = confirmations.issue("web.search", 1, arguments)
        outcome = await executor.invoke(
            "web.search", 1, arguments, policy={"external_enabled": True},
            turn_state=TurnState(), confirmation_token=token,
        )  # fmt: skip
        if not outcome.ok:
            raise RuntimeError(f"web.search failed: {outcome.error_code} {outcome.message}")

    return await timed(call, calls)


def summary(seconds: list[float]) -> tuple[float, float]:
    """(median, p99) in milliseconds."""
    return statistics.median(seconds) * 1000, statistics.quantiles(seconds, n=100)[98] * 1000


async def main(calls: int) -> None:
    sys.path.insert(0, str(REPO))  # the replaying fake lives in tests/
    from tests.fakes.searxng import FakeSearxng

    with FakeSearxng() as fake, tempfile.TemporaryDirectory() as data_dir:
        bare = summary(await bare_get(fake.base_url, calls))
        search = summary(await approved_search(fake.base_url, Path(data_dir), calls))
        sent = len(fake.requests_to("/search"))
    print(f"SearXNG round trip (replaying fake on 127.0.0.1), {calls} calls each, {sent} sent:")
    print(f"  {'':12} {'median ms':>10} {'p99 ms':>8}")
    for label, (median, p99) in (("bare GET", bare), ("web.search", search)):
        print(f"  {label:12} {median:10.2f} {p99:8.2f}")
    ratios = f"median x{search[0] / bare[0]:.2f}, p99 x{search[1] / bare[1]:.2f}"
    print(f"  web.search/bare GET: {ratios}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="timed calls per side")
    asyncio.run(main(parser.parse_args().calls))
