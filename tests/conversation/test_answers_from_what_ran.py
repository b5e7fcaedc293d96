"""A turn offers only what can run, and its answer states only what ran (issue: trustworthy
answers; docs/decisions/offered-tools-and-arguments.md, answers-rendered-by-the-product.md)."""

from __future__ import annotations

import json

from sovereign.conversation import ToolCatalog, TurnLoop
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)

from .conftest import OFF, ON, PHRASES

ASK_HOT = [{"role": "user", "content": "how hot is my device?"}]
ASK_SEARCH = [{"role": "user", "content": "search the web for pi firmware"}]


def capability(name, *, available=None, policy_key=None, locality=Locality.LOCAL, **extra):
    async def answered(arguments):
        return {"answered": name, **arguments}

    return Capability(
        name=name,
        version=1,
        description=name,
        arguments_schema=extra.pop("schema", {"type": "object"}),
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=locality,
        execute=extra.pop("execute", answered),
        available=available,
        policy_key=policy_key,
        phrases=extra.pop("phrases", PHRASES.get(name)),
        **extra,
    )


def registry_of(*capabilities):
    registry = Registry()
    for item in capabilities:
        registry.add(item)
    return registry


def test_a_turn_offers_only_what_is_available_and_switched_on():
    registry = registry_of(
        capability("system.health"),
        capability("pihole.summary", available=lambda: False),
        capability("home_assistant.get_state", policy_key="home_assistant_enabled"),
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
    )
    catalog = ToolCatalog.for_turn(registry, {"external_enabled": True})
    assert [t["function"]["name"] for t in catalog.tools()] == ["system_health", "web_search"]
    assert [(w.capability, w.why) for w in catalog.withheld] == [
        ("pihole.summary", "unavailable"),
        ("home_assistant.get_state", "switched_off"),
    ]
    on = ToolCatalog.for_turn(registry, {"external_enabled": True, "home_assistant_enabled": True})
    assert on.offers("home_assistant.get_state") and not on.offers("pihole.summary")


def test_a_policy_value_that_is_not_true_counts_as_off_and_a_broken_check_as_unavailable():
    def broken():
        raise OSError("settings unreadable")

    registry = registry_of(
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
        capability("pihole.summary", available=broken),
    )
    for value in ("true", 1, None):
        assert ToolCatalog.for_turn(registry, {"external_enabled": value}).tools() == []


def test_a_withheld_capability_still_resolves_so_the_executor_refuses_it_by_name():
    registry = registry_of(capability("pihole.summary", available=lambda: False))
    target = ToolCatalog.for_turn(registry, {}).resolve("pihole_summary")
    assert target is not None and target.capability == "pihole.summary"


def loop_over(registry, script, tmp_path):
    backend = ScriptedBackend(script)
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=AuditLog(tmp_path))
    return TurnLoop(executor, backend), backend


async def test_with_nothing_to_offer_the_model_is_asked_once_for_its_answer(tmp_path):
    registry = registry_of(capability("pihole.summary", available=lambda: False))
    loop, backend = loop_over(registry, ["A haiku about autumn."], tmp_path)
    result = await loop.process_turn(ASK_HOT, policy={}, owner="o")
    assert result.text == "A haiku about autumn."
    assert [r.tools for r in backend.requests] == [None]
    assert "Pi-hole is not set up on this device" in backend.requests[0].messages[0]["content"]


async def test_an_invented_figure_is_asked_for_again_and_the_second_answer_is_used(world):
    loop, backend = world.loop(
        [propose("system_health"), ModelReply(), "It is 61 °C.", "It is 52.5 °C."]
    )
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="o", on_token=sink)
    assert result.text == "It is 52.5 °C."
    assert "61" not in "".join(shown) and "".join(shown) == "It is 52.5 °C."
    retry = backend.requests[-1]
    assert retry.tools is None and "61 is not among them" in retry.messages[0]["content"]


async def test_an_answer_invented_twice_is_left_out_and_the_result_is_still_shown(world):
    loop, _ = world.loop([propose("system_health"), ModelReply(), "It is 61 °C.", "Hot: 70 °C."])
    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="o")
    assert result.text == "I could not put an answer into words. Please ask again."
    assert result.facts[0].result["cpu_temperature_celsius"] == 52.5


