"""Household facts are said by the product from the result's own fields (answer.facts)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sovereign.capabilities import home_assistant_facts, pihole, system
from sovereign.capabilities.home_assistant import shape_entity
from sovereign.conversation.answer.facts import field_value, panel_lines, render
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice
from sovereign.executor import ABSENT, NUMBER, FactSheet, Statement, Topic

HEALTH = {
    "cpu_temperature_celsius": None,
    "load_average_1m": 0.42,
    "load_average_5m": 0.5,
    "load_average_15m": 0.6,
    "cpu_count": 4,
    "cpu_load_verdict": "light",
    "memory_total_gb": 8.0,
    "memory_available_gb": 5.3,
    "memory_used_gb": 2.7,
    "memory_used_percent": 33.8,
    "disk_total_gb": 64.0,
    "disk_free_gb": 41.2,
    "disk_used_gb": 22.8,
    "disk_used_percent": 35.6,
    "data_disk_total_gb": 64.0,
    "data_disk_used_gb": 22.8,
    "data_disk_free_gb": 41.2,
    "data_disk_used_percent": 35.6,
    "disk_space_low": False,
    "data_disk_separate": False,
    "uptime_hours": 53.4,
}
PIHOLE = {
    "period": "last_24_hours",
    "queries_total": 7497,
    "queries_blocked": 3465,
    "percent_blocked": 46.2,
    "domains_on_blocklist": 104756,
    "blocking_status": "enabled",
    "retrieved_at": "2026-12-03T09:00:00+00:00",
}


def entity(state, domain="sensor", unit=None, device_class=None, name="Kitchen"):
    return {
        "entity": {
            "entity_id": f"{domain}.x",
            "domain": domain,
            "name": name,
            "state": state,
            "friendly_name": name,
            "unit_of_measurement": unit,
            "device_class": device_class,
            "last_changed": None,
        }
    }


def test_a_memory_question_is_answered_with_the_free_memory_field_not_the_free_disk():
    said = render(system.FACTS, HEALTH, ["memory"], Voice("en"))
    assert said == ["5.3 GB of memory is free, of 8.0 GB in all (33.8% in use)."]
    assert "41.2" not in " ".join(said)


def test_without_named_facts_the_summary_topics_are_said():
    said = " ".join(render(system.FACTS, HEALTH, [], Voice("en")))
    assert "no temperature sensor" in said and "lightly loaded" in said
    assert "5.3 GB" in said and "41.2 GB" in said and "2 days and 5 hours" in said


RESERVED_DISK = {
    **HEALTH,
    "disk_total_gb": 270.6,
    "disk_free_gb": 82.6,
    "disk_used_gb": 188.0,
    "disk_used_percent": 69.5,
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_disk_s_sentences_state_figures_that_agree_with_each_other(language):
    # psutil's 24.2 % beside "82.6 GB free of 270.6 GB" read as a contradiction: the
    # share said is the one of the whole disk, what is held back counted as used.
    voice = Voice(language)
    comma = "." if language == "en" else ","
    free, total, used = (figure.replace(".", comma) for figure in ("82.6", "270.6", "69.5"))
    said = render(system.FACTS, RESERVED_DISK, ["disk"], voice)
    assert len(said) == 2, said  # the disk, whether that is low
    assert free in said[0] and total in said[0] and used in said[0]
    assert "24" + comma + "2" not in " ".join(said)
    panel = panel_lines(system.FACTS, RESERVED_DISK, voice)  # the facts panel says the same
    assert said[0] in panel


def test_unknown_topics_are_ignored_and_only_known_ones_are_said():
    said = render(system.FACTS, HEALTH, ["uptime", "gossip"], Voice("en"))
    assert said == ["The device has been running for 2 days and 5 hours since its last restart."]


@pytest.mark.parametrize(
    ("language", "free", "blocked"),
    [
        ("en", "5.3", "3,465"),
        ("de", "5,3", "3.465"),
        ("fr", "5,3", "3\u202f465"),
        ("es", "5,3", "3.465"),
        ("nl", "5,3", "3.465"),
        ("it", "5,3", "3.465"),
    ],
)
def test_figures_are_written_the_way_each_language_writes_them(language, free, blocked):
    memory = " ".join(render(system.FACTS, HEALTH, ["memory"], Voice(language)))
    assert free in memory and ("Go" if language == "fr" else "GB") in memory
    said = " ".join(render(pihole.FACTS, PIHOLE, ["blocked"], Voice(language)))
    assert blocked in said


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_says_every_topic_without_a_placeholder_or_english_left_over(language):
    lines = panel_lines(system.FACTS, HEALTH, Voice(language)) + panel_lines(
        pihole.FACTS, PIHOLE, Voice(language)
    )
    assert len(lines) >= 8
    for line in lines:
        assert "{" not in line and "}" not in line and not line[0].islower()
        if language != "en":
            assert "memory is free" not in line and "blocked" not in line, line


@pytest.mark.parametrize("state", ["unavailable", "unknown", None, "", " ", "nan", "-inf", "NaN"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_state_that_is_not_a_value_is_never_said_with_a_unit_or_as_a_number(state, language):
    shaped = shape_entity(
        {"entity_id": "sensor.x", "state": state, "attributes": {"unit_of_measurement": "°C"}},
        with_attributes=False,
    )
    result = {"entity": shaped}
    said = " ".join(render(home_assistant_facts.GET_STATE_FACTS, result, [], Voice(language)))
    assert said and "°C" not in said and "nan" not in said.lower() and "inf" not in said.lower()
    assert not re.search(r"\d", said.replace(shaped["name"], "")), said


def test_a_reading_is_said_with_the_unit_home_assistant_gave():
    reading = entity("21.4", unit="°C")
    assert render(home_assistant_facts.GET_STATE_FACTS, reading, [], Voice("de")) == [
        "Kitchen: 21,4 °C."  # Babel's unit pattern, with its own narrow space
    ]
    said = render(home_assistant_facts.GET_STATE_FACTS, entity("55", unit="%"), [], Voice("en"))
    assert said == ["Kitchen is 55\u00a0%."]


@pytest.mark.parametrize(
    ("domain", "state", "device_class", "word"),
    [
        ("lock", "locked", None, "locked"),
        ("lock", "unlocked", None, "unlocked"),
        ("light", "on", None, "on"),
        ("switch", "off", None, "off"),
        ("binary_sensor", "on", "door", "open"),
        ("binary_sensor", "off", "garage_door", "closed"),
        ("binary_sensor", "on", None, "on"),
        ("binary_sensor", "on", "motion", "detecting someone"),
        ("cover", "closed", None, "closed"),
        ("climate", "heat", None, "set to heat"),
    ],
)
def test_a_state_is_said_in_the_words_of_its_domain(domain, state, device_class, word):
    result = entity(state, domain=domain, device_class=device_class, name="Thing")
    said = " ".join(render(home_assistant_facts.GET_STATE_FACTS, result, [], Voice("en")))
    assert said.startswith("Thing ") and word in said


def test_a_domain_without_words_shows_its_state_as_it_is():
    result = entity("below_horizon", domain="sun", name="Sun")
    assert render(home_assistant_facts.GET_STATE_FACTS, result, [], Voice("en")) == [
        "Sun: below horizon."
    ]


def test_a_list_says_each_entity_and_the_ones_home_assistant_does_not_know():
    listed = {
        "entities": [entity("locked", domain="lock", name="Front door")["entity"]],
        "missing_entity_ids": ["light.attic", "light.porch"],
    }
    said = render(home_assistant_facts.LIST_FACTS, listed, [], Voice("en"))
    assert said == [
        "Front door is locked.",
        "Home Assistant does not know light.attic and light.porch.",
    ]


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_queries_blocked_are_said_with_their_share_of_all(language):
    # "block rate" and "hoeveel procent wordt er tegengehouden" named the blocked queries
    # and got the count alone; the count and the share are one fact.
    said = render(pihole.FACTS, PIHOLE, ["blocked"], Voice(language))
    assert len(said) == 2
    assert "3,465" in said[0] or "3.465" in said[0]
    assert "46.2%" in said[1] or "46,2%" in said[1]
    assert [t.name for t in pihole.FACTS.topics] == ["status", "queries", "blocked", "blocklist"]


def test_the_panel_and_the_answer_come_from_the_same_sentences():
    panel = panel_lines(pihole.FACTS, PIHOLE, Voice("fr"))
    for topic in ("status", "queries", "blocked", "blocklist"):
        for sentence in render(pihole.FACTS, PIHOLE, [topic], Voice("fr")):
            assert sentence in panel


def test_a_missing_temperature_sensor_is_said_as_such_and_a_present_one_with_its_verdict():
    assert render(system.FACTS, HEALTH, ["temperature"], Voice("en")) == [
        "This device has no temperature sensor, so I can't tell how warm it is."
    ]
    hot = {**HEALTH, "cpu_temperature_celsius": 82.5, "cpu_temperature_verdict": "hot"}
    assert render(system.FACTS, hot, ["temperature"], Voice("en")) == [
        "The CPU is at 82.5°C: hot, so it slows itself down."
    ]


def test_plurals_follow_each_languages_rule():
    one = {**PIHOLE, "domains_on_blocklist": 1}
    assert render(pihole.FACTS, one, ["blocklist"], Voice("en")) == [
        "1 domain is on the blocklist."
    ]
    assert render(pihole.FACTS, one, ["blocklist"], Voice("de")) == [
        "1 Domain steht auf der Sperrliste."
    ]
    none = {**PIHOLE, "domains_on_blocklist": None}
    assert render(pihole.FACTS, none, ["blocklist"], Voice("en")) == [
        "Pi-hole did not say how many domains are on its blocklist."
    ]


@pytest.mark.parametrize(
    ("hours", "sentence"),
    [
        (53.4, "Das Gerät läuft schon 2 Tage und 5 Stunden ohne Neustart."),
        (25.0, "Das Gerät läuft schon 1 Tag und 1 Stunde ohne Neustart."),
        (0.5, "Das Gerät läuft schon 30 Minuten ohne Neustart."),
    ],
)
def test_a_duration_is_said_in_a_case_its_sentence_takes(hours, sentence):
    # CLDR's units are nominative: "seit 2 Tage" was wrong German, "schon 2 Tage" is not.
    assert render(system.FACTS, {**HEALTH, "uptime_hours": hours}, ["uptime"], Voice("de")) == [
        sentence
    ]


def test_conditions_match_absent_numbers_and_any_of_several_values():
    sheet = FactSheet(
        kinds={"a": "number", "b": "state"},
        topics=(
            Topic(
                name="t",
                means="t",
                statements=(
                    Statement(text="A is {a}.", values={"a": "a"}, when={"a": NUMBER}),
                    Statement(text="No A.", when={"a": ABSENT}),
                    Statement(text="B is one of two.", when={"b": ("x", "y")}),
                    Statement(text="Never with z.", unless={"b": "z"}),
                ),
            ),
        ),
        summary=("t",),
        catalog=Path("/nonexistent"),
        domain="test",
    )
    assert render(sheet, {"a": "1.5", "b": "y"}, [], Voice("en")) == [
        "A is 1.5.",
        "B is one of two.",
        "Never with z.",
    ]
    assert render(sheet, {"b": "z"}, [], Voice("en")) == ["No A."]


def test_a_sheet_must_declare_the_kind_of_every_field_it_says():
    with pytest.raises(ValueError, match="no kind declared"):
        FactSheet(
            kinds={},
            topics=(
                Topic(name="t", means="t", statements=(Statement(text="{a}", values={"a": "a"}),)),
            ),
            summary=("t",),
            catalog=Path("/x"),
            domain="d",
        )


def test_field_paths_read_nested_objects_and_give_none_for_what_is_missing():
    assert field_value({"a": {"b": 2}}, "a.b") == 2
    assert field_value({"a": {"b": 2}}, "a.c") is None
    assert field_value({"a": 1}, "a.b") is None


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize(
    ("domain", "state"), [("light", "on"), ("lock", "locked"), ("climate", "heat"), ("sun", "x")]
)
def test_a_state_named_in_english_is_still_said_in_the_households_language(
    language, domain, state
):
    # Households often keep English names in Home Assistant; the sentence around the
    # name must still be in their language, not "Landing light: encendido."
    result = entity(state, domain=domain, name="Landing light")
    said = " ".join(render(home_assistant_facts.GET_STATE_FACTS, result, [], Voice(language)))
    around = [w for w in said.replace("Landing light", " ").split() if any(map(str.isalpha, w))]
    # more than the state's own word: a sentence of the language around the name
    assert said.count("Landing light") == 1 and len(around) >= 2, said
