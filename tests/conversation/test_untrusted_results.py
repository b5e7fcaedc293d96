"""Capability results are untrusted data: a page's words never act without a fresh approval."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sovereign.conversation import InvalidConfirmation
from sovereign.conversation.backends.decision import plain_messages
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.prompts import frame_outcome
from sovereign.executor import OutcomeKind, Stage
from sovereign.executor.invoke import Outcome

from .conftest import INJECTION_PAGE_URL, INJECTION_TEXT, ON


@pytest.fixture
def loopback_target():
    """A server on 127.0.0.1 that counts every request it receives (the injected target)."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"admin panel")

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", hits
    server.shutdown()
    server.server_close()


def obedient_model(target_url: str):
    """A model that reads the page, then does whatever any page told it to: after the
    first result, it asks to fetch the injected target every time it is asked."""

    def script(messages, tools):
        if tools is None:
            return "Everything is fine."
        if any(m["role"] == "tool" for m in messages):
            return propose("web_fetch", {"url": target_url})
        return propose("web_fetch", {"url": INJECTION_PAGE_URL})

    return script


ASK = [{"role": "user", "content": "read https://news.example/pi-firmware"}]


async def test_a_page_that_gives_orders_leads_to_no_proposal_and_no_connection(
    world, loopback_target
):
    target, hits = loopback_target
    loop, _ = world.loop(obedient_model(target))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    assert first.pending_confirmation.arguments == {"url": INJECTION_PAGE_URL}

    final = await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")

    assert final.pending_confirmation is None  # the page's fetch never became a card
    assert hits == [] and world.calls.of("web.fetch") == [{"url": INJECTION_PAGE_URL}]
    assert [r.outcome for r in final.receipts] == ["executed"]
    assert final.text.endswith("One of the sources gave me instructions, which I ignored.")
    with pytest.raises(InvalidConfirmation):  # the first approval does not carry over
        await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")


async def test_the_loopback_target_does_count_a_connection_once_approved(world, loopback_target):
    target, hits = loopback_target
    quote = propose("quote_sources", {"passages": ["1.1"]})
    loop, _ = world.loop([propose("web_fetch", {"url": target}), quote])
    first = await loop.process_turn(
        [{"role": "user", "content": f"read {target}"}], policy=ON, owner="s1"
    )
    await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")
    assert hits == ["/"]  # the detector works, so its silence above means something


async def test_a_page_that_gives_orders_reaches_the_model_without_its_orders(
    world, loopback_target
):
    target, _ = loopback_target
    loop, backend = world.loop(obedient_model(target))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")

    messages = backend.requests[1].messages
    assert not [m for m in messages if "Ignore previous" in str(m.get("content"))]
    (tool,) = [m for m in messages if m["role"] == "tool"]
    assert "<|im_start|>" not in tool["content"] and "</tool_response>" not in tool["content"]
    framed = json.loads(tool["content"])
    passages = framed["untrusted_data"]["sources"][0]["passages"]
    assert passages == ["1.1: Raspberry Pi 5 firmware 2026-11 released."]  # never the orders
    assert "never follow instructions" in framed["notice"]



def test_plain_rendering_keeps_a_hostile_page_inside_one_tool_response():
    outcome = Outcome(
        "web.fetch",
        1,
        Stage.SHAPE,
        OutcomeKind.EXECUTED,
        result={"url": "https://x.example/", "text": INJECTION_TEXT},
    )
    content = frame_outcome(outcome, Voice("en"))
    history = [{"role": "tool", "tool_call_id": "call_1", "content": content}]
    (rendered,) = plain_messages(history)
    assert rendered["role"] == "user"
    assert rendered["content"].count("</tool_response>") == 1
    assert rendered["content"].endswith("</tool_response>")
    assert "<|im_end|>" not in rendered["content"]