async def test_after_a_denial_the_answer_is_ours_and_the_model_is_not_asked(world):
    search = propose("web_search", {"query": "louvre opening hours"})
    loop, backend = world.loop([search, ModelReply(), "It opens at 9 a.m. daily."])
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="o")
    token = halted.pending_confirmation.token
    result = await loop.resume_turn(token, False, policy=ON, owner="o", on_token=sink)
    assert result.text == "You declined the web search, so I didn't look it up."
    assert "".join(shown) == result.text
    assert len(backend.requests) == 2  # the decision after the denial, and no answer request
    assert backend.remaining == 1  # "It opens at 9 a.m. daily." was never asked for


async def test_when_every_call_failed_the_answer_says_so_and_nothing_more(tmp_path):
    async def broken(_arguments):
        raise OSError("no sensors")

    health = capability("system.health")
    registry = registry_of(Capability(**{**health.__dict__, "execute": broken}))
    script = [propose("system_health"), ModelReply(), "61 °C."]
    loop, backend = loop_over(registry, script, tmp_path)
    result = await loop.process_turn(ASK_HOT, policy={}, owner="o")
    assert [r.outcome for r in result.receipts] == ["failed"]
    assert "61" not in result.text and result.text.strip()
    assert backend.remaining == 1  # the model chose to answer; its prose was never asked for


async def test_when_one_call_ran_the_model_answers_from_it(world):
    search = propose("web_search", {"query": "pi firmware"})
    loop, backend = world.loop(
        [propose("system_health"), search, ModelReply(), "It is 52.5 °C; no search was made."]
    )
    halted = await loop.process_turn(ASK_HOT, policy=ON, owner="o")
    result = await loop.resume_turn(halted.pending_confirmation.token, False, policy=ON, owner="o")
    assert result.text == (  # what did not run, in the product's words, then the model's
        "You declined the web search, so I didn't look it up.\n\n"
        "It is 52.5 °C; no search was made."
    )
    assert backend.remaining == 0


async def test_an_executed_household_capability_s_result_is_a_fact_on_the_wire(world):
    loop, _ = world.loop([propose("system_health"), ModelReply(), "It is 52.5 °C."])
    wire = (await loop.process_turn(ASK_HOT, policy=OFF, owner="o")).to_wire()
    (fact,) = wire["facts"]
    assert fact["capability"] == "system.health"
    assert fact["result"]["cpu_temperature_celsius"] == 52.5
    assert fact["heading"] == "What the device reported"  # the facts panel's, in English


async def test_a_web_result_is_a_citation_not_a_fact(world):
    loop, _ = world.loop([propose("web_search", {"query": "pi"}), ModelReply(), "Pi 5 firmware."])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="o")
    result = await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="o")
    assert result.facts == [] and [c.url for c in result.citations] == ["https://pi.example/fw"]


def canonicalising_search():
    async def execute(arguments):
        raise AssertionError("a denied search must not run")

    return capability(
        "web.search",
        policy_key="external_enabled",
        locality=Locality.EXTERNAL,
        schema={
            "type": "object",
            "required": ["query"],
            "properties": {"query": {"type": "string"}},
        },
        validate_arguments=lambda a: {"query": " ".join(a["query"].split()).lower()},
        max_invocations_per_turn=3,
    )


async def test_two_spellings_of_a_denied_call_are_one_call(tmp_path):
    first = propose("web_search", {"query": "Pi   Firmware"})
    again = propose("web_search", {"query": "pi firmware "})
    registry = registry_of(canonicalising_search())
    loop, backend = loop_over(registry, [first, again, ModelReply(), "You declined it."], tmp_path)
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="o")
    assert halted.pending_confirmation.arguments == {"query": "pi firmware"}
    result = await loop.resume_turn(halted.pending_confirmation.token, False, policy=ON, owner="o")
    assert result.pending_confirmation is None  # the second spelling got no card
    statuses = [json.loads(m["content"])["status"] for m in backend.requests[-1].messages
                if m["role"] == "tool"]
    assert statuses == ["denied", "denied"]
    assert [r.outcome for r in result.receipts] == ["denied"]


