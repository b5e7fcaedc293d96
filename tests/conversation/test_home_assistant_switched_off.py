"""Home Assistant switched off is not Home Assistant not set up: a usable settings file that
says ``"enabled": false`` is spoken of as switched off (and how to switch it on), a missing
or unusable one as not set up — in the stand-in, the system prompt and a refusal
(docs/decisions/offered-tools-and-arguments.md)."""

from __future__ import annotations

import json
import os

import pytest

from sovereign.capabilities import home_assistant, system
from sovereign.conversation import ToolCatalog, TurnLoop
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.conversation.offer.stand_ins import stand_ins
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.prompts import system_prompt
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry

NOT_SET_UP = (
    "Home Assistant is not set up on this device, so I can't read your home's sensors, "
    "lights or locks."
)
SWITCHED_OFF = (
    "Home Assistant is switched off on this device, so I can't read your home's sensors, "
    "lights or locks."
)
CHANGE = "change_something"
SETTINGS = {
    "enabled": False,
    "base_url": "http://ha.test:8123",
    "token": "t",
    "allowlist": ["sensor.kitchen_temperature"],
}
ASK_KITCHEN = [{"role": "user", "content": "What's the kitchen temperature?"}]


def write(path, content, mode=0o600):
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    os.chmod(path, mode)


# The states of the settings file and what a turn must call them.
STATES = [
    pytest.param(None, "smart_home_not_set_up", NOT_SET_UP, id="absent"),
    pytest.param((SETTINGS, 0o600), "smart_home_switched_off", SWITCHED_OFF, id="off"),
    pytest.param(("{not json", 0o600), "smart_home_not_set_up", NOT_SET_UP, id="corrupt"),
    pytest.param(
        ({**SETTINGS, "enabled": "no"}, 0o600),
        "smart_home_not_set_up",
        NOT_SET_UP,
        id="invalid",
    ),
    pytest.param((SETTINGS, 0o644), "smart_home_not_set_up", NOT_SET_UP, id="too-open"),
]


def turn_of(tmp_path, state):
    """The registry and the service's per-request policy for one state of the file."""
    if state is not None:
        write(tmp_path / home_assistant.SETTINGS_FILENAME, *state)
    registry = Registry()
    system.register(registry, data_path=tmp_path)  # something to offer, so the model decides
    home_assistant.register(registry, data_dir=tmp_path)
    return registry, home_assistant.home_assistant_policy(tmp_path)


@pytest.mark.parametrize(("state", "name", "sentence"), STATES)
def test_the_stand_in_and_the_system_prompt_say_which_it_is(tmp_path, state, name, sentence):
    registry, policy = turn_of(tmp_path, state)
    catalog = ToolCatalog.for_turn(registry, policy)
    assert [t["function"]["name"] for t in catalog.tools()] == ["system_health"]
    offered = [(s.name, s.sentence) for s in stand_ins(catalog, Voice("en"))]
    assert offered[0] == (name, sentence) and [n for n, _ in offered[1:]] == [CHANGE]
    prompt = system_prompt("Base.", catalog.unavailable_sentences(Voice("en")))
    assert prompt.endswith(sentence) and prompt.count("Home Assistant is") == 1


def test_a_file_that_says_enabled_true_is_offered_and_has_no_stand_in(tmp_path):
    registry, policy = turn_of(tmp_path, ({**SETTINGS, "enabled": True}, 0o600))
    catalog = ToolCatalog.for_turn(registry, policy)
    assert catalog.offers("home_assistant.get_state")
    assert [s.name for s in stand_ins(catalog, Voice("en"))] == [CHANGE]


def test_a_policy_that_says_on_cannot_offer_what_is_not_set_up(tmp_path):
    registry, _ = turn_of(tmp_path, None)
    catalog = ToolCatalog.for_turn(registry, {"home_assistant_enabled": True})
    assert not catalog.offers("home_assistant.get_state")
    assert stand_ins(catalog, Voice("en"))[0].name == "smart_home_not_set_up"


@pytest.mark.parametrize(("state", "name", "sentence"), STATES)
async def test_a_refused_call_says_which_it_is(tmp_path, state, name, sentence):
    """A model that names the withheld tool anyway (it saw it earlier) is refused at the
    policy stage; the sentence it is given says switched off or not set up, as it is."""
    registry, policy = turn_of(tmp_path, state)
    call = propose("home_assistant_get_state", {"entity_id": "sensor.kitchen_temperature"})
    backend = ScriptedBackend([call, "I can't tell."])
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=AuditLog(tmp_path))
    result = await TurnLoop(executor, backend).process_turn(ASK_KITCHEN, policy=policy, owner="o")
    assert [(r.capability, r.outcome) for r in result.receipts] == [
        ("home_assistant.get_state", "refused")
    ]
    framed = [json.loads(m["content"]) for m in backend.requests[1].messages if m["role"] == "tool"]
    assert [(f["error_code"], f["message"]) for f in framed] == [("POLICY_DISABLED", sentence)]
