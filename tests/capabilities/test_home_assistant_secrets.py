"""The Home Assistant token never reaches results, messages, logs or the audit file."""

from __future__ import annotations

import json
import logging
import os

import pytest

from sovereign.capabilities import home_assistant
from sovereign.capabilities.home_assistant import home_assistant_policy, settings_problem
from sovereign.executor import AuditLog, Executor, Registry, TurnState
from tests.fakes.home_assistant import FakeHomeAssistant

CANARY = "canary-Tok-91b2e6"
ENABLED = {"home_assistant_enabled": True}
CALLS = [
    ("home_assistant.list_entities", {}),
    ("home_assistant.get_state", {"entity_id": "sensor.kitchen_temperature"}),
    ("home_assistant.get_state", {"entity_id": "light.attic"}),
    ("home_assistant.get_state", {"entity_id": "sun.sun"}),
]


def write_settings(data_dir, **settings):
    path = data_dir / "home-assistant.json"
    path.write_text(json.dumps(settings))
    os.chmod(path, 0o600)


@pytest.mark.parametrize("scenario", ["success", "rejected", "redirect", "unreachable"])
async def test_the_token_never_leaves_the_capability(tmp_path, caplog, scenario):
    caplog.set_level(logging.DEBUG)
    registry = Registry()
    home_assistant.register(registry, data_dir=tmp_path)
    executor = Executor(registry, audit=AuditLog(tmp_path))
    with FakeHomeAssistant(token=CANARY) as fake:
        base_url = fake.base_url
        if scenario == "unreachable":
            with FakeHomeAssistant() as gone:
                base_url = gone.base_url
        fake.redirect_to = fake.base_url + "/elsewhere" if scenario == "redirect" else None
        token = "x" + CANARY if scenario == "rejected" else CANARY
        allowlist = ["sensor.kitchen_temperature", "light.attic"]
        write_settings(tmp_path, enabled=True, base_url=base_url, token=token, allowlist=allowlist)
        outcomes = []
        for name, arguments in CALLS:
            approval = executor.confirmations.issue(name, 1, arguments)
            outcomes.append(
                await executor.invoke(
                    name,
                    1,
                    arguments,
                    policy=ENABLED,
                    turn_state=TurnState(),
                    confirmation_token=approval,
                )
            )
        if scenario == "success":
            assert fake.requests and all(
                r.headers["authorization"] == f"Bearer {CANARY}" for r in fake.requests
            )
    if scenario == "success":
        assert [outcome.ok for outcome in outcomes] == [True, True, False, False]
    for outcome in outcomes:
        assert CANARY not in json.dumps(outcome.result) + outcome.message + repr(outcome)
    audit = (tmp_path / "capabilities" / "audit.jsonl").read_text()
    outcomes = audit.count("\n") - audit.count('"outcome":"executing"')
    assert outcomes == len(CALLS)
    assert CANARY not in audit
    assert CANARY not in caplog.text


@pytest.mark.parametrize("token", [CANARY + " with a space", CANARY + "\n", 42, CANARY + "é"])
def test_an_invalid_token_is_reported_without_quoting_it(tmp_path, caplog, token):
    caplog.set_level(logging.DEBUG)
    write_settings(tmp_path, enabled=True, base_url="http://h", token=token, allowlist=[])
    problem = settings_problem(tmp_path)
    assert problem and "token" in problem
    assert CANARY not in problem
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}
    assert CANARY not in caplog.text


def test_settings_repr_hides_the_token(tmp_path):
    write_settings(tmp_path, enabled=True, base_url="http://h", token=CANARY, allowlist=[])
    assert CANARY not in repr(home_assistant.load_settings(tmp_path))
