"""The real wiring: every capability family, the merged policy, web.fetch end to end."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_address
from typing import ClassVar

import pytest

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.net import AddressPolicy, StaticResolver
from sovereign.service.app import create_app
from sovereign.service.settings import Settings
from tests.spoken import deciding

from .conftest import CHEAP_HASHER
from .harness import PASSWORD, _client

PAGE = "<html><body><main><h1>Garden notes</h1><p>Water tomatoes at dawn.</p></main></body></html>"


class _Page(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Page.hits.append(self.path)
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def page_server():
    _Page.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _app(tmp_path, backend, **settings):
    return create_app(
        Settings(data_dir=tmp_path, backend="scripted", **settings),
        backend=backend,
        password_hasher=CHEAP_HASHER,
    )


@contextlib.asynccontextmanager
async def _signed_in_client(app):
    """``(client, headers)`` signed in through first-run setup, web search switched on."""
    async with _client(app) as client:
        token = app.state.services.owner.setup_token()
        response = await client.post(
            "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
        )
        headers = {"X-CSRF-Token": response.json()["csrf_token"]}
        await client.post(
            "/api/v1/conversation/policy", json={"web_search_enabled": True}, headers=headers
        )
        yield client, headers


def test_every_capability_family_is_registered(tmp_path):
    app = _app(tmp_path, ScriptedBackend([]))
    registry = app.state.services.turns._executor.registry
    names = {capability.name for capability in registry}
    assert {"system.health", "pihole.summary", "web.search", "web.fetch"} <= names
    assert any(name.startswith("home_assistant.") for name in names)


def test_turn_policy_merges_the_policy_file_and_home_assistants_own_file(tmp_path):
    app = _app(tmp_path, ScriptedBackend([]))
    services = app.state.services
    assert services.turn_policy() == {"external_enabled": False, "home_assistant_enabled": False}
    services.policy.set_web_search(True)
    path = tmp_path / "home-assistant.json"
    settings = {
        "enabled": True,
        "base_url": "http://127.0.0.1:8123",
        "token": "abc",
        "allowlist": ["sensor.kitchen"],
    }
    path.write_text(json.dumps(settings))
    os.chmod(path, 0o600)
    assert services.turn_policy() == {"external_enabled": True, "home_assistant_enabled": True}
    path.write_text(json.dumps({**settings, "enabled": False}))
    assert services.turn_policy() == {"external_enabled": True, "home_assistant_enabled": False}


async def test_web_fetch_asks_with_the_literal_url_then_reads_the_page(tmp_path, page_server):
    url = f"http://garden.test:{page_server}/notes?a=1&b=%20x"
    seam = {
        "resolver": StaticResolver({"garden.test": ["127.0.0.1"]}),
        "address_policy": AddressPolicy(unsafe_allow={ip_address("127.0.0.1")}),
    }

    def model(messages, tools):
        if deciding(messages):
            return propose("web_fetch", {"url": url})
        return "" if tools else "Water tomatoes at dawn, says the page."

    backend = ScriptedBackend(model)
    app = _app(tmp_path, backend, unsafe_web_fetch_options=seam)
    async with _signed_in_client(app) as (client, headers):
        asked = await client.post(
            "/api/v1/conversation/message", json={"message": "read it"}, headers=headers
        )
        pending = asked.json()["pending_confirmation"]
        assert pending["capability"] == "web.fetch"
        assert pending["arguments"] == {"url": url}
        assert _Page.hits == []
        done = await client.post(
            "/api/v1/conversation/message",
            json={"confirmation": {"token": pending["token"], "approve": True}},
            headers=headers,
        )
    body = done.json()
    assert body["receipts"] == [
        {
            "capability": "web.fetch",
            "locality": "external",
            "outcome": "executed",
            "name": "Reading a web page",
        }
    ]
    assert body["citations"][0]["url"] == url
    assert _Page.hits == ["/notes?a=1&b=%20x"]
    [result] = [m for m in backend.requests[-1].messages if m["role"] == "tool"]
    (source,) = json.loads(result["content"])["untrusted_data"]["sources"]
    assert any(line.endswith(": Water tomatoes at dawn.") for line in source["passages"])


async def test_web_fetch_of_loopback_is_rejected_without_the_test_seam(tmp_path, page_server):
    url = f"http://127.0.0.1:{page_server}/notes"
    backend = ScriptedBackend(
        lambda messages, tools: (
            propose("web_fetch", {"url": url}) if deciding(messages) else "refused"
        )
    )
    app = _app(tmp_path, backend)
    async with _signed_in_client(app) as (client, headers):
        asked = await client.post(
            "/api/v1/conversation/message", json={"message": "read it"}, headers=headers
        )
    body = asked.json()
    assert body["pending_confirmation"] is None  # no card for what can only be refused
    assert body["receipts"][0]["error_code"] == "FETCH_TARGET_REJECTED"
    assert _Page.hits == []


def test_the_backends_take_their_tool_mode_and_model_from_settings(tmp_path):
    import pytest

    from sovereign.service.settings import Settings
    from sovereign.service.wiring import make_backend

    def backend(**options):
        return make_backend(Settings(data_dir=tmp_path, **options))

    assert backend(backend="openai", tool_mode="schema").mode == "schema"
    assert backend(backend="openai").mode == "auto"  # probes the server on first use
    assert backend(backend="embedded").mode == "schema"
    assert backend(backend="embedded", tool_mode="auto").mode == "schema"
    embedded = backend(backend="embedded", tool_mode="native", model_path=tmp_path / "m.gguf")
    assert embedded.mode == "native"
    assert embedded.load.model_path == tmp_path / "m.gguf"
    with pytest.raises(ValueError, match="tool_mode"):
        Settings(data_dir=tmp_path, tool_mode="guess")


@pytest.mark.parametrize(
    ("fields", "chooses"),
    [
        ({}, False),  # the verified default model: the first-ranked passage is quoted
        ({"model_path": "household.gguf"}, True),
        ({"backend": "openai", "openai_base_url": "http://127.0.0.1:9/v1"}, True),
    ],
)
def test_who_chooses_a_web_answer_s_passage_follows_the_model(tmp_path, fields, chooses):
    from sovereign.service.app import build_turn_loop, default_model

    settings = Settings(data_dir=tmp_path, **{k: (tmp_path / v if k == "model_path" else v)
                                              for k, v in fields.items()})  # fmt: skip
    assert default_model(settings) is not chooses
    loop = build_turn_loop(settings)
    assert loop._model_chooses_passages is chooses
    injected = build_turn_loop(settings, backend=ScriptedBackend(["Hello."]))
    assert injected._model_chooses_passages is True  # a model handed in keeps its choice
