"""Audit log figures: what recording before running costs, and reading the log back.

Prints, all measured in this run on the same filesystem (the data directory's,
unless --dir says otherwise), each as a ratio to a baseline taken alongside it:

1. one record appended the whole-lines way (open, exclusive lock, tail check,
   write loop, close) against the plain append the log used before (open, one
   write, close);
2. an external call's "executing" record (the same, plus fsync) against the
   same plain append: the price of "on disk before the call starts";
3. reading N records into Activity's summary (linked records, honest times)
   against parsing the same lines with json.loads alone.

Usage: .venv/bin/python bench/audit.py [--records N] [--dir PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from sovereign.executor import AuditLog, Capability, Effect, Locality, OutcomeKind, Stage
from sovereign.service.audit_summary import audit_path, summarize


async def _noop(arguments):
    return {}


def _capability(locality: Locality) -> Capability:
    return Capability(
        name="web.search" if locality is Locality.EXTERNAL else "system.health",
        version=1,
        description="bench",
        arguments_schema={"type": "object"},
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=locality,
        execute=_noop,
    )


LOCAL, EXTERNAL = _capability(Locality.LOCAL), _capability(Locality.EXTERNAL)


def _timed(action, rounds: int) -> float:
    """Median seconds per call over ``rounds`` calls, in batches of 10."""
    samples = []
    for _ in range(max(1, rounds // 10)):
        started = time.perf_counter()
        for _ in range(10):
            action()
        samples.append((time.perf_counter() - started) / 10)
    return statistics.median(samples)


def append_figures(directory: Path, rounds: int) -> None:
    log = AuditLog(directory / "new")
    plain = directory / "plain.jsonl"
    line = (json.dumps({"time": "2026-12-01T10:00:00Z", "capability": "system.health"}) + "\n")

    def plain_append() -> None:
        fd = os.open(plain, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def record() -> None:
        log.record(LOCAL, version=1, stage=Stage.SHAPE, outcome=OutcomeKind.EXECUTED)

    def begin_external() -> None:
        log.begin(EXTERNAL, version=1)

    baseline = _timed(plain_append, rounds)
    whole = _timed(record, rounds)
    durable = _timed(begin_external, max(20, rounds // 10))
    print(f"plain append (baseline)          {baseline * 1e6:9.1f} µs/record")
    print(f"whole-lines record               {whole * 1e6:9.1f} µs/record  "
          f"x{whole / baseline:.2f} of baseline")
    print(f"external executing record+fsync  {durable * 1e6:9.1f} µs/record  "
          f"x{durable / baseline:.2f} of baseline")


def summary_figures(directory: Path, records: int) -> None:
    data = directory / "summary"
    log = AuditLog(data)
    for n in range(records // 3):
        ask = log.record(EXTERNAL, version=1, stage=Stage.CONFIRM,
                         outcome=OutcomeKind.CONFIRMATION_REQUIRED)
        started = log.begin(EXTERNAL, version=1, asked=ask) if n % 2 else None
        outcome = OutcomeKind.EXECUTED if n % 2 else OutcomeKind.DENIED
        log.record(EXTERNAL, version=1, stage=Stage.SHAPE if n % 2 else Stage.CONFIRM,
                   outcome=outcome, asked=ask, started=started)
    path = audit_path(data)
    lines = path.read_bytes().splitlines()

    def parse_only() -> None:
        for raw in lines:
            json.loads(raw)

    def summary() -> None:
        summarize(path, days=30)

    baseline = _timed(parse_only, 20)
    full = _timed(summary, 20)
    print(f"json.loads of {len(lines)} lines (baseline)  {baseline * 1e3:8.1f} ms")
    print(f"summary of {len(lines)} lines             {full * 1e3:8.1f} ms  "
          f"x{full / baseline:.2f} of baseline")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30000, help="lines for the summary")
    parser.add_argument("--rounds", type=int, default=2000, help="appends timed")
    parser.add_argument("--dir", type=Path, default=None, help="directory on the filesystem "
                        "to measure (default: a temporary directory)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=options.dir) as scratch:
        directory = Path(scratch)
        print(f"filesystem of {directory}")
        append_figures(directory, options.rounds)
        summary_figures(directory, options.records)


if __name__ == "__main__":
    main()
