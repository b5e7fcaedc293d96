"""``sovereign doctor`` checks the audit log: writable, readable line by line, room to grow."""

from __future__ import annotations

import asyncio

from sovereign import doctor
from sovereign.executor import AuditLog, OutcomeKind, Stage
from sovereign.service.audit_check import check_audit_log
from tests.fakes.tmpfs import fill, mounted_tmpfs, remount

from .test_audit_summary import HEALTH


def findings(data_dir):
    return {name: (ok, detail, fix) for name, ok, detail, fix in check_audit_log(data_dir)}


def record(data_dir):
    AuditLog(data_dir).record(HEALTH, version=1, stage=Stage.SHAPE, outcome=OutcomeKind.EXECUTED)


def test_a_healthy_log_passes_all_three(tmp_path):
    record(tmp_path)
    result = findings(tmp_path)
    assert all(ok for ok, _, _ in result.values()), result
    assert "1 record, every line readable" in result["audit log readable"][1]
    assert "GB free" in result["data filesystem space"][1]


def test_no_log_yet_checks_the_directory_it_will_be_created_in(tmp_path):
    result = findings(tmp_path / "data")
    assert result["audit log writable"][0] is True
    assert "created at the first call" in result["audit log writable"][1]
    assert not list(tmp_path.iterdir()), "the check left a file behind"


def test_a_torn_last_line_fails_and_says_a_restart_sets_it_aside(tmp_path):
    record(tmp_path)
    with (tmp_path / "capabilities" / "audit.jsonl").open("ab") as handle:
        handle.write(b'{"torn')
    ok, detail, fix = findings(tmp_path)["audit log readable"]
    assert not ok and "torn line" in detail and "restart the service" in fix
    AuditLog(tmp_path).prepare()
    ok, detail, _ = findings(tmp_path)["audit log readable"]
    assert ok and "1 torn line was set aside in audit.jsonl.corrupt" in detail


def test_unreadable_lines_fail_with_their_count(tmp_path):
    record(tmp_path)
    with (tmp_path / "capabilities" / "audit.jsonl").open("ab") as handle:
        handle.write(b"not json\n")
    ok, detail, fix = findings(tmp_path)["audit log readable"]
    assert not ok and "1 of 2 lines" in detail and "mv " in fix


def test_a_full_data_filesystem_fails_writable_and_space(tmp_path):
    with mounted_tmpfs(tmp_path / "data", "256k") as data_dir:
        fill(data_dir)
        result = findings(data_dir)
    assert result["data filesystem space"][0] is False
    assert "writes will soon be refused" in result["data filesystem space"][1]
    ok, detail, fix = result["audit log writable"]
    assert not ok and "the data filesystem is full" in detail and "free space" in fix


def test_a_read_only_data_filesystem_fails_writable(tmp_path):
    with mounted_tmpfs(tmp_path / "data", "256k") as data_dir:
        record(data_dir)
        remount(data_dir, "ro")
        try:
            ok, detail, _ = findings(data_dir)["audit log writable"]
        finally:
            remount(data_dir, "rw")
    assert not ok and "read-only" in detail and "AUDIT_UNAVAILABLE" in detail


def test_doctor_runs_the_audit_check(tmp_path):
    assert doctor.check_audit in doctor.CHECKS
    config = doctor.DoctorConfig(data_dir=tmp_path, probe=False)
    names = [finding.check for finding in asyncio.run(doctor.check_audit(config))]
    assert names == ["audit log writable", "audit log readable", "data filesystem space"]


def test_the_space_line_s_share_is_of_the_whole_filesystem(monkeypatch, tmp_path):
    import shutil

    class Reserved:  # 161.6 GB kept back: free and files leave it out of both
        total, used, free = 270_553_174_016, 26_368_274_432, 82_576_019_456

    monkeypatch.setattr(shutil, "disk_usage", lambda path: Reserved)
    detail = findings(tmp_path)["data filesystem space"][1]
    assert detail.startswith("82.6 GB free of 270.6 GB (70% used)")  # 188.0 of 270.6
