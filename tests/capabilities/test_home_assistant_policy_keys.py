"""``home_assistant_enabled`` and ``external_enabled`` are independent switches (RFC-0018).

Checked through ``Executor.invoke``: web search's key never opens Home Assistant,
and Home Assistant's key never opens web search. ``web.search`` here is a
stand-in with web search's classification and policy key.
"""

from __future__ import annotations

import json
import os

import pytest

from sovereign.capabilities import home_assistant
from sovereign.capabilities.home_assistant import home_assistant_policy
from sovereign.executor import (
    Capability,
    Effect,
    ErrorCode,
    Executor,
    Locality,
    Registry,
    TurnState,
)
from tests.fakes.home_assistant import FakeHomeAssistant

HOME_ASSISTANT_CALLS = [
    ("home_assistant.list_entities", {}),
    ("home_assistant.get_state", {"entity_id": "lock.front_door"}),
]


async def _search(arguments):
    return {"results": []}


def web_search_stand_in() -> Capability:
    return Capability(
        name="web.search",
        version=1,
        description="Search the web.",
        arguments_schema={"type": "object", "properties": {"query": {"type": "string"}}},
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=Locality.EXTERNAL,
        execute=_search,
        policy_key="external_enabled",
    )


@pytest.fixture
def fake():
    with FakeHomeAssistant(token="t0ken") as server:
        yield server


@pytest.fixture
def executor(tmp_path, fake):
    path = tmp_path / "home-assistant.json"
    settings = {"enabled": True, "base_url": fake.base_url, "token": "t0ken"}
    path.write_text(json.dumps({**settings, "allowlist": ["lock.front_door"]}))
    os.chmod(path, 0o600)
    registry = Registry()
    home_assistant.register(registry, data_dir=tmp_path)
    registry.add(web_search_stand_in())
    return Executor(registry)


async def invoke(executor, name, arguments, policy, *, approve=False):
    token = executor.confirmations.issue(name, 1, arguments) if approve else None
    return await executor.invoke(
        name, 1, arguments, policy=policy, turn_state=TurnState(), confirmation_token=token
    )


@pytest.mark.parametrize(("name", "arguments"), HOME_ASSISTANT_CALLS)
async def test_enabling_web_search_never_enables_home_assistant(executor, fake, name, arguments):
    policy = {"external_enabled": True, "web_search_enabled": True}
    for approve in (False, True):
        outcome = await invoke(executor, name, arguments, policy, approve=approve)
        assert outcome.error_code is ErrorCode.POLICY_DISABLED
        assert "home_assistant_enabled" in outcome.message
    assert fake.requests == []


async def test_enabling_home_assistant_never_enables_web_search(executor):
    policy = {"home_assistant_enabled": True}
    for approve in (False, True):
        outcome = await invoke(executor, "web.search", {"query": "q"}, policy, approve=approve)
        assert outcome.error_code is ErrorCode.POLICY_DISABLED
        assert "external_enabled" in outcome.message


@pytest.mark.parametrize(("name", "arguments"), HOME_ASSISTANT_CALLS)
async def test_each_key_opens_only_its_own_capabilities(executor, fake, name, arguments):
    policy = {"home_assistant_enabled": True, "external_enabled": False}
    assert (await invoke(executor, name, arguments, policy, approve=True)).ok
    search = await invoke(executor, "web.search", {"query": "q"}, policy, approve=True)
    assert search.error_code is ErrorCode.POLICY_DISABLED


async def test_the_policy_entry_from_the_settings_file_carries_only_its_own_key(
    executor, fake, tmp_path
):
    entry = home_assistant_policy(tmp_path)
    assert entry == {"home_assistant_enabled": True}
    # The service merges policy.json's web search switch with this entry.
    policy = {"external_enabled": False, **entry}
    outcome = await invoke(executor, "home_assistant.list_entities", {}, policy, approve=True)
    assert outcome.ok, outcome.message
    search = await invoke(executor, "web.search", {"query": "q"}, policy, approve=True)
    assert search.error_code is ErrorCode.POLICY_DISABLED


async def test_a_non_boolean_true_does_not_enable_home_assistant(executor, fake):
    for value in ("true", 1, "yes"):
        policy = {"home_assistant_enabled": value}
        outcome = await invoke(executor, "home_assistant.list_entities", {}, policy, approve=True)
        assert outcome.error_code is ErrorCode.POLICY_DISABLED
    assert fake.requests == []


async def test_the_real_web_search_and_home_assistant_keys_do_not_cross(tmp_path, fake):
    from sovereign.capabilities import web_search

    registry = Registry()
    home_assistant.register(registry, data_dir=tmp_path)
    web_search.register(registry)
    executor = Executor(registry)
    search_args = {"query": "what's new in SearXNG"}
    only_web = {"external_enabled": True}
    only_home = {"home_assistant_enabled": True}
    outcome = await invoke(executor, "home_assistant.list_entities", {}, only_web, approve=True)
    assert outcome.error_code is ErrorCode.POLICY_DISABLED
    outcome = await invoke(executor, "web.search", search_args, only_home, approve=True)
    assert outcome.error_code is ErrorCode.POLICY_DISABLED
    # Each key alone gets its own capability past the policy stage, to the confirmation gate.
    outcome = await invoke(executor, "web.search", search_args, only_web)
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    outcome = await invoke(executor, "home_assistant.list_entities", {}, only_home)
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert fake.requests == []
