"""The operations view: counts per capability and outcome from real audit lines."""

from __future__ import annotations

import json
import time

import pytest

from sovereign.executor import AuditLog, Capability, Effect, ErrorCode, Locality, OutcomeKind, Stage
from sovereign.service.audit_summary import COUNTERS, audit_path, summarize

SCHEMA = {"type": "object"}


async def _noop(arguments):
    return {}


def _capability(name: str, locality: Locality) -> Capability:
    return Capability(
        name=name,
        version=1,
        description="d",
        arguments_schema=SCHEMA,
        result_schema=SCHEMA,
        effect=Effect.READ_ONLY,
        locality=locality,
        execute=_noop,
    )


SEARCH = _capability("web.search", Locality.EXTERNAL)
FETCH = _capability("web.fetch", Locality.EXTERNAL)
HEALTH = _capability("system.health", Locality.LOCAL)


def _record(log: AuditLog, cap, stage, outcome, code=None):
    log.record(cap, version=1, stage=stage, outcome=outcome, error_code=code)


ASKED = (OutcomeKind.CONFIRMATION_REQUIRED, ErrorCode.CONFIRMATION_REQUIRED)


def _write_flow(log: AuditLog) -> None:
    # search: asked twice; one approved and executed, one denied
    _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    _record(log, SEARCH, Stage.SHAPE, OutcomeKind.EXECUTED)
    _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    _record(log, SEARCH, Stage.CONFIRM, OutcomeKind.DENIED)
    _record(log, SEARCH, Stage.POLICY, OutcomeKind.REFUSED, ErrorCode.POLICY_DISABLED)
    # fetch: asked, approved, target rejected; asked, expired; a replayed token
    _record(log, FETCH, Stage.CONFIRM, *ASKED)
    _record(log, FETCH, Stage.EXECUTE, OutcomeKind.REFUSED, ErrorCode.FETCH_TARGET_REJECTED)
    _record(log, FETCH, Stage.CONFIRM, *ASKED)
    _record(log, FETCH, Stage.CONFIRM, OutcomeKind.EXPIRED)
    _record(log, FETCH, Stage.CONFIRM, OutcomeKind.REFUSED, ErrorCode.INVALID_CONFIRMATION)
    # health: automatic; one executed, one timed out, one bad arguments
    _record(log, HEALTH, Stage.SHAPE, OutcomeKind.EXECUTED)
    _record(log, HEALTH, Stage.EXECUTE, OutcomeKind.FAILED, ErrorCode.TIMEOUT)
    _record(log, HEALTH, Stage.VALIDATE, OutcomeKind.REFUSED, ErrorCode.INVALID_ARGUMENTS)
    _record(log, None, Stage.RESOLVE, OutcomeKind.REFUSED, ErrorCode.UNKNOWN_CAPABILITY)


def _counts(**values: int) -> dict[str, int]:
    return {counter: values.get(counter, 0) for counter in COUNTERS}


def test_counts_per_capability_and_outcome(tmp_path):
    _write_flow(AuditLog(tmp_path))
    summary = summarize(audit_path(tmp_path), days=7)
    assert summary["capabilities"] == {
        "system.health": _counts(proposed=3, executed=1, failed=1, refused_other=1),
        "unknown": _counts(proposed=1, refused_other=1),
        "web.fetch": _counts(
            proposed=2,
            confirmation_requested=2,
            approved=1,
            rejected_target=1,
            expired=1,
            refused_other=1,
        ),
        "web.search": _counts(
            proposed=3,
            confirmation_requested=2,
            approved=1,
            executed=1,
            denied=1,
            refused_by_policy=1,
        ),
    }
    assert summary["totals"]["proposed"] == 9
    assert summary["totals"]["approved"] == 2
    assert summary["unreadable_lines"] == 0


def test_window_excludes_older_events_and_counts_broken_lines(tmp_path):
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    now = time.time()
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 3 * 86400))
    recent = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 3600))
    line = {
        "capability": "system.health",
        "version": 1,
        "stage": "shape",
        "outcome": "executed",
        "error_code": None,
        "classification": {"confirmation": "automatic"},
    }
    with path.open("w") as handle:
        handle.write(json.dumps({**line, "time": old}) + "\n")
        handle.write(json.dumps({**line, "time": recent}) + "\n")
        handle.write("{torn line\n")
        handle.write(json.dumps({"time": "yesterday"}) + "\n")
    assert summarize(path, days=1, now=now)["totals"]["executed"] == 1
    three_days = summarize(path, days=4, now=now)
    assert three_days["totals"]["executed"] == 2
    assert three_days["unreadable_lines"] == 2


def test_absent_log_gives_zero_counts(tmp_path):
    summary = summarize(audit_path(tmp_path), days=30)
    assert summary["capabilities"] == {}
    assert summary["totals"] == _counts()


def test_summary_never_carries_text_beyond_the_fixed_fields(tmp_path):
    """Even if a line held a query (it never should), the summary does not repeat it."""
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    canary = "secret-query-canary"
    path.write_text(
        json.dumps(
            {
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "capability": "web.search",
                "stage": "shape",
                "outcome": "executed",
                "error_code": None,
                "query": canary,
                "url": f"https://example.org/{canary}",
                "classification": {"confirmation": "required"},
            }
        )
        + "\n"
    )
    summary = summarize(path, days=1)
    assert canary not in json.dumps(summary)
    assert summary["totals"]["executed"] == 1


@pytest.mark.parametrize("days", [0, -1, 3651])
def test_days_out_of_range_is_rejected(tmp_path, days):
    with pytest.raises(ValueError):
        summarize(audit_path(tmp_path), days=days)
