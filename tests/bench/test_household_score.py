"""The household benchmark's argument rules (bench/household_score.py)."""

from __future__ import annotations

from household_score import arguments_match


def test_exact_arguments_allow_the_decisions_own_fields_and_nothing_else():
    exact = {"$exact": True}
    assert arguments_match(exact, {})
    assert arguments_match(exact, {"also_asked": "nothing_else", "facts": ["disk"]})
    assert not arguments_match(exact, {"facts": ["disk"], "period": "today"})
    assert arguments_match({"period": "today"}, {"period": "today", "facts": ["blocked"]})
    assert not arguments_match({"period": "today"}, {"period": "last_7_days"})


QUOTE = (
    "> A step-by-step guide to cleaning residential solar panels without voiding the "
    "warranty.\n> \u2014 example.org"
)


def test_a_quote_word_for_word_does_not_count_against_the_answer_s_language():
    from household_score import score_language

    german = {"lang": "de"}
    assert score_language(german, f"Die Quelle ist auf Englisch; das steht dort:\n\n{QUOTE}")
    assert score_language(german, QUOTE) is False  # nothing in the household's language
    # the answer's own words still decide: English words outside the quote fail
    assert (
        score_language(german, f"The source is in English; this is what it says:\n\n{QUOTE}")
        is False
    )


def test_the_titles_of_what_was_found_do_not_count_against_the_answer_s_language():
    from household_score import score_language

    found = (
        "- How to clean rooftop solar panels safely \u2014 example.org\n"
        "- How much efficiency do dirty panels lose? \u2014 solar.example"
    )
    italian = {"lang": "it"}
    said = "Niente di ciò che ho trovato risponde direttamente. Ecco cosa ho trovato:"
    assert score_language(italian, f"{said}\n\n{found}")
    assert score_language(italian, found) is False  # nothing in the household's language
    english = "Nothing I found answers that directly. This is what I found:"
    assert score_language(italian, f"{english}\n\n{found}") is False
    # a list item of the answer's own words, without a host, still counts
    assert score_language(italian, "- The disk is nearly full \u2014 clean it up soon") is False


def test_a_read_the_product_proposed_counts_as_the_turns_choice():
    from household import TurnRecord, add_product_reads

    record = TurnRecord(id="x", klass="device", scenario="", half="holdout")
    record.proposals = [("web.search", {"query": "q"})]
    record.receipts = [
        {"capability": "web.search", "locality": "external", "outcome": "executed"},
        {"capability": "system.health", "locality": "local", "outcome": "executed"},
    ]
    add_product_reads(record)
    assert record.proposals == [("web.search", {"query": "q"}), ("system.health", {})]
    add_product_reads(record)  # counted once
    assert len(record.proposals) == 2


def test_a_search_the_product_replaced_by_a_local_read_is_not_the_turns_choice():
    from household import _read_instead
    from household_world import ModelCall

    from sovereign.conversation.backends.base import ModelReply, ToolCall

    def call(*names, tool_choice="auto"):
        calls = tuple(ToolCall(f"c{i}", n, {}) for i, n in enumerate(names))
        return ModelCall([], True, ModelReply(tool_calls=calls), 1.0, None, tool_choice)

    local = [{"capability": "system.health", "locality": "local", "outcome": "executed"}]
    search = [{"capability": "web.search", "locality": "external", "outcome": "executed"}]
    searched = call("web_search")
    # The product filled the read: no decision of the model's proposed it.
    assert _read_instead(searched.reply.tool_calls, local, [searched, call()])
    # The model filled it, with that read alone admitted.
    forced = call("pihole_summary", tool_choice={"type": "function"})
    pihole = [{"capability": "pihole.summary", "locality": "local", "outcome": "executed"}]
    assert _read_instead(searched.reply.tool_calls, pihole, [searched, forced])
    # The search itself ran, or the model chose the read in its own decision later.
    assert not _read_instead(searched.reply.tool_calls, search, [searched])
    assert not _read_instead(searched.reply.tool_calls, local, [searched, call("system_health")])
    # A first decision that was a local read, or nothing, was the model's own.
    own = call("system_health")
    assert not _read_instead(own.reply.tool_calls, local, [own])
    assert not _read_instead((), local, [call()])


def test_a_read_the_product_put_something_else_in_place_of_is_not_the_turns_choice():
    from types import SimpleNamespace

    from household import QUOTE, TurnRecord, _never_ran

    from sovereign.conversation.backends.base import ToolCall

    world = SimpleNamespace(
        is_tool=lambda name: name in ("system_health", "web_search", QUOTE),
        capability=lambda name: name.replace("_", "."),
    )
    read = [ToolCall("c1", "system_health", {"facts": ["temperature"]})]
    record = TurnRecord(id="x", klass="ha_off", scenario="", half="holdout")
    assert _never_ran(read, record, world)  # the home's stand-in came instead
    record.receipts = [{"capability": "system.health", "locality": "local"}]
    assert not _never_ran(read, record, world)  # it ran
    searched = TurnRecord(id="y", klass="neighbour", scenario="", half="holdout")
    searched.cards = [{"capability": "web.search"}]
    assert not _never_ran([ToolCall("c2", "web_search", {"query": "q"})], searched, world)
    stand_in = [ToolCall("c3", "smart_home_not_set_up", {})]
    assert not _never_ran(stand_in, record, world)  # a stand-in is no read


def test_a_figure_the_result_lacks_is_not_counted_as_unstated():
    from household_score import score_stated

    prompt = {"answer": {"figures": ["cpu_temperature_celsius"]}}
    no_sensor = [{"cpu_temperature_celsius": None, "uptime_hours": 13.1}]
    with_sensor = [{"cpu_temperature_celsius": 48.2, "uptime_hours": 13.1}]
    assert score_stated(prompt, [], no_sensor) is None
    assert score_stated(prompt, [], with_sensor) is False
    assert score_stated(prompt, [("48.2", ["cpu_temperature_celsius"])], with_sensor) is True


def test_a_nested_figure_is_found_in_its_entity():
    from household_score import score_stated

    prompt = {"answer": {"figures": ["entity.state"]}}
    facts = [{"entity": {"entity_id": "sensor.kitchen_temperature", "state": "21.4"}}]
    assert score_stated(prompt, [], facts) is False
    assert score_stated(prompt, [("21.4", ["entity.state"])], facts) is True


def test_a_figure_of_a_listed_entity_is_bound_to_that_entity():
    from household_score import bind_figures, result_fields

    listed = {"entities": [{"state": "on"}, {"state": "21.4", "attributes": {"brightness": 120}}]}
    assert result_fields(listed) == {"entities[1].state": 21.4,
                                     "entities[1].attributes.brightness": 120.0}
    bound = bind_figures("Kitchen temperature is 21.4 °C.", [listed], "en", [])
    assert bound == [("21.4", ["entities[1].state"])]
