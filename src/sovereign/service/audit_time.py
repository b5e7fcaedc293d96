"""When each audit record happened, honestly, even when the wall clock was stepped.

Each record carries the wall time it was written (``time``), the kernel's boot
id (``boot``) and the seconds since that boot (``uptime_s``, a clock no
wall-clock step moves). Within one boot, ``time - uptime_s`` is constant unless
the wall clock was stepped (NTP correcting a Raspberry Pi that booted without a
real-time clock, a person setting the date), so:

- a record of the *current* boot is placed ``now_uptime - uptime_s`` seconds
  before now: exact, whatever the wall clock did;
- a record of an *earlier* boot is placed with the wall-clock offset of that
  boot's latest record (the clock is most often wrong early in a boot, before
  NTP, and corrected later), and never after the current boot began;
- a record without these fields (written before they existed) keeps its wall time.

Every change of ``time - uptime_s`` within a boot by more than
:data:`JUMP_TOLERANCE_SECONDS` counts as one clock jump, so Activity can say so.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

JUMP_TOLERANCE_SECONDS = 5.0
"""Offset changes up to this many seconds are rounding (records keep whole seconds)."""


@dataclass(frozen=True)
class Now:
    """The reader's present: wall time (Unix s), seconds since boot and the boot's id."""

    wall: float
    uptime: float
    boot: str | None


@dataclass(frozen=True)
class Placement:
    """Honest Unix times of the records (``None`` for one without a usable time), and
    how many clock jumps were seen."""

    times: list[float | None]
    clock_jumps: int


_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z")


def wall_time(record: dict[str, Any]) -> float | None:
    """The record's ``time`` (``YYYY-MM-DDTHH:MM:SSZ``) as Unix seconds, or ``None``."""
    match = _STAMP.fullmatch(str(record.get("time")))
    if match is None:
        return None
    try:
        stamp = datetime(*map(int, match.groups()), tzinfo=UTC)
    except ValueError:  # a month 13, a 30th of February
        return None
    return stamp.timestamp()


def place(
    records: Sequence[dict[str, Any]], now: Now, walls: Sequence[float | None] | None = None
) -> Placement:
    """Honest times for ``records`` (see the module docstring), in the same order.

    ``walls``: the records' :func:`wall_time`, when the caller has them already.
    """
    walls = [wall_time(record) for record in records] if walls is None else list(walls)
    readings: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for record, wall in zip(records, walls, strict=True):
        boot, uptime = _clock_fields(record)
        if boot is not None and uptime is not None and wall is not None:
            readings[boot].append((uptime, wall))
    if now.boot is not None:
        readings[now.boot].append((now.uptime, now.wall))
    anchors = {boot: max(pairs) for boot, pairs in readings.items()}
    booted_at = now.wall - now.uptime if now.boot is not None else None
    times = [
        _honest(record, wall, anchors, now, booted_at)
        for record, wall in zip(records, walls, strict=True)
    ]
    return Placement(times, sum(_jumps(pairs) for pairs in readings.values()))


def _clock_fields(record: dict[str, Any]) -> tuple[str | None, float | None]:
    boot, uptime = record.get("boot"), record.get("uptime_s")
    if not isinstance(boot, str) or not isinstance(uptime, int | float):
        return None, None
    return boot, float(uptime)


def _honest(
    record: dict[str, Any],
    wall: float | None,
    anchors: dict[str, tuple[float, float]],
    now: Now,
    booted_at: float | None,
) -> float | None:
    boot, uptime = _clock_fields(record)
    if boot is None or uptime is None or boot not in anchors:
        return wall
    if boot == now.boot:
        return now.wall - max(0.0, now.uptime - uptime)
    anchor_uptime, anchor_wall = anchors[boot]
    placed = anchor_wall - (anchor_uptime - uptime)
    return placed if booted_at is None else min(placed, booted_at)


def _jumps(pairs: list[tuple[float, float]]) -> int:
    offsets = [wall - uptime for uptime, wall in sorted(pairs)]
    return sum(1 for a, b in pairwise(offsets) if abs(b - a) > JUMP_TOLERANCE_SECONDS)
