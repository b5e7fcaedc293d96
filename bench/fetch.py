"""web.fetch figures: extraction quality and speed, guarded-fetch overhead, memory under abuse.

Prints, all measured in this run:
1. extraction F1 (the benchmark's shingle method, scored by
   ../shared/tools/extraction_eval.py) and ms/page on ../shared/fixtures/extraction;
2. fetch+extract throughput on loopback through the guarded path (web.fetch's own
   execute: parse, resolve once, classify, pinned connect, caps, extraction) as a
   ratio to a plain unguarded ``httpx.AsyncClient.get`` + the same extraction;
3. peak RSS growth (sampled every millisecond, over the RSS just before) while a
   1 GiB body and a 1 GiB gzip bomb are cut at the cap, in a fresh child process.

Usage: .venv/bin/python bench/fetch.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import gzip
import importlib.util
import json
import statistics
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Awaitable, Callable
from ipaddress import ip_address
from pathlib import Path

import httpx
import psutil

from sovereign.capabilities.web_fetch import WebFetch
from sovereign.net import AddressPolicy, PinnedTransport, StaticResolver, extract_text, main_text

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "fixtures" / "extraction"
HOST = "bench.test"
MiB = 1024 * 1024


# ---------------------------------------------------------------- extraction
def extraction_figures() -> None:
    spec = importlib.util.spec_from_file_location("extraction_eval", SHARED / "tools" /
                                                  "extraction_eval.py")
    if spec is None or spec.loader is None or not DATA.is_dir():
        print("extraction: shared fixtures not found, skipped")
        return
    evaluator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluator)
    pages = evaluator.load_pages(DATA)
    evaluator.run_extractor(main_text, pages, False, 1)
    evaluator.score_pages(pages, 65536)
    summary = evaluator.summarise(pages, 65536, 0)
    print(f"extraction: {summary['pages']} pages  P {summary['precision']:.3f}  "
          f"R {summary['recall']:.3f}  F1 {summary['f1']:.3f}  "
          f"ms/page median {summary['ms_median']:.1f} mean {summary['ms_mean']:.1f}  "
          f"empty {summary['empty_outputs']}")


# ---------------------------------------------------------------- loopback server
Body = Callable[[asyncio.StreamWriter], Awaitable[None]]


async def serve(routes: dict[str, Body]) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            await routes[head.split(b" ")[1].decode()](writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def fixed(body: bytes, content_type: str = "text/html; charset=utf-8") -> Body:
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}"
            "\r\nConnection: close\r\n\r\n").encode()

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(head + body)
        await writer.drain()

    return send


def endless(piece: Callable[[], bytes], extra_header: str = "") -> Body:
    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{extra_header}"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode())
        while True:
            chunk = piece()
            if not chunk:
                break
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    return send


def guarded_fetcher() -> WebFetch:
    policy = AddressPolicy(unsafe_allow={ip_address("127.0.0.1")})
    resolver = StaticResolver({HOST: ["127.0.0.1"]})
    return WebFetch(lambda: PinnedTransport(resolver=resolver, policy=policy))


# ---------------------------------------------------------------- throughput
async def throughput_figures(rounds: int) -> None:
    pages = sorted(DATA.glob("html/*.html.gz"))[:20]
    routes = {f"/{i}": fixed(gzip.decompress(p.read_bytes())) for i, p in enumerate(pages)}
    server, port = await serve(routes)
    guarded = guarded_fetcher()

    async def guarded_once(path: str) -> None:
        result = await guarded({"url": f"http://{HOST}:{port}{path}"})
        assert result["text"]

    async with httpx.AsyncClient() as client:
        async def plain_once(path: str) -> None:
            response = await client.get(f"http://127.0.0.1:{port}{path}")
            text = await asyncio.to_thread(extract_text, response.content, "text/html", "utf-8")
            assert text

        times: dict[str, list[float]] = {"guarded": [], "plain": []}
        for once in (plain_once, guarded_once):
            await once("/0")  # warm up
        for _ in range(rounds):
            for name, once in (("plain", plain_once), ("guarded", guarded_once)):
                started = time.perf_counter()
                for path in routes:
                    await once(path)
                times[name].append((time.perf_counter() - started) / len(routes))
    server.close()
    plain, guarded_s = statistics.median(times["plain"]), statistics.median(times["guarded"])
    print(f"throughput on loopback ({len(routes)} benchmark pages x {rounds} rounds, median): "
          f"plain httpx+extract {1 / plain:.1f} pages/s ({plain * 1000:.1f} ms), "
          f"guarded web.fetch {1 / guarded_s:.1f} pages/s ({guarded_s * 1000:.1f} ms), "
          f"ratio {guarded_s / plain:.3f}x (target <= 1.10x)")


# ---------------------------------------------------------------- memory (child process)
class PeakRSS:
    """Samples this process's resident set every millisecond; ``peak`` in MiB."""

    def __init__(self) -> None:
        self.process = psutil.Process()
        self.peak = self.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def now(self) -> float:
        return self.process.memory_info().rss / MiB

    def _sample(self) -> None:
        while not self._stop.wait(0.001):
            self.peak = max(self.peak, self.now())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return max(self.peak, self.now())


