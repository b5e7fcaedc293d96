"""``sovereign audit`` says what the counts cannot: a call whose outcome is unknown."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sovereign.cli import main
from sovereign.executor import AuditLog, OutcomeKind, Stage

from .test_audit_summary import HEALTH, SEARCH


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_a_search_cut_off_by_a_crash_is_shown_as_may_have_left(tmp_path):
    log = AuditLog(tmp_path)
    ask = log.record(SEARCH, version=1, stage=Stage.CONFIRM,
                     outcome=OutcomeKind.CONFIRMATION_REQUIRED)
    log.begin(SEARCH, version=1, asked=ask)  # killed mid-call
    started = log.begin(HEALTH, version=1)
    log.record(HEALTH, version=1, stage=Stage.SHAPE, outcome=OutcomeKind.EXECUTED,
               started=started)
    with (tmp_path / "capabilities" / "audit.jsonl").open("ab") as handle:
        handle.write(b'{"torn')
    AuditLog(tmp_path).prepare()
    table = run("audit", "--data-dir", str(tmp_path))
    assert table.exit_code == 0, table.output
    assert "web.search: 1 call may have left — outcome unknown" in table.output
    assert "1 torn line was set aside in audit.jsonl.corrupt." in table.output
    header, search = (line.split() for line in table.output.splitlines()
                      if line.startswith(("capability ", "web.search ")))
    assert dict(zip(header, search, strict=True))["unknown"] == "1"
    summary = json.loads(run("audit", "--json", "--data-dir", str(tmp_path)).output)
    assert summary["may_have_left"] == {"web.search": 1}
    assert summary["capabilities"]["system.health"]["executed"] == 1


def test_records_lost_while_the_log_was_unwritable_are_named_under_the_table(tmp_path):
    log = AuditLog(tmp_path)
    log.record(HEALTH, version=1, stage=Stage.SHAPE, outcome=OutcomeKind.EXECUTED)
    lost = {"time": "2026-12-01T00:00:00Z", "outcome": "lost", "lost": 7, "capability": None}
    lost["time"] = json.loads((tmp_path / "capabilities" / "audit.jsonl").read_text())["time"]
    with (tmp_path / "capabilities" / "audit.jsonl").open("a") as handle:
        handle.write(json.dumps(lost) + "\n")
    table = run("audit", "--data-dir", str(tmp_path))
    assert table.exit_code == 0, table.output
    assert "7 records were lost while the audit log could not be written" in table.output
    assert "unreadable" not in table.output