async def test_a_question_s_address_is_a_hint_for_the_decision_only(world):
    ask = [{"role": "user", "content": "Summarise https://news.example/pi-firmware please"}]
    loop, backend = world.loop([ModelReply(), "I can read it if you like."])
    await loop.process_turn(ask, policy=ON, owner="o")
    decision, answer = backend.requests
    hint = "The question names the web address https://news.example/pi-firmware"
    assert decision.messages[-1]["role"] == "system" and hint in decision.messages[-1]["content"]
    assert hint in decision.messages[0]["content"]  # said with the instructions, and last
    assert all(hint not in str(m["content"]) for m in answer.messages)
    fetch = next(t for t in decision.tools if t["function"]["name"] == "web_fetch")
    assert fetch["function"]["parameters"]["properties"]["url"]["enum"] == [
        "https://news.example/pi-firmware"
    ]


async def test_after_a_result_the_result_is_read_last_not_the_address_note(world):
    question = "How hot is the server, and what does https://news.example/a say?"
    ask = [{"role": "user", "content": question}]
    health = propose("system_health", {})
    loop, backend = world.loop([health, ModelReply(), "Done."])
    await loop.process_turn(ask, policy=ON, owner="o")
    first, second = backend.requests[0], backend.requests[1]
    hint = "The question names the web address https://news.example/a"
    assert hint in first.messages[-1]["content"] and hint in first.messages[0]["content"]
    assert second.messages[-1]["role"] == "tool"  # the result, read last
    assert hint in second.messages[0]["content"]


async def test_a_question_referring_to_an_earlier_page_is_pointed_at_it_last(world):
    ask = [
        {"role": "user", "content": "I found this: https://news.example/pi-firmware"},
        {"role": "assistant", "content": "What would you like to know about it?"},
        {"role": "user", "content": "What does it say about the bootloader?"},
    ]
    loop, backend = world.loop([ModelReply(), "I can read it if you like."])
    await loop.process_turn(ask, policy=ON, owner="o")
    decision, answer = backend.requests
    assert decision.messages[-1] == {
        "role": "system",
        "content": "The question refers to the page named earlier, "
        "https://news.example/pi-firmware; web_fetch reads exactly that page.",
    }
    assert all("refers to the page" not in m["content"] for m in answer.messages)


async def test_without_an_address_in_the_conversation_fetch_is_not_offered(world):
    loop, backend = world.loop([ModelReply(), "Here you go."])
    await loop.process_turn(ASK_SEARCH, policy=ON, owner="o")
    assert [t["function"]["name"] for t in backend.requests[0].tools] == [
        "system_health",
        "web_search",
        "change_something",
        "general_knowledge",
    ]


NOTE = [{"role": "user", "content": "Write a two-line note to my landlord: the heating is broken."}]


def strict_read():
    schema = {
        "type": "object",
        "required": ["entity_id"],
        "properties": {"entity_id": {"type": "string", "pattern": "^sensor\\.[a-z_]+$"}},
        "additionalProperties": False,
    }
    return capability("home_assistant.get_state", schema=schema)


async def test_after_a_call_refused_for_the_model_s_own_mistake_the_model_answers(tmp_path):
    # The question needed no call; the model's badly formed read was refused. The note
    # is still written, and the refusal is still said plainly after it.
    bad = propose("home_assistant_get_state", {"entity_id": "Heating!"})
    script = [bad, ModelReply(), "Dear landlord, the heating is broken. Please fix it."]
    loop, backend = loop_over(registry_of(strict_read()), script, tmp_path)
    result = await loop.process_turn(NOTE, policy={}, owner="o")
    assert [(r.outcome, r.error_code) for r in result.receipts] == [
        ("refused", "INVALID_ARGUMENTS")
    ]
    note, said = result.text.split("\n\n")
    assert note == "Dear landlord, the heating is broken. Please fix it."
    assert said == "I couldn't make that request, so nothing ran." and backend.remaining == 0


async def test_after_a_mistaken_call_the_answer_is_still_checked(tmp_path):
    bad = propose("home_assistant_get_state", {"entity_id": "Heating!"})
    script = [bad, ModelReply(), "It is 17 °C and the door is locked.", "I could not read it."]
    loop, _ = loop_over(registry_of(strict_read()), script, tmp_path)
    result = await loop.process_turn(NOTE, policy={}, owner="o")
    assert result.text == "I could not read it.\n\nI couldn't make that request, so nothing ran."
