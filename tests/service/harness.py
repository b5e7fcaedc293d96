"""Builds the real service app around a scripted model and a fake SearXNG, per test.

Everything goes through the ASGI app with httpx (no sockets). The SearXNG is an
httpx handler transport answering with a real captured response, and it counts
the searches that actually left.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from sovereign.capabilities import system, web_search
from sovereign.conversation.backends.scripted import ScriptedBackend
from sovereign.executor import Registry
from sovereign.service.app import create_app
from sovereign.service.settings import Settings
from tests.fakes.clock import FakeClock
from tests.fakes.searxng import CapturedSearchHandler as FakeSearxng

from .conftest import CHEAP_HASHER

PASSWORD = "correct horse battery"


def search_then_answer(messages: list[dict[str, Any]], tools: Any) -> Any:
    """A model that searches for the user's words, then answers from what came back."""
    from sovereign.conversation.backends.scripted import propose
    from tests.console.live_service import quote_call

    last = [m for m in messages if m["role"] != "system"][-1]  # past the turn's notes
    if last["role"] == "user" and tools:
        return propose("web_search", {"query": last["content"]})
    status = json.loads(last["content"]).get("status", "?") if last["role"] == "tool" else None
    if (quote := quote_call(tools)) is not None:
        return quote
    if last["role"] == "tool":
        status = json.loads(last["content"]).get("status", "?")
        return f"answer after {status}"
    return "plain answer"


@dataclass
class Harness:
    """One app, one client, and the fakes behind them."""

    app: Any
    client: httpx.AsyncClient
    clock: FakeClock
    searxng: FakeSearxng
    backend: ScriptedBackend
    data_dir: Path
    csrf: str | None = None
    device_key: str | None = None
    """The page's half of this browser's sign-in budget (what the Console keeps)."""

    async def sign_in(self) -> str:
        """Complete first-run setup (or log in, as this browser) and return the tab secret."""
        token = self.app.state.services.owner.setup_token()
        if token:
            response = await self.client.post(
                "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
            )
        else:
            response = await self.login(PASSWORD)
        assert response.status_code == 200, response.text
        self.csrf = response.json()["csrf_token"]
        self.device_key = response.json()["device_key"] or self.device_key
        return self.csrf

    async def login(self, password: str) -> httpx.Response:
        """``POST /auth/login`` as this browser: its cookies and its page's device key."""
        body = {"password": password}
        if self.device_key:
            body["device_key"] = self.device_key
        return await self.client.post("/api/v1/auth/login", json=body)

    def headers(self, **extra: str) -> dict[str, str]:
        return {"X-CSRF-Token": self.csrf or "", **extra}

    async def post(self, path: str, body: Any, **extra: str) -> httpx.Response:
        return await self.client.post(path, json=body, headers=self.headers(**extra))

    async def message(self, body: Any) -> httpx.Response:
        return await self.post("/api/v1/conversation/message", body)

    async def set_policy(self, enabled: bool) -> None:
        response = await self.post("/api/v1/conversation/policy", {"web_search_enabled": enabled})
        assert response.status_code == 200, response.text

    async def another_client(self) -> httpx.AsyncClient:
        return _client(self.app)


CONSOLE = "http://sovereign.localhost:8092"
"""The Console's origin under the default settings (DESIGN §5)."""


def _client(app: Any, address: str = "127.0.0.1", origin: str = CONSOLE) -> httpx.AsyncClient:
    """A client as the Console in a browser is: its own Host, and its Origin on every
    request (browsers send it on every state change)."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=origin, headers={"Origin": origin})


def build_harness(
    data_dir: Path,
    script: Callable[..., Any] | list[Any] = search_then_answer,
    clock: FakeClock | None = None,
    backend: Any = None,
) -> Harness:
    """The service with system.health and a web.search backed by :class:`FakeSearxng`.

    ``backend`` replaces the scripted model (e.g. an OpenAI backend on a stub server)."""
    clock = clock or FakeClock()
    searxng = FakeSearxng()
    registry = Registry()
    system.register(registry, disk_path=data_dir)
    web_search.register(
        registry, base_url="http://searxng.test", transport=httpx.MockTransport(searxng.handler)
    )
    backend = backend or ScriptedBackend(script)
    app = create_app(
        Settings(data_dir=data_dir, backend="scripted"),
        backend=backend,
        clock=clock,
        registry=registry,
        password_hasher=CHEAP_HASHER,
    )
    return Harness(app, _client(app), clock, searxng, backend, data_dir)
