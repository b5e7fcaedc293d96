"""The real service under uvicorn on 127.0.0.1, and a household talking to it over HTTP.

:func:`serve` runs ``create_app`` as ``sovereign serve`` does, with the real
embedded model and every capability family, but with SearXNG's URL pointing at the
replaying fake and web.fetch given the test-only seams (a static resolver for
``news.example``, the one address 127.0.0.1 allowed, and :class:`~.network.WebPort`
as its socket layer). :class:`Household` signs in through the real auth routes
and sends every later request with the session cookie and the CSRF header.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from argon2 import PasswordHasher

from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling
from sovereign.net import AddressPolicy, StaticResolver
from sovereign.service.app import create_app
from sovereign.service.server import server_config
from sovereign.service.settings import Settings
from sovereign.service.wiring import embedded_load_options

from .network import WebPort

PASSWORD = "correct horse battery staple"
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
TURN_TIMEOUT_SECONDS = 300.0
"""Generous: a turn on a slow 2-core runner runs the model several times."""
WEB_HOST = "news.example"


@dataclass
class Service:
    """A running service: the address to connect to, the Console's origin (the name
    the service answers to: ``Host`` and ``Origin`` name it), app and data directory."""

    url: str
    origin: str
    app: Any
    data_dir: Path

    @property
    def setup_token(self) -> str | None:
        return self.app.state.services.owner.setup_token()

    def audit_lines(self) -> list[str]:
        """The audit log's lines (none when nothing was recorded yet)."""
        path = self.data_dir / "capabilities" / "audit.jsonl"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def embedded_model() -> EmbeddedBackend:
    """The verified default model, greedy and with short answers (CI time, not behaviour)."""
    return EmbeddedBackend(
        load=embedded_load_options(),
        sampling=Sampling(answer_max_tokens=48, answer_temperature=0.0),
    )


def settings_for(data_dir: Path, searxng_url: str, web: WebPort) -> Settings:
    """Production settings, except SearXNG's URL and web.fetch's test-only seams."""
    return Settings(
        data_dir=data_dir,
        backend="embedded",
        searxng_url=searxng_url,
        unsafe_web_fetch_options={
            "resolver": StaticResolver({WEB_HOST: ["127.0.0.1"]}),
            "address_policy": AddressPolicy(unsafe_allow={ip_address("127.0.0.1")}),
            "connector": web,
        },
    )


@contextmanager
def serve(settings: Settings, backend: Any = None) -> Iterator[Service]:
    """Run the app under uvicorn on 127.0.0.1 (a free port), with its lifespan, until the end.

    ``backend``: the embedded model by default; a scripted one for adversarial proposals.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = replace(settings, port=port)
    backend = backend if backend is not None else embedded_model()
    app = create_app(settings, backend=backend, password_hasher=CHEAP_HASHER)
    server = uvicorn.Server(server_config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        origin = settings.console_url().rstrip("/")
        yield Service(f"http://127.0.0.1:{port}", origin, app, settings.data_dir)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()


class Household:
    """An HTTP client of the service, as the Console is: at the Console's own name
    (``sovereign.localhost``, sent as ``Host`` since this machine's resolver may not
    know ``*.localhost``), with its ``Origin``, cookie session and CSRF header."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.client = httpx.Client(
            base_url=service.url,
            headers={"Host": service.origin.split("//", 1)[1], "Origin": service.origin},
            timeout=TURN_TIMEOUT_SECONDS,
            trust_env=False,
        )
        self.csrf: str | None = None

    def close(self) -> None:
        self.client.close()

    def sign_in(self) -> None:
        """First-run setup with the one-time token, or a plain sign-in after that."""
        token = self.service.setup_token
        if token:
            reply = self.client.post(
                "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
            )
        else:
            reply = self.client.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert reply.status_code == 200, reply.text
        self.csrf = reply.json()["csrf_token"]

    def set_web_search(self, enabled: bool) -> None:
        reply = self.post("/api/v1/conversation/policy", {"web_search_enabled": enabled})
        assert reply.json() == {"web_search_enabled": enabled}

    def say(self, message: str) -> dict[str, Any]:
        """A new turn; returns the wire response (DESIGN §4)."""
        return self.post("/api/v1/conversation/message", {"message": message}).json()

    def answer(self, token: str, approve: bool) -> dict[str, Any]:
        """Approve or deny a pending confirmation; returns the wire response."""
        body = {"confirmation": {"token": token, "approve": approve}}
        return self.post("/api/v1/conversation/message", body).json()

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        assert self.csrf, "sign in first"
        reply = self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        assert reply.status_code == 200, f"{path}: {reply.status_code} {reply.text}"
        return reply


def audit_records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]
