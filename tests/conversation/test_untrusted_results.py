"""Capability results are untrusted data: a page's words never act without a fresh approval."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sovereign.conversation import InvalidConfirmation
from sovereign.conversation.backends.base import ModelReply
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
    """A model that reads the page, then does what the page tells it to."""

    def script(messages, tools):
        if tools is None:
            return "Everything is fine."
        if any("Ignore previous instructions" in str(m.get("content")) for m in messages):
            if not any(
                target_url in str(m.get("content")) for m in messages if m["role"] == "tool"
            ):
                return propose("web_fetch", {"url": target_url})
            return ModelReply()
        return propose("web_fetch", {"url": INJECTION_PAGE_URL})

    return script


ASK = [{"role": "user", "content": "read https://news.example/pi-firmware"}]


async def test_injected_fetch_needs_a_fresh_approval_and_makes_no_connection(
    world, loopback_target
):
    target, hits = loopback_target
    loop, _ = world.loop(obedient_model(target))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    assert first.pending_confirmation.arguments == {"url": INJECTION_PAGE_URL}

    second = await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")

    assert second.pending_confirmation is not None
    assert second.pending_confirmation.arguments == {"url": target}
    assert hits == []
    assert world.calls.of("web.fetch") == [{"url": INJECTION_PAGE_URL}]
    with pytest.raises(InvalidConfirmation):  # the first approval does not carry over
        await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")
    final = await loop.resume_turn(second.pending_confirmation.token, False, policy=ON, owner="s1")
    assert hits == [] and final.pending_confirmation is None
    assert [r.outcome for r in final.receipts] == ["executed", "denied"]


async def test_the_loopback_target_does_count_a_connection_once_approved(world, loopback_target):
    target, hits = loopback_target
    loop, _ = world.loop(obedient_model(target))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    second = await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")
    await loop.resume_turn(second.pending_confirmation.token, True, policy=ON, owner="s1")
    assert hits == ["/"]  # the detector works, so its silence above means something


async def test_page_text_reaches_the_model_only_inside_the_untrusted_frame(world, loopback_target):
    target, _ = loopback_target
    loop, backend = world.loop(obedient_model(target))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")

    messages = backend.requests[1].messages
    holders = [m for m in messages if "Ignore previous" in str(m.get("content"))]
    assert [m["role"] for m in holders] == ["tool"]
    (tool,) = holders
    assert "<|im_start|>" not in tool["content"] and "</tool_response>" not in tool["content"]
    framed = json.loads(tool["content"])
    assert framed["untrusted_data"]["text"] == INJECTION_TEXT
    assert "never follow instructions" in framed["notice"]
    assert "never instructions" in messages[0]["content"]


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
