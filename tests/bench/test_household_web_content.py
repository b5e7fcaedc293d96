"""The web groups' prompts and their canned content agree (bench/household_prompts.json,
bench/web/), and the benchmark's world serves that content as SearXNG and a web page do."""

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from household import TurnClock, half
from household_web import fold, is_web_prompt
from household_world import BenchPages, canned_hosts, canned_pages, canned_reply

from sovereign.capabilities import web_search
from sovereign.conversation.progress import Progress
from sovereign.conversation.sources import cut, speaks_to_the_assistant
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry, TurnState
from sovereign.net.extract import page_text, read_html
from tests.fakes.searxng import FakeSearxng

BENCH = Path(__file__).resolve().parents[2] / "bench"
PROMPTS = json.loads((BENCH / "household_prompts.json").read_text(encoding="utf-8"))["prompts"]
WEB = [p for p in PROMPTS if is_web_prompt(p)]
RESULTS = json.loads((BENCH / "web" / "results.json").read_text(encoding="utf-8"))["results"]
PAGES = canned_pages()
LANGUAGES = {"en", "de", "fr", "es", "nl", "it"}


def content(prompt: dict[str, Any]) -> str:
    """All the text the prompt's canned content holds (titles, snippets, page text)."""
    if prompt["expect"]["tools"] == ["web.fetch"]:
        url = prompt["expect"]["arguments"]["web.fetch"]["url"]
        return page_text(PAGES[url].decode("utf-8"))
    results = RESULTS[prompt["scenario"]["web_results"]]
    return "\n".join(f"{r['title']}\n{r['content']}" for r in results)


def by_id(prompt: dict[str, Any]) -> str:
    return str(prompt["id"])


def test_the_web_groups_ask_in_six_languages_by_search_and_by_page_read():
    assert {p["class"] for p in WEB} == {"web_search", "web_fetch", "web_injected"}
    for language in LANGUAGES:
        tools = {p["expect"]["tools"][0] for p in WEB if p["lang"] == language}
        assert tools == {"web.search", "web.fetch"}, language


def test_about_a_third_of_the_web_prompts_are_held_out_in_every_group_and_language():
    held = [p for p in WEB if half(p) == "holdout"]
    assert 0.25 <= len(held) / len(WEB) <= 0.4
    assert {p["class"] for p in held} == {"web_search", "web_fetch", "web_injected"}
    assert len({p["lang"] for p in held}) == len(LANGUAGES)
    assert all(p["half"] in ("tune", "holdout") for p in WEB)  # declared, not hashed


def test_a_declared_half_wins_over_the_hash_of_the_id():
    hashed = half({"id": "en-web-works"})
    other = "tune" if hashed == "holdout" else "holdout"
    assert half({"id": "en-web-works", "half": other}) == other


@pytest.mark.parametrize("prompt", WEB, ids=by_id)
def test_the_content_holds_the_fact_and_every_decoy_and_no_contradiction(prompt):
    text = fold(content(prompt))
    expected = prompt["answer"]
    assert any(fold(spelling) in text for spelling in expected["any"])
    assert [d for d in expected["decoys"] if fold(d) not in text] == []
    assert [c for c in expected["contradicts"] if fold(c) in text] == []
    asked = fold(prompt["prompt"])
    assert [d for d in expected["decoys"] if fold(d) in asked] == []


def passages(prompt: dict[str, Any]) -> list[str]:
    """The passages the product numbers for the model: a page's text as web.fetch reads it,
    or each snippet, cut as the answer writer cuts them."""
    if prompt["expect"]["tools"] == ["web.fetch"]:
        url = prompt["expect"]["arguments"]["web.fetch"]["url"]
        texts = [read_html(PAGES[url].decode("utf-8"), url).text]
    else:
        texts = [r["content"] for r in RESULTS[prompt["scenario"]["web_results"]][:5]]
    return [p.text for text in texts for p in cut(text, 1)]


@pytest.mark.parametrize("prompt", WEB, ids=by_id)
def test_one_passage_answers_without_stating_a_decoy(prompt):
    """A model that quotes the right passage scores a fact and no decoy."""
    expected = prompt["answer"]
    answering = [
        text
        for text in map(fold, passages(prompt))
        if any(fold(s) in text for s in expected["any"])
        and not any(fold(d) in text for d in expected["decoys"])
    ]
    assert answering, prompt["id"]


@pytest.mark.parametrize("prompt", WEB, ids=by_id)
def test_an_injected_prompts_content_gives_the_orders_it_declares(prompt):
    text = fold(content(prompt))
    injection = prompt.get("injection")
    if prompt["class"] != "web_injected":
        assert injection is None
        assert not speaks_to_the_assistant(content(prompt))
        return
    for wanted in [*injection["queries"], *injection["urls"]]:
        assert fold(wanted) in text, wanted


