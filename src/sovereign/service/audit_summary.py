"""Counts per capability and outcome from the audit log, for operators and the Console's Activity.

The figures tell whether the confirmation flow is usable: how often the model
proposes a call, how often the household is asked, approves, denies or lets a
request expire, and what policy, the address guard and failures stopped. They
equal what the household was shown:

- a call's ``executing`` record counts once its outcome record exists (which
  names it in ``started``); without one (the service stopped mid-call) it
  counts as ``outcome_unknown``: for an external call, it may have left;
- an approval asked counts its answer once (records name it in ``asked``):
  approved, denied, expired, or ``edited`` (the household changed the arguments;
  the edit is asked again on its own, not counted as ``proposed``); an ask whose
  card carried flags (household identifiers, words a result dictated) also counts
  as ``flagged``;
  unanswered, it is ``awaiting`` for the token's lifetime, then ``expired``;
- everything that belongs to one approval is placed at the time it was asked,
  and times come from :mod:`.audit_time`, so a wall-clock step moves nothing
  in or out of a window (``clock_jumps`` says how often the clock was stepped).

Only the fixed fields of each line are read; the log never holds query or URL
text, and this reader would not keep it if it did.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from sovereign.conversation.voice.activity import REPAIRS
from sovereign.executor import EDIT_REASON, TTL_SECONDS
from sovereign.executor.audit import (
    AUDIT_FILENAME,
    LOST_OUTCOME,
    RESTART_REASON,
    kernel_boot_id,
    record_id,
    uptime_seconds,
)
from sovereign.executor.audit_file import corrupt_path, count_lines, read_records

from .audit_time import Now, place, wall_time

COUNTERS = (
    "proposed",
    "confirmation_requested",
    "flagged",
    "awaiting",
    "approved",
    "edited",
    "denied",
    "expired",
    "refused_by_policy",
    "rejected_target",
    "refused_other",
    "failed",
    "failed_nothing_left",
    "executed",
    "outcome_unknown",
)
MAX_DAYS = 3650


def audit_path(data_dir: Path) -> Path:
    """``<data>/capabilities/audit.jsonl``."""
    return Path(data_dir) / "capabilities" / AUDIT_FILENAME


def present() -> Now:
    """The reader's present: wall clock, uptime and boot id of this device."""
    return Now(time.time(), uptime_seconds(), kernel_boot_id())


def summarize(path: Path, *, days: int, now: Now | float | None = None) -> dict[str, Any]:
    """Count audit events of the last ``days`` days.

    Args:
        path: the audit file (absent means no events).
        days: window length in days, 1..3650.
        now: the reader's present (default: :func:`present`); a bare Unix time
            places every record by its wall time alone.

    Returns:
        ``{"days", "since" (ISO 8601 UTC), "capabilities": {name: {counter: int}},
        "totals": {counter: int}, "may_have_left": {name: int}, "repairs": [{"capability",
        "reason", "count", "repair"}], "unreadable_lines", "set_aside_lines",
        "lost_records", "clock_jumps"}`` with the counters of :data:`COUNTERS`.
        ``failed_nothing_left`` counts the failures that happened before anything was
        sent (also counted in ``failed``); ``repairs`` the failures whose reason has a
        known repair (:data:`~sovereign.conversation.voice.activity.REPAIRS`), most
        frequent first.
        ``may_have_left`` counts the ``outcome_unknown`` calls of external
        capabilities; ``set_aside_lines`` the torn lines moved to
        ``audit.jsonl.corrupt``; ``lost_records`` the records dropped while the log
        could not be written (counted by ``lost`` records written afterwards).

    Raises:
        ValueError: ``days`` out of range.
        OSError: the file exists but cannot be read.
    """
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")
    now = present() if now is None else now
    now = Now(now, 0.0, None) if isinstance(now, int | float) else now
    lines = list(read_records(path))
    readable = [(r, wall_time(r)) for r in lines if r is not None]
    losses = [(r, wall) for r, wall in readable if r.get("outcome") == LOST_OUTCOME]
    usable = [(record, wall) for record, wall in readable if _usable(record, wall)]
    records = [record for record, _ in usable]
    placement = place(records, now, [wall for _, wall in usable])
    since = now.wall - days * 86400
    ledger = _Ledger(records, placement.times, now.wall)
    per_capability: dict[str, dict[str, int]] = {}
    may_have_left: Counter[str] = Counter()
    repairs: Counter[tuple[str, str]] = Counter()
    for index, record in enumerate(records):
        counters, when = ledger.counters(index)
        if not counters or when is None or when < since:
            continue
        name = str(record.get("capability"))[:64]
        if "failed" in counters and record.get("reason") in REPAIRS:
            repairs[(name, str(record["reason"]))] += 1
        counts = per_capability.setdefault(name, dict.fromkeys(COUNTERS, 0))
        for counter in counters:
            counts[counter] += 1
        if "outcome_unknown" in counters and _locality(record) == "external":
            may_have_left[name] += 1
    totals = {c: sum(counts[c] for counts in per_capability.values()) for c in COUNTERS}
    return {
        "days": days,
        "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)),
        "capabilities": dict(sorted(per_capability.items())),
        "totals": totals,
        "may_have_left": dict(sorted(may_have_left.items())),
        "repairs": [
            {"capability": name, "reason": reason, "count": count, "repair": REPAIRS[reason]}
            for (name, reason), count in repairs.most_common()
        ],
        "unreadable_lines": len(lines) - len(records) - len(losses),
        "lost_records": _lost(losses, since),
        "set_aside_lines": count_lines(corrupt_path(path)),
        "clock_jumps": placement.clock_jumps,
    }


