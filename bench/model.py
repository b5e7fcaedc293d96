"""Embedded model speed: the backend with reused prompts vs the uncached path, in one run.

One loaded model serves every side, so each figure is a ratio measured in the
same run under the same load. The **previous path** is the backend as it was
before prompt reuse: ``create_chat_completion`` with a decision prompt, then a
second, differently started prompt for the answer, each evaluated in full
(``bench/model_legacy.py``). Printed, median of ``--runs``:

1. a streamed answer: time to first token and decode speed, raw
   llama-cpp-python streaming (``create_chat_completion``) vs the previous path,
   vs the backend's token loop alone (``Llama.generate``, one token detokenised
   at a time, in the calling thread) and vs the backend with its hand-off to the
   event loop (target: decode >= 0.95x raw);
2. one schema-constrained tool decision: previous path; backend with an empty
   cache (cold); backend with the fixed prefix live in the KV cache; backend
   with the prefix restored from the RAM cache after another prompt overwrote
   it (targets: warm <= 2.5 s and >= 4.5x faster than cold);
3. a question answered without a tool, request to first answer token:
   previous path (decision, then the answer prompt) vs the backend warm
   (decision, then the answer prompt from its own saved prefix state) (target: <= 3 s);
4. a ``system.health`` turn through ``POST /api/v1/conversation/message``, end to
   end, the real service under uvicorn: previous path vs the backend warm
   (target: median <= 10 s), and that turn against one warm tool decision of
   section 2 (target: <= 1.5x: a household read is one decision, the capability and
   the product's sentences);
5. memory: what the prompt cache holds against its bound, and the process's
   resident memory growth after the model was loaded (target: <= 300 MiB).

Usage: .venv/bin/python bench/model.py [--runs 3] [--turns 3] [--max-tokens 64] [--model PATH]
       [--threads N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the service's household client lives in tests/

from model_legacy import LegacyBackend  # noqa: E402
from model_service import service_turns  # noqa: E402

from sovereign.conversation import ToolCatalog  # noqa: E402
from sovereign.conversation.backends.decision import answer_messages  # noqa: E402
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling  # noqa: E402
from sovereign.conversation.backends.embedded.llama import LlamaModel  # noqa: E402
from sovereign.conversation.backends.embedded.load import load_llama  # noqa: E402
from sovereign.conversation.offer.guidance import ArgumentGuide  # noqa: E402
from sovereign.conversation.voice.catalogs import DEFAULT_LANGUAGE, Voice  # noqa: E402
from sovereign.conversation.voice.prompts import DEFAULT_SYSTEM_PROMPT, system_prompt  # noqa: E402
from sovereign.service.settings import Settings  # noqa: E402
from sovereign.service.wiring import build_registry, embedded_load_options  # noqa: E402

QUESTION = "Explain in three sentences why a Raspberry Pi 5 needs a heatsink."
DECISIONS = ["how hot is my device?", "is the disk almost full?", "how much memory is in use?"]
NO_TOOL = ["Hello! Who are you?", "What is 12 times 7?", "Say good night to me."]
"""Questions for section 3, tried in order: the first the model answers without a tool."""
MIB = 1024 * 1024


def production_catalog(data_dir: Path) -> ToolCatalog:
    """The catalog a fresh device offers with web search switched on (Pi-hole and Home
    Assistant not set up, so withheld and named in the system prompt), as the turn loop
    builds it."""
    registry = build_registry(Settings(data_dir=data_dir))
    return ToolCatalog.for_turn(registry, {"external_enabled": True})


with tempfile.TemporaryDirectory() as _data_dir:
    CATALOG = production_catalog(Path(_data_dir))
SYSTEM = system_prompt(
    DEFAULT_SYSTEM_PROMPT, CATALOG.unavailable_sentences(Voice(DEFAULT_LANGUAGE))
)


def messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


def offered(question: str) -> list[dict[str, Any]]:
    """The tools the turn loop offers for ``question`` (narrowed by its argument guide)."""
    return CATALOG.tools(ArgumentGuide.for_context(messages(question)))


class Stopwatch:
    """Collects the arrival time of each streamed piece."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.arrivals: list[float] = []

    async def piece(self, _text: str) -> None:
        self.arrivals.append(time.perf_counter())

    def mark(self) -> None:
        self.arrivals.append(time.perf_counter())

    def first(self) -> float:
        return self.arrivals[0] - self.start if self.arrivals else float("nan")

    def rate(self) -> float:
        """Pieces per second after the first."""
        first, last, count = self.arrivals[0], self.arrivals[-1], len(self.arrivals)
        return (count - 1) / (last - first) if count > 1 and last > first else float("nan")