async def memory_child() -> dict[str, float]:
    sent = {"plain": 0, "bomb": 0}

    def plain_piece() -> bytes:
        if sent["plain"] >= 1024 * MiB:
            return b""
        sent["plain"] += 64 * 1024
        return b"<p>" + b"word " * 13106 + b"</p>\n"

    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = b"\0" * MiB
    bomb_bytes = b"".join(packer.compress(zeros) for _ in range(1024)) + packer.flush()
    bomb_chunks = [bomb_bytes[i : i + 65536] for i in range(0, len(bomb_bytes), 65536)]
    del zeros

    def bomb_piece() -> bytes:
        if not bomb_chunks:
            return b""
        sent["bomb"] += 1
        return bomb_chunks.pop(0)

    server, port = await serve({"/big": endless(plain_piece),
                                "/bomb": endless(bomb_piece, "Content-Encoding: gzip\r\n"),
                                "/warm": fixed(b"<html><body><p>warm up</p></body></html>")})
    fetcher = guarded_fetcher()
    await fetcher({"url": f"http://{HOST}:{port}/warm"})
    gc.collect()
    sampler = PeakRSS()
    before = sampler.now()
    big = await fetcher({"url": f"http://{HOST}:{port}/big"})
    after_big = sampler.stop()
    gc.collect()
    sampler = PeakRSS()
    before_bomb = sampler.now()
    bomb = await fetcher({"url": f"http://{HOST}:{port}/bomb"})
    after_bomb = sampler.stop()
    server.close()
    return {"before": before, "big": after_big - before, "bomb": after_bomb - before_bomb,
            "big_truncated": big["truncated"], "bomb_truncated": bomb["truncated"],
            "big_sent_mib": sent["plain"] / MiB, "bomb_kib": len(bomb_bytes) / 1024,
            "bomb_sent_kib": sent["bomb"] * 64}


def memory_figures() -> None:
    child = subprocess.run([sys.executable, __file__, "--memory-child"], capture_output=True,
                           text=True, check=True)
    figures = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"peak RSS growth (fresh process, {figures['before']:.0f} MiB after warm-up): "
          f"1 GiB body {figures['big']:.1f} MiB (cut, truncated={figures['big_truncated']}, "
          f"server got {figures['big_sent_mib']:.0f} MiB out before the close); "
          f"1 GiB gzip bomb ({figures['bomb_kib']:.0f} KiB compressed) "
          f"{figures['bomb']:.1f} MiB "
          f"(truncated={figures['bomb_truncated']}) "
          "(target <= 32 MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(json.dumps(asyncio.run(memory_child())))
        return
    extraction_figures()
    asyncio.run(throughput_figures(args.rounds))
    memory_figures()


if __name__ == "__main__":
    main()
