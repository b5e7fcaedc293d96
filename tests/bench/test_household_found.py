"""The benchmark's ``to_found``: seconds from the approved result (its web capability
returned) to the passages found on screen, beside ``to_quote`` (bench/household.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from household import TurnClock, run_turn
from household_report import TurnRecord, report_web, summarise_web
from household_web import WEB_LATENCIES
from household_world import World

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.conversation.progress import Progress
from sovereign.conversation.sources import Found, FoundPassage

BENCH = Path(__file__).resolve().parents[2] / "bench"
PROMPTS = json.loads((BENCH / "household_prompts.json").read_text(encoding="utf-8"))["prompts"]
WORKS = next(p for p in PROMPTS if p["id"] == "en-web-works")
FOUND = Found((FoundPassage("1.1", 1, "Sunday: buses", "rail.example", "Works", "https://r/"),))


async def test_to_found_and_to_quote_count_from_when_the_capability_returned():
    clock = TurnClock(started=100.0, returned=[103.2])
    clock.stages = [(100.1, "choosing"), (103.0, "checking")]
    clock.first_found, clock.first_quote, clock.first_token = 103.3, 108.2, 108.2
    seconds = clock.seconds(ended=108.4)
    assert seconds["to_found"] == pytest.approx(0.1)
    assert seconds["to_quote"] == pytest.approx(5.0)
    assert seconds["result_to_end"] == pytest.approx(5.2)


async def test_the_first_event_carrying_passages_found_is_when_they_were_shown():
    clock = TurnClock(started=0.0)
    await clock.on_progress(Progress("checking", "web.search"))
    await clock.on_progress(Progress("writing", found=FOUND))
    shown = clock.first_found
    await clock.on_progress(Progress("writing", found=FOUND))  # carried again: not new
    assert shown is not None and clock.first_found == shown == clock.stages[1][0]
    assert TurnClock(started=0.0).seconds(ended=1.0)["to_found"] is None


def quoting_model(messages, tools):
    """Searches for the question's words, then quotes the first passage offered."""
    for tool in tools or []:
        if tool["function"]["name"] == "quote_sources":
            enum = tool["function"]["parameters"]["properties"]["passages"]["items"]["enum"]
            return propose("quote_sources", {"passages": [enum[0]]})
    if tools is None:
        return "Nothing found."
    return propose("web_search", {"query": "engineering works Bedford Luton"})


async def test_a_scripted_turn_shows_what_was_found_before_its_quote_and_reports_both():
    with World(ScriptedBackend(quoting_model), model_chooses_passages=True) as world:
        record = await run_turn(world, WORKS)
        assert len(world.returned) == 1  # the approved search, timed where it returned
    seconds = record.seconds
    assert record.answer.startswith("> ")
    assert seconds["to_found"] is not None and seconds["to_quote"] is not None
    assert 0 <= seconds["to_found"] <= seconds["to_quote"] <= seconds["result_to_end"]
    assert WEB_LATENCIES == ("to_found", "to_quote", "result_to_end")


def test_the_web_table_prints_result_to_found_beside_result_to_quote(capsys):
    record = TurnRecord("w", "web_search", "web", "tune")
    record.scores = {"decoy": True, "fact": True}
    record.seconds = {"to_found": 0.05, "to_quote": 9.0, "result_to_end": 9.1}
    report_web(summarise_web([record]), None)
    printed = capsys.readouterr().out
    heading = next(line for line in printed.splitlines() if "result→found s" in line)
    assert heading.index("result→found s") < heading.index("result→quote s")
    row = next(line for line in printed.splitlines() if line.startswith("web all"))
    assert row.split()[-3:] == ["0.1/0.1", "9.0/9.0", "9.1/9.1"]


async def test_as_with_the_default_model_the_first_ranked_passage_is_quoted_unasked():
    with World(ScriptedBackend(quoting_model)) as world:
        record = await run_turn(world, WORKS)
        asked = [call for call in world.backend.calls if "quote_sources" in str(call)]
    assert record.answer.startswith("> ")
    assert asked == []  # the model was not asked to choose
    assert record.seconds["to_found"] is None  # nothing shown before the answer itself
    assert 0 <= record.seconds["to_quote"] <= record.seconds["result_to_end"]


async def test_a_quoted_answer_s_numbers_are_the_result_s_though_no_model_request_read_it():
    # Quoted at once, the result never reaches a model request: its numbers ("Sunday 7
    # December", "40 minutes") were scored as invented.
    with World(ScriptedBackend(quoting_model)) as world:
        record = await run_turn(world, WORKS)
    assert any(ch.isdigit() for ch in record.answer)
    assert record.unsupported == [] and record.scores["numbers"] is True
