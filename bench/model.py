"""Embedded model speed: through ``EmbeddedBackend`` vs the raw llama-cpp-python runtime.

Both sides share one loaded model and get the same prompt with greedy sampling,
so they generate the same tokens; the KV cache is reset before every run so
neither reuses the other's prompt. Printed per side (median of ``--runs``):

- time to first token (seconds) and decode speed (tokens/s) of a streamed answer;
- the latency of one schema-constrained tool decision (seconds).

and the ratios backend / raw (1.00 means the backend adds nothing).

Usage: .venv/bin/python bench/model.py [--runs 3] [--max-tokens 64] [--model PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from sovereign.capabilities import system, web_search
from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.decision import decision_messages, decision_schema
from sovereign.conversation.backends.decision import plain_messages as plain
from sovereign.conversation.backends.embedded import EmbeddedBackend, Sampling
from sovereign.conversation.backends.embedded_load import (
    LoadOptions,
    json_schema_grammar,
    load_llama,
)
from sovereign.conversation.framing import DEFAULT_SYSTEM_PROMPT
from sovereign.executor import Registry

QUESTION = "Explain in three sentences why a Raspberry Pi 5 needs a heatsink."
DECISION_QUESTION = "how hot is my device?"


def messages(question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "user", "content": question},
    ]


def tools() -> list[dict[str, Any]]:
    registry = Registry()
    system.register(registry)
    web_search.register(registry)
    return ToolCatalog.from_registry(registry).tools()


class Stopwatch:
    """Collects the arrival time of each streamed piece."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.arrivals: list[float] = []

    def piece(self, _text: str) -> None:
        self.arrivals.append(time.perf_counter())

    def figures(self) -> tuple[float, float, int]:
        """(time to first token s, decode tokens/s after the first, pieces)."""
        first, last, count = self.arrivals[0], self.arrivals[-1], len(self.arrivals)
        rate = (count - 1) / (last - first) if count > 1 and last > first else float("nan")
        return first - self.start, rate, count


def raw_answer(llama: Any, max_tokens: int) -> tuple[float, float, int]:
    llama.reset()
    watch = Stopwatch()
    stream = llama.create_chat_completion(
        plain(messages(QUESTION)), stream=True, max_tokens=max_tokens, temperature=0.0
    )
    for chunk in stream:
        if text := chunk["choices"][0]["delta"].get("content"):
            watch.piece(text)
    return watch.figures()


async def backend_answer(backend: EmbeddedBackend, llama: Any) -> tuple[float, float, int]:
    llama.reset()
    watch = Stopwatch()

    async def on_token(text: str) -> None:
        watch.piece(text)

    await backend.complete(messages(QUESTION), tools=None, on_token=on_token)
    return watch.figures()


def raw_decision(llama: Any, offered: list[dict[str, Any]]) -> float:
    llama.reset()
    start = time.perf_counter()
    grammar = json_schema_grammar(json.dumps(decision_schema(offered), sort_keys=True))
    llama.create_chat_completion(
        decision_messages(messages(DECISION_QUESTION), offered),
        grammar=grammar, max_tokens=256, temperature=0.0,
    )  # fmt: skip
    return time.perf_counter() - start


async def backend_decision(
    backend: EmbeddedBackend, llama: Any, offered: list[dict[str, Any]]
) -> float:
    llama.reset()
    start = time.perf_counter()
    await backend.complete(messages(DECISION_QUESTION), tools=offered)
    return time.perf_counter() - start


async def measure(runs: int, max_tokens: int, model: Path | None) -> dict[str, list[Any]]:
    load = LoadOptions(model_path=model, n_ctx=4096)
    started = time.perf_counter()
    llama = load_llama(load)
    print(f"model loaded (and verified) in {time.perf_counter() - started:.1f} s; "
          f"{load.threads()} threads")  # fmt: skip
    backend = EmbeddedBackend(
        load=load,
        sampling=Sampling(answer_max_tokens=max_tokens, answer_temperature=0.0),
        loader=lambda _options: llama,
    )
    offered = tools()
    figures: dict[str, list[Any]] = {"raw": [], "backend": [], "raw_d": [], "backend_d": []}
    raw_answer(llama, 4)  # warm up caches and threads once, unmeasured
    for run in range(runs):  # interleave sides, swapping who goes first, so drift hits both
        for side in ("raw", "backend") if run % 2 == 0 else ("backend", "raw"):
            if side == "raw":
                figures["raw"].append(raw_answer(llama, max_tokens))
                figures["raw_d"].append(raw_decision(llama, offered))
            else:
                figures["backend"].append(await backend_answer(backend, llama))
                figures["backend_d"].append(await backend_decision(backend, llama, offered))
    backend.close()
    return figures


def report(figures: dict[str, list[Any]]) -> None:
    def median(side: str, index: int) -> float:
        return statistics.median(run[index] for run in figures[side])

    rows = [
        ("time to first token (s)", median("raw", 0), median("backend", 0)),
        ("decode speed (tokens/s)", median("raw", 1), median("backend", 1)),
        ("tool decision (s)", statistics.median(figures["raw_d"]),
         statistics.median(figures["backend_d"])),
    ]  # fmt: skip
    print(f"pieces streamed per answer: raw {figures['raw'][0][2]}, "
          f"backend {figures['backend'][0][2]}")  # fmt: skip
    print(f"{'':26}{'raw':>10}{'backend':>10}{'ratio':>8}")
    for label, raw, through in rows:
        print(f"{label:26}{raw:10.3f}{through:10.3f}{through / raw:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default: verified)")
    options = parser.parse_args()
    report(asyncio.run(measure(options.runs, options.max_tokens, options.model)))


if __name__ == "__main__":
    main()