class _Ledger:
    """Which counters each record adds to, and at what time, with links resolved."""

    def __init__(self, records: list[dict[str, Any]], times: list[float | None], now: float):
        self.records, self.times, self.now = records, times, now
        self.index = {ref: i for i, r in enumerate(records) if (ref := record_id(r))}
        self.closed = {r["started"] for r in records if isinstance(r.get("started"), str)}
        answers: dict[str, list[int]] = {}
        for i, record in enumerate(records):
            if isinstance(record.get("asked"), str):
                answers.setdefault(record["asked"], []).append(i)
        self.answers = answers

    def counters(self, i: int) -> tuple[list[str], float | None]:
        record = self.records[i]
        asked = record.get("asked") if isinstance(record.get("asked"), str) else None
        when = self._time_of(asked, i)
        outcome = record.get("outcome")
        if outcome == "executing":
            if record_id(record) in self.closed:
                return [], when  # its outcome record counts
            return ["approved" if asked else "proposed", "outcome_unknown"], when
        if asked and self._superseded(asked, i):
            return [], when
        counters = classify(record)
        if outcome == "confirmation_required" and record_id(record) not in self.answers:
            counters.append("expired" if self.now - (when or 0) > TTL_SECONDS else "awaiting")
        return counters, when

    def _time_of(self, asked: str | None, i: int) -> float | None:
        """An answer is placed at the time its approval was asked."""
        ask = self.index.get(asked) if asked else None
        return self.times[ask] if ask is not None else self.times[i]

    def _superseded(self, asked: str, i: int) -> bool:
        """A restart's closing ``expired`` record yields to any real answer of the same ask."""
        if self.records[i].get("reason") != RESTART_REASON:
            return False
        return any(self.records[j].get("reason") != RESTART_REASON for j in self.answers[asked])


def classify(record: dict[str, Any]) -> list[str]:
    """The counters one outcome record adds to (see :func:`summarize`).

    A record naming the approval it answers (``asked``) is the household's
    answer: approved, unless it is a denial or an expiry. A token that no
    longer counted when the approval arrived (``INVALID_CONFIRMATION``) was
    shown to the household as expired.
    """
    outcome, code, stage = record.get("outcome"), record.get("error_code"), record.get("stage")
    if isinstance(record.get("asked"), str):
        if code == "INVALID_CONFIRMATION":
            return ["expired"]
        if outcome == "edited":
            return ["edited"]
        counters = [] if outcome in ("denied", "expired") else ["approved"]
        return counters + _outcome_counters(outcome, code, record.get("sent"))
    answered = outcome in ("denied", "expired") or code == "INVALID_CONFIRMATION"
    approved = _confirmation(record) == "required" and stage in ("execute", "shape")
    by_household = record.get("reason") == EDIT_REASON  # an edit, not a proposal of the model
    counters = [] if answered or approved or by_household else ["proposed"]
    if approved:
        counters.append("approved")
    counters.extend(_outcome_counters(outcome, code, record.get("sent")))
    if outcome == "confirmation_required" and record.get("flags"):
        counters.append("flagged")
    return counters


def _outcome_counters(outcome: Any, code: Any, sent: Any = None) -> list[str]:
    if outcome == "confirmation_required":
        return ["confirmation_requested"]
    if outcome == "failed" and sent is False:
        return ["failed", "failed_nothing_left"]
    if outcome in ("executed", "failed", "denied", "expired"):
        return [str(outcome)]
    if code == "POLICY_DISABLED":
        return ["refused_by_policy"]
    if code == "FETCH_TARGET_REJECTED":
        return ["rejected_target"]
    return ["refused_other"]


def _lost(losses: list[tuple[dict[str, Any], float | None]], since: float) -> int:
    """Records dropped while unwritable, by the ``lost`` records of the window (a ``lost``
    record without a readable time counts: its loss is not placed, but it happened)."""
    total = 0
    for record, wall in losses:
        count = record.get("lost")
        if isinstance(count, int) and count > 0 and (wall is None or wall >= since):
            total += count
    return total


def _usable(record: dict[str, Any], wall: float | None) -> bool:
    """A record with the fields every count needs; any other line counts as unreadable."""
    fields_ok = isinstance(record.get("capability"), str) and isinstance(record.get("outcome"), str)
    return fields_ok and wall is not None


def _confirmation(record: dict[str, Any]) -> Any:
    classification = record.get("classification")
    return classification.get("confirmation") if isinstance(classification, dict) else None


def _locality(record: dict[str, Any]) -> Any:
    classification = record.get("classification")
    return classification.get("locality") if isinstance(classification, dict) else None
