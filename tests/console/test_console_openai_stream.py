"""The Console shows an OpenAI-backend answer's first token before the answer ends.

The service runs with the real ``OpenAIBackend`` (``auto``: it probes first) against
a replay server that answers like llama-cpp-python's server and holds the streamed
answer after its first piece until the test has seen that piece in the page.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn
from playwright.sync_api import expect

from sovereign.capabilities import system
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.executor import Registry
from sovereign.service.app import create_app
from sovereign.service.server import server_config
from sovereign.service.settings import Settings
from tests.conversation.replay_server import ReplayServer, chunks, completion, start
from tests.conversation.test_openai_probe import llama_cpp_python_probes

from .console_steps import first_run, send
from .live_service import CHEAP_HASHER, FakeClock, FakeSearxng, LiveService, _wait_until_started

ANSWER = ["Paris", " is", " the", " capital", " of", " France."]


@pytest.fixture
def model_server() -> Iterator[ReplayServer]:
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


@contextmanager
def serve_openai(data_dir, base_url) -> Iterator[LiveService]:
    registry = Registry()
    system.register(registry, disk_path=data_dir)
    clock = FakeClock()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(
        Settings(data_dir=data_dir, backend="openai", openai_base_url=base_url, port=port),
        backend=OpenAIBackend(base_url),
        clock=clock,
        registry=registry,
        password_hasher=CHEAP_HASHER,
    )
    server = uvicorn.Server(server_config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        _wait_until_started(server, thread)
        url = f"http://sovereign.localhost:{port}"  # the Console's own name, as served
        yield LiveService(url, app, clock, FakeSearxng(), None, data_dir)  # type: ignore[arg-type]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_the_first_streamed_token_shows_before_the_answer_ends(page, tmp_path, model_server):
    held = chunks(*ANSWER, hold_after=2)  # the role chunk and "Paris", then it waits
    held.hold_seconds = 30
    model_server.queue(*llama_cpp_python_probes(), completion('{"action": "answer"}'), held)
    with serve_openai(tmp_path / "data", model_server.base_url) as service:
        first_run(page, service)
        send(page, "What is the capital of France?")
        answer = page.locator(".message.assistant .prose").last

        expect(answer).to_have_text("Paris")  # on screen while the server still writes
        assert held.released_in_time is None
        held.release.set()

        expect(answer).to_have_text("Paris is the capital of France.")
        expect(page.locator(".receipt-headline").last).to_have_text("Stayed on this device.")
    assert held.released_in_time is True
    assert model_server.requests[-1]["stream"] is True
