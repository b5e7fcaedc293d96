"""The model behind the service: through HTTP for ``bench/model.py``, and llama-server beside
the embedded backend when run on its own.

For ``bench/model.py`` (:func:`service_turns`): two services run under uvicorn on
127.0.0.1, each ``create_app`` with every capability family and its own data
directory: one with the previous path (:class:`~model_legacy.LegacyBackend`), one
with the embedded backend; both over the same loaded model. The household signs in
through the real auth routes (``tests/e2e/household.py``) and asks "how hot is my
device?"; ``system.health`` runs without approval, so each turn is: decision, the
call, decision, answer. One unmeasured turn warms each side up; then the sides
alternate.

Run on its own, it prints the openai backend against llama-server (built by
``scripts/setup-llama-server``, the same model file, one thread per CPU, loopback)
beside the embedded backend, in one run, one side at a time, each warmed up once:

1. a tool decision for a health question, with the production tool catalog
   (embedded: schema mode, its prefix states; openai: schema mode as ``auto``
   picks it, and ``--tool-mode native``), median of ``--runs`` x 3 questions;
2. time to the first answer token for a question answered without a tool (the
   first of :data:`NO_TOOL` that every side answers so), as the household waits for
   it: the decision and then the streamed answer (schema), or the one streamed
   native round.

Ratios are embedded / openai (above 1: llama-server is faster).

Usage: .venv/bin/python bench/model_service.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ holds the clients

from tests.conversation.live_llama_server import llama_server
from tests.e2e.household import CHEAP_HASHER, Household, Service

from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.offer.guidance import ArgumentGuide
from sovereign.conversation.voice.catalogs import DEFAULT_LANGUAGE, Voice
from sovereign.conversation.voice.prompts import DEFAULT_SYSTEM_PROMPT, system_prompt
from sovereign.service.app import create_app
from sovereign.service.server import server_config
from sovereign.service.settings import Settings
from sovereign.service.wiring import build_registry, embedded_load_options

QUESTION = "how hot is my device?"
DECISIONS = ["how hot is my device?", "is the disk almost full?", "how much memory is in use?"]
NO_TOOL = ["What is the capital of Peru?", "Say good night to me.", "What is 12 times 7?"]
"""Questions for the first-token figure, tried in order: the first that every side
answers without proposing a tool is used for all of them."""
MAX_TOKENS = 64


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


def conversation(catalog: ToolCatalog, question: str) -> list[dict[str, str]]:
    unavailable = catalog.unavailable_sentences(Voice(DEFAULT_LANGUAGE))
    system = system_prompt(DEFAULT_SYSTEM_PROMPT, unavailable)
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


async def decision_seconds(backend: Any, catalog: ToolCatalog, question: str) -> float:
    messages = conversation(catalog, question)
    tools = catalog.tools(ArgumentGuide.for_context(messages))
    started = time.perf_counter()
    await backend.complete(messages, tools=tools)
    return time.perf_counter() - started


async def first_token_seconds(backend: Any, catalog: ToolCatalog, question: str) -> float:
    """Request to first answer token for ``question``: the decision, then the streamed
    answer (or a native round that streams its prose itself); NaN when the model
    proposed a tool instead."""
    messages = conversation(catalog, question)
    tools = catalog.tools(ArgumentGuide.for_context(messages))
    arrivals: list[float] = []

    async def piece(_text: str) -> None:
        arrivals.append(time.perf_counter())

    started = time.perf_counter()
    reply = await backend.complete(messages, tools=tools, on_token=piece)
    if reply.tool_calls:
        return float("nan")
    if not reply.streamed:
        await backend.complete(messages, tools=None, on_token=piece)
    return (arrivals[0] if arrivals else float("nan")) - started


async def no_tool_question(sides: dict[str, Any], catalog: ToolCatalog) -> str:
    """The first of :data:`NO_TOOL` that every side answers without a tool (this also
    warms each side up)."""
    for question in NO_TOOL:
        seconds = [await first_token_seconds(b, catalog, question) for b in sides.values()]
        if not any(math.isnan(s) for s in seconds):
            return question
    raise SystemExit(f"some side proposed a tool for every one of {NO_TOOL}")


async def side_by_side(runs: int, base_url: str, catalog: ToolCatalog) -> dict[str, Any]:
    sampling = Sampling(answer_max_tokens=MAX_TOKENS, answer_temperature=0.0)
    sides: dict[str, Any] = {
        "embedded": EmbeddedBackend(load=embedded_load_options(), sampling=sampling),
        "openai schema": OpenAIBackend(base_url, mode="auto", max_tokens=MAX_TOKENS,
                                       temperature=0.0, timeout_seconds=900),
        "openai native": OpenAIBackend(base_url, mode="native", max_tokens=MAX_TOKENS,
                                       temperature=0.0, timeout_seconds=900),
    }  # fmt: skip
    figures: dict[str, list[float]] = {}
    for backend in sides.values():  # load, probe and warm each side once
        await decision_seconds(backend, catalog, DECISIONS[0])
    question = await no_tool_question(sides, catalog)
    for _ in range(runs):
        for side, backend in sides.items():
            for asked in DECISIONS:
                seconds = await decision_seconds(backend, catalog, asked)
                figures.setdefault(f"decision {side}", []).append(seconds)
            seconds = await first_token_seconds(backend, catalog, question)
            figures.setdefault(f"first token {side}", []).append(seconds)
    plans = {side: (await b.plan()).reason for side, b in sides.items() if side != "embedded"}
    sides["embedded"].close()
    return {"figures": figures, "plans": plans, "question": question}


def report(figures: dict[str, list[float]]) -> None:
    print(f"{'median of the runs, seconds':44}{'embedded':>10}{'llama-srv':>10}{'ratio':>8}")
    for what in ("decision", "first token"):
        baseline = statistics.median(figures[f"{what} embedded"])
        for side in ("openai schema", "openai native"):
            other = statistics.median(figures[f"{what} {side}"])  # NaN: a tool was proposed
            label = f"{what}: embedded vs {side}"
            print(f"{label:44}{baseline:10.2f}{other:10.2f}{baseline / other:8.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description="llama-server beside the embedded backend")
    parser.add_argument("--runs", type=int, default=3, help="rounds of 3 decisions + 1 answer")
    options = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {_load()}")
    with tempfile.TemporaryDirectory() as scratch:
        registry = build_registry(Settings(data_dir=Path(scratch)))
        catalog = ToolCatalog.for_turn(registry, {"external_enabled": True})
        with llama_server(Path(scratch)) as server:
            print(f"llama-server {server.props()['build_info']} at {server.base_url}")
            result = asyncio.run(side_by_side(options.runs, server.base_url, catalog))
    for side, reason in result["plans"].items():
        print(f"{side}: {reason}")
    print(f"first token asked for {result['question']!r} (answered without a tool by every side)")
    report(result["figures"])
    print(f"load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