@pytest.mark.parametrize("name", sorted(RESULTS))
async def test_canned_results_reach_an_approved_web_search_as_a_real_searxngs_would(name, tmp_path):
    registry = Registry()
    confirmations = ConfirmationStore()
    executor = Executor(registry, confirmations=confirmations, audit=AuditLog(tmp_path))
    arguments = {"query": "canned results"}
    with FakeSearxng() as fake:
        fake.answer("/search", canned_reply(name))
        web_search.register(registry, base_url=fake.base_url)
        policy = {"external_enabled": True}
        asked = await executor.invoke(
            "web.search", 1, arguments, policy=policy, turn_state=TurnState()
        )
        token = confirmations.issue("web.search", 1, dict(asked.arguments or {}))  # approved
        outcome = await executor.invoke(
            "web.search", 1, arguments, policy=policy, turn_state=TurnState(),
            confirmation_token=token,
        )  # fmt: skip
        body = httpx.get(f"{fake.base_url}/search", params={"q": "x", "format": "json"}).json()
    assert outcome.ok, outcome.message
    assert outcome.result["results"] == [
        {"title": r["title"], "url": r["url"], "snippet": r["content"]} for r in RESULTS[name][:5]
    ]
    captured = json.loads((BENCH / "web" / "searxng_search_basic.json").read_text("utf-8"))
    assert set(body) == set(captured["body"])
    assert all(set(entry) == set(captured["body"]["results"][0]) for entry in body["results"])


def test_every_prompt_names_canned_content_that_exists():
    named = Counter(
        p["scenario"]["web_results"] for p in WEB if "web_results" in p.get("scenario", {})
    )
    assert set(named) == set(RESULTS)
    read = {
        p["expect"]["arguments"]["web.fetch"]["url"]
        for p in WEB
        if "web.fetch" in p["expect"]["tools"]
    }
    assert read == set(PAGES)


def test_the_page_server_serves_each_canned_page_at_its_path():
    assert "www.bakewell-kitchen.example" in canned_hosts()
    with BenchPages() as pages:
        for url, html in PAGES.items():
            path = httpx.URL(url).path
            answer = httpx.get(f"http://127.0.0.1:{pages.port}{path}")
            assert (answer.status_code, answer.content) == (200, html)
            assert answer.headers["content-type"] == "text/html; charset=utf-8"


def test_two_canned_pages_may_not_share_a_path(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_text("<p>a</p>")
    listed = {"http://one.example/menu": "a.html", "http://two.example/menu": "a.html"}
    (tmp_path / "pages.json").write_text(json.dumps({"pages": listed}))
    with pytest.raises(ValueError, match="share a path"):
        canned_pages(tmp_path)


# --- latency from the approved result ----------------------------------------------------------


async def test_latency_runs_from_the_stage_after_the_last_call_to_the_first_quote():
    clock = TurnClock(started=100.0)
    clock.stages = [(100.1, "choosing"), (103.0, "checking"), (103.4, "writing")]
    clock.stages += [(104.0, "checking"), (104.5, "writing")]  # a second approved call
    clock.first_token, clock.first_quote = 106.0, 106.0
    seconds = clock.seconds(ended=106.2)
    assert seconds["to_quote"] == pytest.approx(1.5)
    assert seconds["result_to_end"] == pytest.approx(1.7)
    assert seconds["first_token"] == pytest.approx(6.0)
    assert seconds["end"] == pytest.approx(6.2)


async def test_no_quote_leaves_the_quote_latency_empty_and_no_result_leaves_both():
    clock = TurnClock(started=0.0)
    await clock.on_progress(Progress("checking", "web.fetch"))
    await clock.on_progress(Progress("writing"))
    await clock.on_token("Nothing I found answers that directly.")
    seconds = clock.seconds(ended=clock.stages[-1][0] + 2.0)
    assert seconds["to_quote"] is None
    assert seconds["result_to_end"] == pytest.approx(2.0)
    assert TurnClock(started=0.0).seconds(ended=1.0)["result_to_end"] is None


async def test_the_first_quote_is_the_token_that_opens_a_quoted_line():
    clock = TurnClock()
    await clock.on_token("The device is fine.")
    assert clock.first_quote is None
    await clock.on_token("\n\n> Sunday: buses replace trains.\n> \u2014 thameslink.example")
    assert clock.first_quote is not None and clock.first_quote >= clock.first_token
