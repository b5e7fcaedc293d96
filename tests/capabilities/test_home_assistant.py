"""Home Assistant read-only pair against a fake server: allowlist, settings, no redirects."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from sovereign.capabilities import home_assistant
from sovereign.capabilities.home_assistant import home_assistant_policy, settings_problem
from sovereign.executor import (
    AuditLog,
    Confirmation,
    ErrorCode,
    Executor,
    OutcomeKind,
    Registry,
    TurnState,
)
from tests.fakes.home_assistant import FakeHomeAssistant

TOKEN = "long-lived-token"
ENABLED = {"home_assistant_enabled": True}
ALLOWLIST = ["sensor.kitchen_temperature", "lock.front_door", "camera.porch", "light.attic"]
LIST = "home_assistant.list_entities"
GET = "home_assistant.get_state"


def write_settings(data_dir: Path, mode: int = 0o600, **overrides: object) -> Path:
    settings = {"enabled": True, "base_url": "http://127.0.0.1:1", "token": TOKEN}
    settings["allowlist"] = ALLOWLIST
    settings.update(overrides)
    path = data_dir / "home-assistant.json"
    path.write_text(json.dumps(settings))
    os.chmod(path, mode)
    return path


@pytest.fixture
def fake():
    with FakeHomeAssistant(token=TOKEN) as server:
        yield server


@pytest.fixture
def registry(tmp_path):
    registry = Registry()
    home_assistant.register(registry, data_dir=tmp_path)
    return registry


@pytest.fixture
def executor(registry, tmp_path):
    return Executor(registry, audit=AuditLog(tmp_path))


async def approved(executor, name, arguments, policy=ENABLED):
    """Invoke as if the household approved exactly this call."""
    token = executor.confirmations.issue(name, 1, arguments)
    return await executor.invoke(
        name, 1, arguments, policy=policy, turn_state=TurnState(), confirmation_token=token
    )


@pytest.mark.parametrize("name", [LIST, GET])
def test_both_are_read_only_external_and_need_confirmation(registry, name):
    capability = registry.get(name, 1)
    assert capability.classification() == {
        "effect": "read_only",
        "locality": "external",
        "confirmation": "required",
    }
    assert capability.confirmation is Confirmation.REQUIRED
    assert capability.policy_key == "home_assistant_enabled"


async def test_list_asks_for_confirmation_before_contacting_home_assistant(
    fake, executor, tmp_path
):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await executor.invoke(LIST, 1, {}, policy=ENABLED, turn_state=TurnState())
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert fake.requests == []


async def test_list_returns_only_allowlisted_entities(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, LIST, {})
    assert outcome.ok, outcome.message
    ids = [entity["entity_id"] for entity in outcome.result["entities"]]
    assert ids == ["camera.porch", "lock.front_door", "sensor.kitchen_temperature"]
    assert outcome.result["entity_count"] == 3
    assert outcome.result["missing_entity_ids"] == ["light.attic"]
    kitchen = outcome.result["entities"][2]
    assert kitchen == {
        "entity_id": "sensor.kitchen_temperature",
        "domain": "sensor",
        "name": "Kitchen temperature",
        "state": "21.4",
        "friendly_name": "Kitchen temperature",
        "unit_of_measurement": "°C",
        "device_class": "temperature",
        "last_changed": "2024-01-05T07:12:03.118540+00:00",
    }
    assert [(r.method, r.path) for r in fake.requests] == [("GET", "/api/states")]
    assert fake.requests[0].headers["authorization"] == f"Bearer {TOKEN}"


async def test_list_filters_by_domain_within_the_allowlist(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, LIST, {"domain": "lock"})
    assert [e["entity_id"] for e in outcome.result["entities"]] == ["lock.front_door"]
    assert outcome.result["missing_entity_ids"] == []
    outcome = await approved(executor, LIST, {"domain": "sun"})
    assert outcome.result["entities"] == []


async def test_get_state_returns_the_entity_with_its_attributes(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, GET, {"entity_id": "sensor.kitchen_temperature"})
    assert outcome.ok, outcome.message
    entity = outcome.result["entity"]
    assert entity["state"] == "21.4"
    assert entity["attributes"] == {"device_class": "temperature", "state_class": "measurement"}
    assert [r.path for r in fake.requests] == ["/api/states/sensor.kitchen_temperature"]


async def test_get_state_drops_credential_bearing_attributes(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, GET, {"entity_id": "camera.porch"})
    assert outcome.ok, outcome.message
    attributes = outcome.result["entity"]["attributes"]
    assert "access_token" not in attributes and "entity_picture" not in attributes
    assert attributes["brand"] == "Example"
    assert "camera-access-token" not in json.dumps(outcome.result)


async def test_get_state_of_an_id_off_the_allowlist_is_refused_without_contact(
    fake, executor, tmp_path
):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await executor.invoke(
        GET, 1, {"entity_id": "sun.sun"}, policy=ENABLED, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert "allowlist" in outcome.message
    assert fake.requests == []


async def test_an_id_removed_from_the_allowlist_after_approval_is_refused(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    arguments = {"entity_id": "lock.front_door"}
    token = executor.confirmations.issue(GET, 1, arguments)
    write_settings(tmp_path, base_url=fake.base_url, allowlist=["sensor.kitchen_temperature"])
    outcome = await executor.invoke(
        GET, 1, arguments, policy=ENABLED, turn_state=TurnState(), confirmation_token=token
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert fake.requests == []


@pytest.mark.parametrize(
    "entity_id",
    ["../config", "sensor.kitchen_temperature/../x", "sensor", "Sensor.x", "lock.front_door\n"],
)
async def test_entity_ids_outside_home_assistants_form_are_invalid(
    fake, executor, tmp_path, entity_id
):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await executor.invoke(
        GET, 1, {"entity_id": entity_id}, policy=ENABLED, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert fake.requests == []


@pytest.mark.parametrize(
    ("name", "arguments", "words"),
    [  # a trailing newline passes JSON Schema's "$"; the visible rule names it
        (GET, {"entity_id": "lock.front_door\n"}, "a line break (U+000A LINE FEED) at position 16"),
        (LIST, {"domain": "lock\n"}, "a line break (U+000A LINE FEED) at position 5"),
        # anything else invisible fails the schema's pattern first, shown escaped
        (GET, {"entity_id": "lock.front\u200b_door"}, "\\u200b"),
        (GET, {"entity_id": "lock.front_door\u202e"}, "\\u202e"),
        (GET, {"entity_id": "lock.front_door\U000e0041"}, "\\U000e0041"),
        (LIST, {"domain": "lock\u00a0"}, "\\xa0"),
    ],
)
async def test_entity_arguments_with_invisible_characters_are_refused_and_named(
    fake, executor, tmp_path, name, arguments, words
):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await executor.invoke(name, 1, arguments, policy=ENABLED, turn_state=TurnState())
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert words in outcome.message
    assert len(executor.confirmations) == 0
    assert fake.requests == []


async def test_an_allowlisted_id_home_assistant_lacks_fails_clearly(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, GET, {"entity_id": "light.attic"})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "no entity light.attic" in outcome.message


async def test_a_rejected_token_says_how_to_fix_it(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url, token="stale-token")
    outcome = await approved(executor, LIST, {})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "long-lived access token" in outcome.message


async def test_a_redirect_is_not_followed(executor, tmp_path):
    with FakeHomeAssistant(TOKEN) as target, FakeHomeAssistant(TOKEN) as fake:
        fake.redirect_to = target.base_url + "/api/states"
        write_settings(tmp_path, base_url=fake.base_url)
        outcome = await approved(executor, LIST, {})
        assert outcome.error_code is ErrorCode.EXECUTION_FAILED
        assert "redirect" in outcome.message
        assert target.requests == []


async def test_a_file_that_says_disabled_refuses_even_with_the_policy_key(fake, executor, tmp_path):
    write_settings(tmp_path, base_url=fake.base_url, enabled=False)
    outcome = await approved(executor, LIST, {})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "switched off" in outcome.message
    assert fake.requests == []


async def test_not_configured_fails_with_the_file_to_create(executor, tmp_path):
    outcome = await approved(executor, LIST, {})
    assert outcome.kind is OutcomeKind.FAILED
    assert str(tmp_path / "home-assistant.json") in outcome.message


# --- settings and the policy entry -------------------------------------------------


def test_policy_is_off_without_a_settings_file(tmp_path):
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}


def test_policy_follows_the_enabled_flag(tmp_path):
    write_settings(tmp_path, enabled=True)
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": True}
    write_settings(tmp_path, enabled=False)
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}


@pytest.mark.parametrize(
    "content",
    [
        "{broken",
        "[]",
        '{"enabled": true}',
        '{"enabled": "yes", "base_url": "http://h", "token": "t", "allowlist": []}',
        '{"enabled": true, "base_url": "ftp://h", "token": "t", "allowlist": []}',
        '{"enabled": true, "base_url": "http://h", "token": "t", "allowlist": ["bad id"]}',
        '{"enabled": true, "base_url": "http://h", "token": "t", "allowlist": [], "x": 1}',
        '{"enabled": true, "base_url": "http://h", "token": "a b", "allowlist": []}',
        '{"enabled": true, "base_url": "http://h", "token": "t", "allowlist": ["a.b\\n"]}',
    ],
)
def test_a_corrupt_or_invalid_file_counts_as_disabled_and_is_reported(tmp_path, caplog, content):
    path = tmp_path / "home-assistant.json"
    path.write_text(content)
    os.chmod(path, 0o600)
    with caplog.at_level(logging.WARNING):
        assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}
    assert "home-assistant.json" in caplog.text
    assert "home-assistant.json" in settings_problem(tmp_path)


def test_every_field_s_refusal_is_keyed_and_names_no_value(tmp_path):
    from sovereign.capabilities._settings import BASE_URL_REFUSALS

    assert set(home_assistant.FIELD_REFUSALS) == set(home_assistant.SETTINGS_SCHEMA["properties"])
    said = {key for refusals in home_assistant.FIELD_REFUSALS.values() for key in refusals.values()}
    assert said <= set(home_assistant.REFUSALS) | set(BASE_URL_REFUSALS)
    path = write_settings(tmp_path, token="secret token", allowlist=["sensor.x", "sensor.x"])
    problem = settings_problem(tmp_path)
    assert problem == f"{path}: token must be visible ASCII without spaces."
    assert problem.values["problem"].key == "home_assistant_token"
    write_settings(tmp_path, allowlist=["sensor.x", "sensor.x"])
    assert settings_problem(tmp_path) == (
        f"{path}: allowlist names an entity id more than once."
    )


def test_a_file_others_can_read_counts_as_disabled(tmp_path, caplog):
    write_settings(tmp_path, mode=0o644)
    with caplog.at_level(logging.WARNING):
        assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}
    assert "chmod 600" in caplog.text


@pytest.mark.parametrize(
    "base_url",
    ["http://192.168.1.20:8123", "http://homeassistant.local:8123", "https://10.0.0.5"],
)
def test_lan_base_urls_are_the_households_choice(tmp_path, base_url):
    write_settings(tmp_path, base_url=base_url + "/")
    settings = home_assistant.load_settings(tmp_path)
    assert settings.base_url == base_url
    assert settings_problem(tmp_path) is None


def test_a_base_url_with_credentials_is_refused(tmp_path):
    write_settings(tmp_path, base_url="http://user:pw@192.168.1.20:8123")
    assert "user name or password" in settings_problem(tmp_path)
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}


async def test_get_state_itself_refuses_an_id_off_the_allowlist(fake):
    settings = home_assistant.HomeAssistantSettings(
        enabled=True, base_url=fake.base_url, token=TOKEN, allowlist=frozenset({"lock.front_door"})
    )
    with pytest.raises(home_assistant.CapabilityError, match="allowlist"):
        await home_assistant.get_state(settings, "sensor.kitchen_temperature")
    assert fake.requests == []


async def test_a_response_over_the_byte_cap_is_a_failure(fake, executor, tmp_path, monkeypatch):
    monkeypatch.setattr(home_assistant, "MAX_STATES_BYTES", 1000)
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, LIST, {})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "larger than 1000 bytes" in outcome.message


async def test_a_body_that_is_not_a_list_of_states_is_a_failure(fake, executor, tmp_path):
    fake.states = {"message": "API running."}
    write_settings(tmp_path, base_url=fake.base_url)
    outcome = await approved(executor, LIST, {})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "not a list" in outcome.message