async def timed(call: Any) -> float:
    started = time.perf_counter()
    await call
    return time.perf_counter() - started


class Bench:
    """The sides of one run, sharing one loaded model."""

    def __init__(self, llama: Any, tools: list[dict[str, Any]], max_tokens: int) -> None:
        self.llama, self.tools = llama, tools
        sampling = Sampling(answer_max_tokens=max_tokens, answer_temperature=0.0)
        self.legacy = LegacyBackend(llama, tools, sampling)
        self.model = LlamaModel(llama)
        self.backend = EmbeddedBackend(sampling=sampling, loader=lambda _o: self.model)
        self.figures: dict[str, list[float]] = {}
        self._turn = 0

    def add(self, name: str, value: float) -> None:
        self.figures.setdefault(name, []).append(value)

    def question(self) -> str:
        self._turn += 1
        return DECISIONS[self._turn % len(DECISIONS)]

    async def answers(self) -> None:
        self.llama.reset()  # raw: llama-cpp-python's own streaming, in this thread
        watch = Stopwatch()
        for chunk in self.llama.create_chat_completion(
            answer_messages(messages(QUESTION)), stream=True,
            max_tokens=self.legacy.sampling.answer_max_tokens, temperature=0.0,
        ):  # fmt: skip
            if chunk["choices"][0]["delta"].get("content"):
                watch.mark()
        self.add("answer first token raw", watch.first())
        self.add("decode raw", watch.rate())
        self.add("decode token loop", self.token_loop())
        for side, backend in (("previous", self.legacy), ("backend", self.backend)):
            self.llama.reset()
            self.backend.forget_prompts()
            watch = Stopwatch()
            await backend.complete(messages(QUESTION), tools=None, on_token=watch.piece)
            self.add(f"answer first token {side}", watch.first())
            self.add(f"decode {side}", watch.rate())

    def token_loop(self) -> float:
        """Decode speed of the backend's own loop without its hand-off: ``Llama.generate``
        and one detokenised token at a time, in this thread (tokens/s after the first)."""
        model = self.model
        model.truncate(0)
        tokens = model.tokenize(model.render(answer_messages(messages(QUESTION))))
        watch = Stopwatch()
        stream = model.generate(tokens, temperature=0.0, grammar=None)
        for count, token in enumerate(stream, 1):
            if model.is_end(token):
                break
            model.piece(token)
            watch.mark()
            if count >= self.legacy.sampling.answer_max_tokens:
                break
        return watch.rate()

    async def decisions(self) -> None:
        self.llama.reset()
        self.add("decision previous", await timed(self.legacy.decide(messages(self.question()))))
        self.backend.forget_prompts()
        ask = self.backend.complete
        self.add("decision cold", await timed(ask(messages(self.question()), tools=self.tools)))
        self.add("decision live", await timed(ask(messages(self.question()), tools=self.tools)))
        self.llama.reset()  # another prompt overwrote the KV cache: the prefix comes back from RAM
        self.add("decision restored", await timed(ask(messages(self.question()), tools=self.tools)))

    async def choose_no_tool_question(self) -> str:
        for question in NO_TOOL:
            if not (await self.backend.complete(messages(question), tools=self.tools)).tool_calls:
                return question
        raise SystemExit(f"the model proposed a tool for every one of {NO_TOOL}")

    async def no_tool(self, question: str) -> None:
        self.llama.reset()
        watch = Stopwatch()
        await self.legacy.turn(messages(question), on_token=watch.piece)
        self.add("no-tool first token previous", watch.first())
        watch = Stopwatch()
        await self.backend.complete(messages(question), tools=self.tools)
        await self.backend.complete(messages(question), tools=None, on_token=watch.piece)
        self.add("no-tool first token backend", watch.first())


