"""web.fetch figures: extraction quality, generalisation and speed, guarded-fetch overhead, memory.

Prints, all measured in this run (pages from tests/fixtures/extraction, or ``--data DIR``
holding ``ground-truth.json`` and ``html/<id>.html.gz``):
1. extraction precision / recall / F1 with the benchmark's own method
   (bench/extraction_score.py) for the shipped extractor, the one shipped before
   (bench/extraction_before.py) and the alternatives, on the pages as published and
   rewritten the three ways unseen pages differ (bench/extraction_variants.py); F1 is of
   the *body text*: the reference list and the ``[n]`` link markers are taken out first;
   then what web.fetch returns scored as it is (markers and reference list left in);
2. the prompt tokens a page adds and the share its links take, before and after
   (bench/prompt_tokens.py, the embedded model's tokenizer);
3. cross-validation: the spread of the shipped extractor's F1 over 400 random halves, the
   held-out F1 when the best alternative is picked on one half, and k-fold
   cross-validation of the choice rule's thresholds (bench/extraction_choice.py);
4. ms per page (median) of the shipped extractor as a ratio to the one before it and to
   trafilatura precision + fast, timed page by page in turns, and peak RSS growth of
   one extraction of a 2 MiB page, in a fresh child process for each;
5. fetch+extract throughput on loopback through the guarded path as a ratio to a plain
   ``httpx.AsyncClient.get`` + the same extraction;
6. peak RSS growth while a 1 GiB body and a 1 GiB gzip bomb are cut at the cap.

Usage: .venv/bin/python bench/fetch.py [--rounds N] [--data DIR] [--no-variants] [--no-cv]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import gzip
import json
import logging
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
import trafilatura
from extraction_before import before_read_html
from extraction_choice import rule_cross_validation
from extraction_score import (
    Counts,
    Page,
    aggregate,
    cross_validate,
    load_pages,
    page_counts,
    page_f1,
)
from extraction_variants import VARIANTS
from prompt_tokens import link_token_figures
from trafilatura.readability_lxml import Document as Readability

from sovereign.capabilities.web_fetch import WebFetch
from sovereign.net import (
    AddressPolicy,
    PageText,
    PinnedTransport,
    StaticResolver,
    extract_text,
    page_text,
    read_html,
)
from sovereign.net.charset import decode_body

DATA = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "extraction"
HOST = "bench.test"
MiB = 1024 * 1024
logging.getLogger("trafilatura").setLevel(logging.CRITICAL)


# ---------------------------------------------------------------- extraction
def body_text(page: PageText) -> str:
    """The body the benchmark scores: no reference list and no ``[n]`` markers."""
    pieces, last = [], 0
    for start, end, _ in page.markers:
        pieces.append(page.body[last:start])
        last = end
    return "".join(pieces) + page.body[last:]


def previous(html: str) -> str:
    """What web.fetch shipped before: trafilatura precision + fast, whole page if empty."""
    text = trafilatura.extract(html, favor_precision=True, fast=True, include_comments=False,
                               include_tables=True)
    return text.strip() if text and text.strip() else page_text(html)


def _or_page(text: str | None, html: str) -> str:
    return text if text and text.strip() else page_text(html)


def readability_fork(html: str) -> str:
    summary = Readability(trafilatura.load_html(html), min_text_length=25).summary()
    return _or_page(" ".join(trafilatura.load_html(f"<html>{summary}</html>").itertext())
                    if summary else "", html)


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "shipped": lambda html: body_text(read_html(html)),
    "before: title cut from an extent": lambda html: body_text(before_read_html(html)),
    "previous: trafilatura precision, fast": previous,
    "trafilatura defaults": lambda html: _or_page(trafilatura.extract(html), html),
    "trafilatura precision, full": lambda html: _or_page(trafilatura.extract(
        html, favor_precision=True, include_comments=False), html),
    "trafilatura recall, fast (alone)": lambda html: _or_page(trafilatura.extract(
        html, favor_recall=True, fast=True, include_comments=False), html),
    "readability, trafilatura's fork (alone)": readability_fork,
}
SHIPPED = next(iter(EXTRACTORS))


def extraction_figures(data: Path, variants: bool, cv: bool) -> None:
    pages = load_pages(data)
    sets = {"as published": [decode_body(p.html, None, html=True) for p in pages]}
    if variants:
        sets.update({name: [rewrite(html) for html in sets["as published"]]
                     for name, rewrite in VARIANTS.items()})
    counts: dict[str, dict[str, list[Counts]]] = {name: {} for name in EXTRACTORS}
    for set_name, htmls in sets.items():
        for name, extract in EXTRACTORS.items():
            counts[name][set_name] = [page_counts(p.truth, extract(h))
                                      for p, h in zip(pages, htmls, strict=True)]
    print(f"extraction: {len(pages)} pages from {data}, F1 of the body text "
          "(benchmark method; reference list and [n] markers taken out)")
    print(f"  {'extractor':<42}" + "".join(f"{name:>15}" for name in sets)
          + f"{'min page':>10}{'< 0.5':>7}")
    for name, by_set in counts.items():
        published = by_set["as published"]
        lows = [page_f1(c) for c in published]
        print(f"  {name:<42}" + "".join(f"{aggregate(c)['f1']:>15.3f}" for c in by_set.values())
              + f"{min(lows):>10.2f}{sum(f < 0.5 for f in lows):>7}")
    shipped = aggregate(counts[SHIPPED]["as published"])
    print(f"  shipped, as published: P {shipped['precision']:.3f} R {shipped['recall']:.3f} "
          f"F1 {shipped['f1']:.3f}")
    returned = {"shipped": {n: [read_html(h) for h in htmls] for n, htmls in sets.items()},
                "before": {n: [before_read_html(h) for h in htmls] for n, htmls in sets.items()}}
    print("what web.fetch returns, scored as it is ([n] markers and reference list left in; "
          "target >= 0.94):")
    for name, by_set in returned.items():
        scores = [aggregate([page_counts(page.truth, text.text)
                             for page, text in zip(pages, texts, strict=True)])["f1"]
                  for texts in by_set.values()]
        print(f"  {name:<42}" + "".join(f"{score:>15.3f}" for score in scores))
    link_token_figures({name: by_set["as published"] for name, by_set in returned.items()})
    cross_validation_figures(counts)
    if cv:
        rule_cross_validation(pages, sets, lambda html: body_text(read_html(html)))
    speed_figures(pages, sets["as published"])


def cross_validation_figures(counts: dict[str, dict[str, list[Counts]]]) -> None:
    published = {name: by_set["as published"] for name, by_set in counts.items()}
    spread = cross_validate(published, rounds=200)
    halves = spread.fixed[SHIPPED]
    print(f"cross-validation, shipped extractor over {len(halves)} random halves: F1 mean "
          f"{statistics.fmean(halves):.3f}, spread (std) {statistics.stdev(halves):.4f}, "
          f"min {min(halves):.3f}, max {max(halves):.3f} (target: >= 0.97, spread <= 0.01)")
    combined = {name: [_mean_counts(pages) for pages in zip(*by_set.values(), strict=True)]
                for name, by_set in counts.items()}
    picked = cross_validate(combined, rounds=200)
    naive = cross_validate(published, rounds=200)
    for label, result in (("on the published pages", naive),
                          ("on published + rewritten pages", picked)):
        print(f"  picking the best alternative {label} on one half: held-out F1 "
              f"{statistics.fmean(result.held_out):.3f} +- {statistics.stdev(result.held_out):.4f}"
              f"; picked {dict(result.picked.most_common())}")


def _mean_counts(per_set: tuple[Counts, ...]) -> Counts:
    """One page's counts averaged over its published and rewritten forms."""
    return tuple(statistics.fmean(c[i] for c in per_set) for i in range(3))  # type: ignore[return-value]


