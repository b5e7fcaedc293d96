"""The Pi-hole app password and session id never reach results, messages, logs or the audit file."""

from __future__ import annotations

import json
import logging
import os

import pytest

from sovereign.capabilities import pihole
from sovereign.executor import AuditLog, Executor, Registry, TurnState
from tests.fakes.pihole import FakePihole

CANARY = "canary-Pw-7f3c9e1d"


def leaked(text: str, secrets: set[str]) -> set[str]:
    return {secret for secret in secrets if secret and secret in text}


@pytest.mark.parametrize(
    "scenario", ["success", "renewal", "wrong_password", "rejected_sessions", "unreachable"]
)
async def test_password_and_sid_never_leave_the_capability(tmp_path, caplog, scenario):
    caplog.set_level(logging.DEBUG)
    registry = Registry()
    pihole.register(registry, data_dir=tmp_path)
    executor = Executor(registry, audit=AuditLog(tmp_path))
    with FakePihole(password=CANARY) as fake:
        base_url = fake.base_url
        if scenario == "unreachable":
            with FakePihole() as gone:
                base_url = gone.base_url
        password = "wrong-" + CANARY if scenario == "wrong_password" else CANARY
        fake.reject_all_sessions = scenario == "rejected_sessions"
        settings = tmp_path / "pihole.json"
        settings.write_text(json.dumps({"password": password, "base_url": base_url}))
        os.chmod(settings, 0o600)
        outcomes = []
        for _ in range(2):
            outcomes.append(
                await executor.invoke("pihole.summary", 1, {}, policy={}, turn_state=TurnState())
            )
            if scenario == "renewal":
                fake.expire_sessions()
        seen_sids = set(fake.issued_sids)
    if scenario in ("success", "renewal"):
        assert all(outcome.ok for outcome in outcomes)
        assert len(seen_sids) == (2 if scenario == "renewal" else 1)
    secrets = {CANARY, *seen_sids}
    for outcome in outcomes:
        assert not leaked(json.dumps(outcome.result) + outcome.message + repr(outcome), secrets)
    audit = (tmp_path / "capabilities" / "audit.jsonl").read_text()
    assert audit.count("\n") - audit.count('"outcome":"executing"') == 2  # outcome records
    assert not leaked(audit, secrets)
    assert not leaked(caplog.text, secrets)


def test_settings_repr_hides_the_password(tmp_path):
    path = tmp_path / "pihole.json"
    path.write_text(json.dumps({"password": CANARY}))
    os.chmod(path, 0o600)
    assert CANARY not in repr(pihole.load_settings(tmp_path))
