"""Counts per capability and outcome from the audit log, for operators (issue: operations view).

The figures tell whether the confirmation flow is usable: how often the model
proposes a call, how often the household is asked, approves, denies or lets a
request expire, and what policy, the address guard and failures stopped. Only
the fixed fields of each audit line are read (capability, classification,
stage, outcome, error code, time); the log never holds query or URL text, and
this reader would not keep it if it did.
"""

from __future__ import annotations

import calendar
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sovereign.executor.audit import AUDIT_FILENAME

COUNTERS = (
    "proposed",
    "confirmation_requested",
    "approved",
    "denied",
    "expired",
    "refused_by_policy",
    "rejected_target",
    "refused_other",
    "failed",
    "executed",
)
MAX_DAYS = 3650


def audit_path(data_dir: Path) -> Path:
    """``<data>/capabilities/audit.jsonl``."""
    return Path(data_dir) / "capabilities" / AUDIT_FILENAME


def summarize(path: Path, *, days: int, now: float | None = None) -> dict[str, Any]:
    """Count audit events of the last ``days`` days.

    Args:
        path: the audit file (absent means no events).
        days: window length in days, 1..3650.
        now: the end of the window as a Unix time in seconds (default: now).

    Returns:
        ``{"days", "since" (ISO 8601 UTC), "capabilities": {name: {counter: int}},
        "totals": {counter: int}, "unreadable_lines": int}`` with the counters of
        :data:`COUNTERS`. ``proposed`` counts the model's proposals; approvals,
        denials and expiries are the household's answers to
        ``confirmation_requested``.

    Raises:
        ValueError: ``days`` out of range.
        OSError: the file exists but cannot be read.
    """
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")
    since = (time.time() if now is None else now) - days * 86400
    per_capability: dict[str, dict[str, int]] = {}
    unreadable = 0
    for event in _events(path):
        if event is None:
            unreadable += 1
            continue
        if event["time"] < since:
            continue
        counts = per_capability.setdefault(event["capability"], dict.fromkeys(COUNTERS, 0))
        for counter in classify(event):
            counts[counter] += 1
    totals = {c: sum(counts[c] for counts in per_capability.values()) for c in COUNTERS}
    return {
        "days": days,
        "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)),
        "capabilities": dict(sorted(per_capability.items())),
        "totals": totals,
        "unreadable_lines": unreadable,
    }


def classify(event: dict[str, Any]) -> list[str]:
    """The counters one audit event adds to (see :func:`summarize`)."""
    outcome, code, stage = event["outcome"], event["error_code"], event["stage"]
    if outcome == "executing":
        return []  # its outcome record counts
    answered = outcome in ("denied", "expired") or code == "INVALID_CONFIRMATION"
    approved = event["confirmation"] == "required" and stage in ("execute", "shape")
    counters = [] if answered or approved else ["proposed"]
    if approved:
        counters.append("approved")
    counters.extend(_outcome_counters(outcome, code))
    return counters


def _outcome_counters(outcome: str, code: str | None) -> list[str]:
    if outcome == "confirmation_required":
        return ["confirmation_requested"]
    if outcome in ("executed", "failed", "denied", "expired"):
        return [outcome]
    if code == "POLICY_DISABLED":
        return ["refused_by_policy"]
    if code == "FETCH_TARGET_REJECTED":
        return ["rejected_target"]
    return ["refused_other"]


def _events(path: Path) -> Iterable[dict[str, Any] | None]:
    """Each line reduced to the fixed fields, or ``None`` when it cannot be read."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            yield _reduce(line)


def _reduce(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
        classification = record.get("classification") or {}
        event = {
            "time": calendar.timegm(time.strptime(record["time"], "%Y-%m-%dT%H:%M:%SZ")),
            "capability": str(record["capability"])[:64],
            "outcome": str(record["outcome"]),
            "error_code": record.get("error_code"),
            "stage": record.get("stage"),
            "confirmation": classification.get("confirmation"),
        }
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return event
