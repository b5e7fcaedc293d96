"""``sovereign policy``, ``audit`` and ``passwd`` through click's runner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sovereign.cli import main
from sovereign.executor import AuditLog, OutcomeKind, Stage
from sovereign.service.owner import OwnerAccount


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_policy_commands_write_the_file_the_service_reads(tmp_path):
    assert run("policy", "show", "--data-dir", str(tmp_path)).output == "web search: off\n"
    assert run("policy", "enable-web-search", "--data-dir", str(tmp_path)).exit_code == 0
    stored = json.loads((tmp_path / "capabilities" / "policy.json").read_text())
    assert stored == {"web_search_enabled": True}
    assert run("policy", "show", "--data-dir", str(tmp_path)).output == "web search: on\n"
    run("policy", "disable-web-search", "--data-dir", str(tmp_path))
    assert run("policy", "show", "--data-dir", str(tmp_path)).output == "web search: off\n"


def test_policy_show_reports_a_corrupt_file_and_fails(tmp_path):
    path = tmp_path / "capabilities" / "policy.json"
    path.parent.mkdir()
    path.write_text("[1, 2")
    result = run("policy", "show", "--data-dir", str(tmp_path))
    assert result.exit_code == 1
    assert "web search: off" in result.output and "not valid JSON" in result.output


def test_audit_command_prints_counts_and_json(tmp_path):
    from .test_audit_summary import SEARCH

    log = AuditLog(tmp_path)
    log.record(SEARCH, version=1, stage=Stage.CONFIRM, outcome=OutcomeKind.DENIED)
    table = run("audit", "--data-dir", str(tmp_path))
    assert table.exit_code == 0
    assert "web.search" in table.output
    summary = json.loads(run("audit", "--json", "--days", "2", "--data-dir", str(tmp_path)).output)
    assert summary["capabilities"]["web.search"]["denied"] == 1
    assert summary["days"] == 2
    assert run("audit", "--days", "0", "--data-dir", str(tmp_path)).exit_code == 2


def test_passwd_sets_a_password_the_service_accepts(tmp_path):
    password = "a long enough password"
    result = run("passwd", "--data-dir", str(tmp_path), input=f"{password}\n{password}\n")
    assert result.exit_code == 0, result.output
    assert OwnerAccount(tmp_path).verify(password)


def test_passwd_refuses_a_short_password(tmp_path):
    result = CliRunner().invoke(main, ["passwd", "--data-dir", str(tmp_path)], input="abc\nabc\n")
    assert result.exit_code == 1
    assert "at least 8 characters" in result.output
    assert not OwnerAccount(tmp_path).is_set_up()


async def test_doctor_reports_a_corrupt_policy_file_with_a_fix(tmp_path):
    from sovereign.doctor import DoctorConfig, check_policy

    [healthy] = await check_policy(DoctorConfig(data_dir=tmp_path))
    assert healthy.ok and "web search is off" in healthy.detail
    path = tmp_path / "capabilities" / "policy.json"
    path.parent.mkdir()
    path.write_text('{"web_search_enabled": "on"}')
    [finding] = await check_policy(DoctorConfig(data_dir=tmp_path))
    assert not finding.ok
    assert "off until it is fixed" in finding.detail
    assert "sovereign policy" in finding.fix
