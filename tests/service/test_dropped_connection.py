"""A dropped connection does not hide what ran: an answered confirmation's outcome is kept
for its session, and a retry of the same token gets it instead of a 400.

The disconnects are real: the service runs under uvicorn on 127.0.0.1, and the
client closes its socket after the approved search reached SearXNG but before
any answer came back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import time

import pytest

from sovereign.service.errors import ServiceError
from sovereign.service.retained import RETAIN_SECONDS, RetainedAnswers
from tests.console.console_steps import QUOTED_PASSAGE
from tests.console.live_service import PASSWORD, serve
from tests.fakes.clock import FakeClock

from .harness import build_harness

MESSAGE = "/api/v1/conversation/message"
ANSWER_AFTER_SEARCH = f"> {QUOTED_PASSAGE}\n> \u2014 example.org"
"""The answer once the search ran: the passage the scripted model chose, quoted."""


class Browser:
    """One signed-in session against a live service, over real sockets."""

    def __init__(self, live, *, setup: bool) -> None:
        self.live = live
        self.client = live.http_client(timeout=30)
        if setup:
            token = live.app.state.services.owner.setup_token()
            signed = self.client.post(
                "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
            )
        else:
            signed = self.client.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert signed.status_code == 200, signed.text
        self.client.headers["X-CSRF-Token"] = signed.json()["csrf_token"]

    def post(self, path, body):
        return self.client.post(path, json=body)

    def pending_search(self):
        assert self.post("/api/v1/conversation/policy", {"web_search_enabled": True}).is_success
        reply = self.post(MESSAGE, {"message": "search solar panel cleaning"}).json()
        return reply["pending_confirmation"]

    def approve_and_hang_up(self, token, *, stream: bool):
        """Send the approval on a raw socket and close it once the search has left."""
        body = json.dumps({"confirmation": {"token": token, "approve": True}}).encode()
        headers = {
            "Host": self.live.url.removeprefix("http://"),
            "Origin": self.live.url,
            "Content-Type": "application/json",
            "Content-Length": str(len(body)),
            "Accept": "text/event-stream" if stream else "application/json",
            "X-CSRF-Token": self.client.headers["X-CSRF-Token"],
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.client.cookies.items()),
        }
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        with socket.create_connection(("127.0.0.1", self.live.port)) as sock:
            sock.sendall(f"POST {MESSAGE} HTTP/1.1\r\n{head}\r\n".encode() + body)
            wait_for(lambda: len(self.live.searxng.queries) == 1)
        # the socket is closed: the household never saw what happened

    def close(self):
        self.client.close()


def wait_for(condition, seconds=20.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture
def live(tmp_path):
    with serve(tmp_path) as service:
        yield service


@pytest.mark.parametrize("stream", [True, False], ids=["sse", "json"])
def test_a_retry_after_a_dropped_approval_returns_what_ran(live, stream):
    household = Browser(live, setup=True)
    pending = household.pending_search()
    live.backend.before_reply.clear()  # the model's answer is held until the client left
    household.approve_and_hang_up(pending["token"], stream=stream)
    live.backend.before_reply.set()

    retry = household.post(MESSAGE, {"confirmation": {"token": pending["token"], "approve": True}})
    assert retry.status_code == 200, retry.text
    reply = retry.json()
    assert reply["receipts"] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "executed",
            "name": "Web search",
        }
    ]
    assert reply["citations"] and reply["text"].endswith(ANSWER_AFTER_SEARCH)
    assert len(live.searxng.queries) == 1, "the retry ran the search again"

    stranger = Browser(live, setup=False)
    foreign = stranger.post(MESSAGE, {"confirmation": {"token": pending["token"], "approve": True}})
    assert foreign.status_code == 400
    assert foreign.json()["error"]["code"] == "INVALID_CONFIRMATION"
    household.close()
    stranger.close()


def test_a_retry_while_the_call_still_runs_waits_for_the_same_outcome(live):
    household = Browser(live, setup=True)
    pending = household.pending_search()
    live.backend.before_reply.clear()
    household.approve_and_hang_up(pending["token"], stream=True)
    answer = {"confirmation": {"token": pending["token"], "approve": True}}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        retry = pool.submit(household.post, MESSAGE, answer)
        time.sleep(0.5)  # the retry arrives while the model's answer is still held
        assert not retry.done()
        live.backend.before_reply.set()
        response = retry.result(timeout=30)
    assert response.status_code == 200
    assert response.json()["text"].endswith(ANSWER_AFTER_SEARCH)
    assert len(live.searxng.queries) == 1
    household.close()


async def test_the_outcome_is_kept_ten_minutes_then_the_token_is_unknown(tmp_path):
    harness = build_harness(tmp_path)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        token = (await harness.message({"message": "solar"})).json()["pending_confirmation"]
        answer = {"confirmation": {"token": token["token"], "approve": True}}
        assert (await harness.message(answer)).status_code == 200
        harness.clock.advance(RETAIN_SECONDS - 1)
        assert (await harness.message(answer)).status_code == 200
        harness.clock.advance(2)
        late = await harness.message(answer)
        assert late.status_code == 400
        assert late.json()["error"]["code"] == "INVALID_CONFIRMATION"
        assert len(harness.searxng.queries) == 1


async def test_an_error_after_the_call_ran_is_told_again_the_same_way(tmp_path):
    from sovereign.conversation.backends.base import ModelUnavailable
    from sovereign.conversation.backends.scripted import propose

    def model(messages, tools):
        if [m for m in messages if m["role"] != "system"][-1]["role"] == "tool":
            return ModelUnavailable("llama-server is not running")
        return propose("web_search", {"query": messages[-1]["content"]})

    harness = build_harness(tmp_path, script=model)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        token = (await harness.message({"message": "solar"})).json()["pending_confirmation"]
        answer = {"confirmation": {"token": token["token"], "approve": True}}
        first = await harness.message(answer)
        again = await harness.message(answer)
        assert first.status_code == again.status_code == 503
        assert again.json() == first.json()
        assert len(harness.searxng.queries) == 1


async def test_a_new_approval_in_a_kept_outcome_counts_down_from_when_it_was_made():
    clock = FakeClock()
    answers = RetainedAnswers(clock=clock)
    outcome = {"text": "", "pending_confirmation": {"token": "t2", "expires_in_seconds": 120}}

    async def run():
        return outcome

    assert await answers.answer("t1", "me", run) == outcome
    clock.advance(30)
    replay = await answers.answer("t1", "me", run)
    assert replay["pending_confirmation"]["expires_in_seconds"] == 90
    assert outcome["pending_confirmation"]["expires_in_seconds"] == 120  # a copy


async def test_an_invalid_confirmation_is_not_kept_and_memory_is_bounded():
    answers = RetainedAnswers(max_entries=4)
    calls = []

    async def invalid():
        calls.append("invalid")
        raise ServiceError(400, "INVALID_CONFIRMATION", "unknown")

    for _ in range(2):
        with pytest.raises(ServiceError):
            await answers.answer("bad", "me", invalid)
    assert calls == ["invalid", "invalid"] and len(answers) == 0

    async def ok():
        return {"text": "done"}

    for n in range(10):
        await answers.answer(f"t{n}", "me", ok)
    await asyncio.sleep(0)
    assert len(answers) <= 4