def speed_figures(pages: list[Page], htmls: list[str]) -> None:
    extract = {"shipped": read_html, "before": before_read_html, "previous": previous}
    times: dict[str, list[float]] = {name: [] for name in extract}
    for html in htmls:
        for name in ("before", "previous", "shipped"):
            started = time.perf_counter()
            extract[name](html)
            times[name].append(time.perf_counter() - started)
    shipped, before, older = (statistics.median(times[n]) * 1000 for n in extract)
    print(f"extraction time per page (median, {len(pages)} pages, in turns): shipped "
          f"{shipped:.1f} ms, before {before:.1f} ms, ratio {shipped / before:.2f}x "
          f"(target <= 1.5x); trafilatura precision+fast {older:.1f} ms, "
          f"ratio {shipped / older:.2f}x")
    figures = {(page, label): _extraction_memory(page, label)
               for page in two_mib_pages() for label in ("shipped", "previous")}
    print("extraction peak RSS growth on 2 MiB pages (a fresh process each): " + "; ".join(
        f"{page} {figures[page, 'shipped']:.1f} MiB (previous {figures[page, 'previous']:.1f})"
        for page in two_mib_pages()) + " (target <= 64 MiB)")


def _extraction_memory(page: str, label: str) -> float:
    child = subprocess.run([sys.executable, __file__, "--extraction-memory-child",
                            f"{page}:{label}"], capture_output=True, text=True, check=True)
    return float(child.stdout.strip().splitlines()[-1])


def two_mib_pages() -> dict[str, str]:
    """A long article, 2 MiB of nesting and a 2 MiB table, each just under 2 MiB."""
    paragraph = "<p>" + "A sentence of the long article, with a few words in it. " * 6 + "</p>"
    article = "<html><body><article>" + paragraph * (2 * MiB // len(paragraph) - 1)
    row = "<tr><td>cell one</td><td>cell two</td><td>cell three</td></tr>"
    return {
        "article": article + "</article></body></html>",
        "nested": "<html><body>" + "<div>" * (2 * MiB // 5 - 100) + "deep</body></html>",
        "table": "<html><body><table>" + row * (2 * MiB // len(row) - 1) + "</table></body></html>",
    }


def extraction_memory_child(which: str) -> float:
    """Peak RSS growth, in MiB, of one extraction of one 2 MiB page (``"page:label"``)."""
    page, label = which.split(":")
    html = two_mib_pages()[page]
    extract = read_html if label == "shipped" else previous
    extract("<html><body><p>warm up</p></body></html>")
    gc.collect()
    sampler = PeakRSS()
    before = sampler.now()
    extract(html)
    return sampler.stop() - before


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
            assert text.body

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
    parser.add_argument("--data", type=Path, default=DATA, help="benchmark folder")
    parser.add_argument("--no-variants", action="store_true", help="skip the rewritten pages")
    parser.add_argument("--no-cv", action="store_true", help="skip the choice rule's k-fold CV")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--extraction-memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(json.dumps(asyncio.run(memory_child())))
        return
    if args.extraction_memory_child:
        print(extraction_memory_child(args.extraction_memory_child))
        return
    extraction_figures(args.data, not args.no_variants, not args.no_cv)
    asyncio.run(throughput_figures(args.rounds))
    memory_figures()


if __name__ == "__main__":
    main()
