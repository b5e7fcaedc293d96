"""The operations view: counts per capability and outcome from real audit lines."""

from __future__ import annotations

import json
import time

import pytest

from sovereign.executor import (
    TTL_SECONDS,
    AuditLog,
    Capability,
    Effect,
    ErrorCode,
    Locality,
    OutcomeKind,
    Stage,
)
from sovereign.service.audit_summary import COUNTERS, audit_path, summarize
from sovereign.service.audit_time import Now
from tests.fakes.clock import FakeClock

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


def _record(log: AuditLog, cap, stage, outcome, code=None, **links):
    return log.record(cap, version=1, stage=stage, outcome=outcome, error_code=code, **links)


ASKED = (OutcomeKind.CONFIRMATION_REQUIRED, ErrorCode.CONFIRMATION_REQUIRED)


def _approved_run(log, cap, outcome=OutcomeKind.EXECUTED, code=None, stage=Stage.SHAPE):
    """An ask, its approval, the executing record and the outcome, linked as the executor does."""
    ask = _record(log, cap, Stage.CONFIRM, *ASKED)
    started = log.begin(cap, version=1, asked=ask)
    _record(log, cap, stage, outcome, code, asked=ask, started=started)


def _write_flow(log: AuditLog) -> None:
    # search: asked twice; one approved and executed, one denied; one refused by policy
    _approved_run(log, SEARCH)
    ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    _record(log, SEARCH, Stage.CONFIRM, OutcomeKind.DENIED, asked=ask)
    _record(log, SEARCH, Stage.POLICY, OutcomeKind.REFUSED, ErrorCode.POLICY_DISABLED)
    # fetch: asked, approved, target rejected; asked and expired; asked, approved too late
    _approved_run(
        log, FETCH, OutcomeKind.REFUSED, ErrorCode.FETCH_TARGET_REJECTED, Stage.EXECUTE
    )
    ask = _record(log, FETCH, Stage.CONFIRM, *ASKED)
    _record(log, FETCH, Stage.CONFIRM, OutcomeKind.EXPIRED, asked=ask)
    ask = _record(log, FETCH, Stage.CONFIRM, *ASKED)
    _record(log, FETCH, Stage.CONFIRM, OutcomeKind.REFUSED, ErrorCode.INVALID_CONFIRMATION,
            asked=ask)
    # health: automatic; one executed, one timed out, one bad arguments
    started = log.begin(HEALTH, version=1)
    _record(log, HEALTH, Stage.SHAPE, OutcomeKind.EXECUTED, started=started)
    started = log.begin(HEALTH, version=1)
    _record(log, HEALTH, Stage.EXECUTE, OutcomeKind.FAILED, ErrorCode.TIMEOUT, started=started)
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
            proposed=3,
            confirmation_requested=3,
            approved=1,
            rejected_target=1,
            expired=2,
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
    assert summary["totals"]["proposed"] == 10
    assert summary["totals"]["approved"] == 2
    assert summary["unreadable_lines"] == summary["set_aside_lines"] == 0
    assert summary["may_have_left"] == {} and summary["clock_jumps"] == 0


def test_a_call_that_started_and_never_ended_may_have_left(tmp_path):
    log = AuditLog(tmp_path)
    ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    log.begin(SEARCH, version=1, asked=ask)  # then the service was killed
    log.begin(HEALTH, version=1)
    summary = summarize(audit_path(tmp_path), days=1)
    assert summary["capabilities"]["web.search"] == _counts(
        proposed=1, confirmation_requested=1, approved=1, outcome_unknown=1
    )
    assert summary["capabilities"]["system.health"] == _counts(proposed=1, outcome_unknown=1)
    assert summary["may_have_left"] == {"web.search": 1}


def test_an_unanswered_approval_waits_for_the_token_lifetime_then_counts_as_expired(tmp_path):
    clock = FakeClock(5000.0)
    log = AuditLog(tmp_path, wall=lambda: 1_800_000_000 + clock(), uptime=clock, boot_id="b1")
    _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    def now(after):
        return Now(1_800_000_000 + 5000.0 + after, 5000.0 + after, "b1")

    waiting = summarize(audit_path(tmp_path), days=1, now=now(60))
    assert waiting["totals"] == _counts(proposed=1, confirmation_requested=1, awaiting=1)
    late = summarize(audit_path(tmp_path), days=1, now=now(TTL_SECONDS + 1))
    assert late["totals"] == _counts(proposed=1, confirmation_requested=1, expired=1)


def test_a_restart_closure_yields_to_the_real_answer(tmp_path):
    log = AuditLog(tmp_path)
    ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    AuditLog(tmp_path).prepare(close_open_asks=True)  # another process started meanwhile
    started = log.begin(SEARCH, version=1, asked=ask)
    _record(log, SEARCH, Stage.SHAPE, OutcomeKind.EXECUTED, asked=ask, started=started)
    assert summarize(audit_path(tmp_path), days=1)["totals"] == _counts(
        proposed=1, confirmation_requested=1, approved=1, executed=1
    )


def test_torn_lines_set_aside_are_reported(tmp_path):
    log = AuditLog(tmp_path)
    _record(log, HEALTH, Stage.SHAPE, OutcomeKind.EXECUTED)
    with audit_path(tmp_path).open("ab") as handle:
        handle.write(b'{"torn')
    AuditLog(tmp_path).prepare()
    summary = summarize(audit_path(tmp_path), days=1)
    assert summary["set_aside_lines"] == 1 and summary["unreadable_lines"] == 0
    assert summary["totals"]["executed"] == 1


def test_records_lost_while_unwritable_are_reported_not_counted_as_unreadable(tmp_path):
    import errno
    import os

    from sovereign.executor.audit import BACKLOG_LINES
    from sovereign.executor.audit_file import FileOps

    full = {"on": False}

    def write(fd, data):
        if full["on"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    log = AuditLog(tmp_path, ops=FileOps(write=write, fsync=os.fsync))
    full["on"] = True
    for _ in range(BACKLOG_LINES + 5):
        _record(log, HEALTH, Stage.SHAPE, OutcomeKind.EXECUTED)
    full["on"] = False
    _record(log, HEALTH, Stage.SHAPE, OutcomeKind.EXECUTED)
    summary = summarize(audit_path(tmp_path), days=1)
    assert summary["lost_records"] == 5
    assert summary["unreadable_lines"] == 0
    assert summary["totals"]["executed"] == BACKLOG_LINES + 1


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


def test_a_failure_before_anything_was_sent_is_counted_apart_with_the_owners_repair(tmp_path):
    log = AuditLog(tmp_path)
    for sent in (False, False, None):
        ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
        started = log.begin(SEARCH, version=1, asked=ask)
        _record(log, SEARCH, Stage.EXECUTE, OutcomeKind.FAILED, ErrorCode.EXECUTION_FAILED,
                asked=ask, started=started, reason="searxng: unreachable", sent=sent)
    ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
    started = log.begin(SEARCH, version=1, asked=ask)
    _record(log, SEARCH, Stage.EXECUTE, OutcomeKind.FAILED, ErrorCode.TIMEOUT, asked=ask,
            started=started)  # no reason: no known repair
    summary = summarize(audit_path(tmp_path), days=1)
    counts = summary["capabilities"]["web.search"]
    assert counts["failed"] == 4 and counts["failed_nothing_left"] == 2
    [repair] = summary["repairs"]
    assert repair["capability"] == "web.search" and repair["count"] == 3
    assert "start-searxng" in repair["repair"] and "sovereign doctor" in repair["repair"]
