"""No household state without a reading: an answer may describe a temperature, a lock, a
door or a light only when a result of the turn read a state of that kind
(docs/decisions/answers-from-what-ran.md)."""

from __future__ import annotations

import pytest

from sovereign.conversation.answer.grounding import Grounds, unsupported
from sovereign.conversation.answer.states import clauses, kinds_read, unread_claims
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from sovereign.executor import Locality
from tests.conversation.one_capability import loop_over, registry_with

NO_SENSOR = {
    "cpu_temperature_celsius": None,
    "cpu_temperature_note": "This device exposes no CPU temperature sensor, "
    "so the temperature is unknown.",
    "load_average_1m": 0.31,
    "disk_used_percent": 32.4,
}
LOCK = {"entity": {"entity_id": "lock.front_door", "state": "unlocked"}}
KITCHEN = {
    "entity": {
        "entity_id": "sensor.kitchen_temperature",
        "state": "21.4",
        "unit_of_measurement": "°C",
    }
}
LIGHTS = {"entities": [{"entity_id": "light.attic", "state": "off"}]}
PIHOLE = {"queries_total": 7497, "blocking_status": "enabled", "domains_on_blocklist": 104756}


def found(*results, asked="Is the front door locked?", world=()):
    return Grounds.of(list(results), [asked], 0, world=list(world))


@pytest.mark.parametrize(
    "answer",
    [
        "The front door is not locked.",
        "The front door is locked.",
        "It's unlocked, so lock it.",
        "The device is currently at room temperature.",
        "It is running warm but fine.",
        "The device itself is not hot.",
        "Your Pi is cool at the moment!",
        "The lights are on.",
        "The garage door is open right now.",
        "Your heating is switched off.",
        "There is an open window in the kitchen.",
        "The front door is locked, but I can't check the windows.",
        "The temperature is unknown, so the device is cool.",
        "I cannot read the sensor; the device is hot.",
        "The front door is not locked, as the device does not have a lock sensor.",
        "It runs cool because I can't read a sensor.",
    ],
)
def test_a_state_no_result_read_is_a_claim_without_a_source(answer):
    assert unsupported(answer, found(NO_SENSOR, PIHOLE)) != []


@pytest.mark.parametrize(
    "answer",
    [
        "I can't read whether the front door is locked.",
        "I can\u2019t check the lights from here.",
        "The temperature is unknown: this device has no temperature sensor.",
        "Home Assistant is not set up on this device, so I can't read your home's sensors, "
        "lights or locks.",
        "I could not tell how hot it is.",
        "I can't tell whether the door is locked, as Home Assistant is not set up.",
        "The temperature is unknown because the device has no sensor.",
        "Pi-hole blocking is on and 7,497 queries were made.",
        "The load over the last minute is 0.31 and the disk is 32.4 % used.",
        "Ad blocking is enabled.",
    ],
)
def test_saying_a_state_could_not_be_read_or_speaking_of_other_things_is_not_a_claim(answer):
    assert unsupported(answer, found(NO_SENSOR, PIHOLE)) == []


def test_a_result_reads_the_kinds_of_state_it_holds_and_a_note_or_a_null_reads_none():
    assert kinds_read([NO_SENSOR, PIHOLE]) == frozenset()
    assert kinds_read([{**NO_SENSOR, "cpu_temperature_celsius": 48.0}]) == {"a temperature"}
    assert kinds_read([KITCHEN]) == {"a temperature"}
    assert kinds_read([LOCK]) == {"a lock's state"}
    assert kinds_read([LIGHTS]) == {
        "whether a door, window, light or switch is open, closed, on or off"
    }


def test_a_state_of_a_kind_a_result_read_may_be_described_even_when_it_disagrees():
    # The check is about the kind: a result read the lock; whether the answer
    # reports it rightly is not a question of sources.
    assert unsupported("The front door is locked.", found(LOCK)) == []
    assert unsupported("The kitchen is 21.4 °C, nice and warm.", found(KITCHEN)) == []
    assert unsupported("The attic light is off.", found(LIGHTS)) == []


def test_the_question_s_own_words_are_not_a_reading():
    assert unread_claims("Yes, the front door is locked.", kinds_read([])) == [
        ("locked", "a lock's state")
    ]


def test_a_web_result_may_describe_any_state():
    recipe = {"results": [{"title": "Hot sauce", "url": "https://s.example/", "content": ""}]}
    assert unsupported("Here is a hot sauce; keep the lid closed.", found(world=[recipe])) == []


def health_loop(script, tmp_path):
    return loop_over(script, tmp_path, registry_with("system.health", NO_SENSOR))


async def test_a_household_result_from_beyond_the_device_reads_only_what_it_holds(tmp_path):
    # Home Assistant answers from the home network (locality external), but its result
    # is a fact, not a web page: a kitchen temperature does not read the front door.
    registry = registry_with("home_assistant.get_state", KITCHEN, Locality.EXTERNAL)
    script = [propose("home_assistant_get_state"), ModelReply(), "The door is locked.", "Hm."]
    loop, backend = loop_over(script, tmp_path, registry)
    halted = await loop.process_turn(ASK_DOOR, policy={}, owner="o")
    token = halted.pending_confirmation.token  # the household approves the read
    result = await loop.resume_turn(token, True, policy={}, owner="o")
    assert (
        result.text == "Hm. Nothing I checked reads a lock's state, so I can't tell you."
        and "gives a lock's state" in (backend.requests[-1].messages[0]["content"])
    )


ASK_DOOR = [{"role": "user", "content": "Is the front door locked?"}]


async def test_a_state_claimed_from_an_unrelated_result_is_asked_for_again(tmp_path):
    script = [
        propose("system_health"),
        ModelReply(),
        "The front door is not locked.",
        "I can't read the front door's lock: nothing here reads it.",
    ]
    loop, backend = health_loop(script, tmp_path)
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ASK_DOOR, policy={}, owner="o", on_token=sink)
    assert result.text == "I can't read the front door's lock: nothing here reads it."
    assert "not locked" not in "".join(shown)
    retry = backend.requests[-1]
    assert retry.tools is None and "gives a lock's state" in retry.messages[0]["content"]


async def test_a_state_claimed_twice_is_replaced_by_the_plain_answer(tmp_path):
    ask = [{"role": "user", "content": "how hot is my device?"}]
    script = [propose("system_health"), ModelReply(), "It is at room temperature.", "It's cool."]
    loop, _ = health_loop(script, tmp_path)
    result = await loop.process_turn(ask, policy={}, owner="o")
    assert result.text.startswith("This device: CPU temperature unknown (no sensor);")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("The device has 1.6 GB of memory.", ["The device has 1.6 GB of memory"]),
        ("Open 10:00 to 17:30. Closed: Mondays.", ["Open 10:00 to 17:30", " Closed", " Mondays"]),
        ("It is 3. Then 4.5 is big", ["It is 3", " Then 4.5 is big"]),
        ("Note:1 thing", ["Note", "1 thing"]),
    ],
)
def test_a_clause_ends_at_a_full_stop_or_colon_but_not_inside_a_figure(text, expected):
    assert clauses(text) == expected