def report(bench: Bench, rows: list[tuple[str, str, str, str]]) -> None:
    """``rows``: (label, baseline figure, compared figure, unit), medians; the ratio is
    baseline / compared for seconds and compared / baseline for rates, so above 1 means
    the compared side is faster either way."""
    print(f"{'median of the runs':48}{'baseline':>10}{'compared':>10}{'ratio':>8}")
    for label, before, after, unit in rows:
        old = statistics.median(bench.figures[before])
        new = statistics.median(bench.figures[after])
        ratio = new / old if unit == "tok/s" else old / new
        print(f"{label:48}{old:10.2f}{new:10.2f}{ratio:8.2f}x  {unit}")


async def measure(options: argparse.Namespace) -> None:
    load = embedded_load_options(options.model, n_threads=options.threads)
    process = psutil.Process()
    started = time.perf_counter()
    llama = load_llama(load)
    loaded_rss = process.memory_info().rss
    print(f"model loaded (and verified) in {time.perf_counter() - started:.1f} s; "
          f"{load.threads()} threads, context {load.n_ctx}; load average {_load()}")  # fmt: skip
    tools = offered(DECISIONS[0])  # the same for every question of sections 2 and 3
    assert all(offered(q) == tools for q in DECISIONS + NO_TOOL)
    bench = Bench(llama, tools, options.max_tokens)
    await bench.backend.complete(messages("hello"), tools=None)  # load and warm up once
    question = await bench.choose_no_tool_question()
    print(f"section 3 asks {question!r} (answered without a tool)")
    for _ in range(options.runs):
        await bench.answers()
        await bench.decisions()
        await bench.no_tool(question)
    report(bench, ROWS[:-1])  # sections 1-3 first: section 4 takes longest
    for side, seconds in (await service_turns(bench, options.turns)).items():
        bench.figures[f"turn {side}"] = seconds
    report(bench, ROWS[-1:])
    turn = statistics.median(bench.figures["turn backend"])
    decision = statistics.median(bench.figures["decision live"])
    print(f"4 household read over HTTP vs one warm tool decision: {turn:.2f} s / "
          f"{decision:.2f} s = {turn / decision:.2f}x (target: <= 1.5x)")  # fmt: skip
    cache = bench.backend.cache_figures()
    grown = (process.memory_info().rss - loaded_rss) / MIB
    print(f"5 prompt cache: {cache.entries} states, {cache.bytes / MIB:.1f} MiB of its "
          f"{cache.bound_bytes / MIB:.0f} MiB bound ({cache.hits} restores); resident memory "
          f"grew {grown:.0f} MiB after the model was loaded")  # fmt: skip
    print(f"load average at the end: {_load()}")
    bench.backend.close()
    llama.close()


ROWS = [
    ("1 answer decode: raw vs previous backend", "decode raw", "decode previous", "tok/s"),
    ("1 answer decode: raw vs token loop, no hand-off", "decode raw", "decode token loop",
     "tok/s"),
    ("1 answer decode: raw vs backend", "decode raw", "decode backend", "tok/s"),
    ("1 answer first token: raw vs backend", "answer first token raw",
     "answer first token backend", "s"),
    ("2 tool decision: cold vs warm (prefix live)", "decision cold", "decision live", "s"),
    ("2 tool decision: cold vs warm (restored)", "decision cold", "decision restored", "s"),
    ("2 tool decision: previous path vs warm (live)", "decision previous", "decision live", "s"),
    ("3 no-tool first answer token: previous vs warm", "no-tool first token previous",
     "no-tool first token backend", "s"),
    ("4 system.health turn over HTTP: previous vs warm", "turn previous", "turn backend", "s"),
]  # fmt: skip


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds of sections 1-3")
    parser.add_argument("--turns", type=int, default=3, help="HTTP turns per side")
    parser.add_argument("--max-tokens", type=int, default=64, help="longest streamed answer")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default: verified)")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="inference threads (default: one per CPU, as in production)",
    )
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
