"""``system.health`` turns through the real service over HTTP, for ``bench/model.py``.

Two services run under uvicorn on 127.0.0.1, each ``create_app`` with every
capability family and its own data directory: one with the previous path
(:class:`~model_legacy.LegacyBackend`), one with the embedded backend; both over
the same loaded model. The household signs in through the real auth routes
(``tests/e2e/household.py``) and asks "how hot is my device?"; ``system.health``
runs without approval, so each turn is: decision, the call, decision, answer.
One unmeasured turn warms each side up; then the sides alternate.
"""

from __future__ import annotations

import asyncio
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from tests.e2e.household import CHEAP_HASHER, Household, Service

from sovereign.service.app import create_app
from sovereign.service.server import server_config
from sovereign.service.settings import Settings

QUESTION = "how hot is my device?"


async def service_turns(bench: Any, turns: int) -> dict[str, list[float]]:
    """Seconds per turn for each side, ``turns`` each after one warm-up turn."""
    with tempfile.TemporaryDirectory() as root, \
            serve(Path(root) / "previous", bench.legacy) as previous, \
            serve(Path(root) / "backend", bench.backend) as current:  # fmt: skip
        households = {"previous": Household(previous), "backend": Household(current)}
        seconds: dict[str, list[float]] = {side: [] for side in households}
        try:
            for household in households.values():
                await asyncio.to_thread(household.sign_in)
            for round_number in range(turns + 1):
                for side, household in households.items():
                    took = await asyncio.to_thread(_turn, household)
                    if round_number:
                        seconds[side].append(took)
        finally:
            for household in households.values():
                household.close()
    return seconds


def _turn(household: Household) -> float:
    started = time.perf_counter()
    reply = household.say(QUESTION)
    took = time.perf_counter() - started
    outcomes = [r["outcome"] for r in reply["receipts"] if r["capability"] == "system.health"]
    if outcomes != ["executed"]:
        print(f"  note: a turn ran {reply['receipts']} and answered {reply['text']!r}")
    return took


@contextmanager
def serve(data_dir: Path, backend: Any) -> Iterator[Service]:
    """The service with ``backend`` under uvicorn on 127.0.0.1 (a free port)."""
    data_dir.mkdir()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    settings = Settings(data_dir=data_dir, port=sock.getsockname()[1])
    app = create_app(settings, backend=backend, password_hasher=CHEAP_HASHER)
    # lifespan off: the sides share one loaded model, which the service would free on shutdown
    server = uvicorn.Server(server_config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        origin = settings.console_url().rstrip("/")
        yield Service(f"http://127.0.0.1:{settings.port}", origin, app, data_dir)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()
