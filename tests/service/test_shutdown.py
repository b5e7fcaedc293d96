"""The service's shutdown releases what the capabilities hold: Pi-hole's API session is
logged out (its seat given back), then the model backend is closed."""

from __future__ import annotations

import json
import os

from sovereign.capabilities import pihole
from sovereign.conversation.backends.scripted import ScriptedBackend
from sovereign.executor import Registry, TurnState
from sovereign.service.app import create_app
from sovereign.service.settings import Settings
from tests.fakes.pihole import FakePihole

from .conftest import CHEAP_HASHER


class ClosingBackend(ScriptedBackend):
    """A scripted model that notes whether it was closed, and what was closed first."""

    def __init__(self, order: list[str]) -> None:
        super().__init__(["unused"])
        self.order = order

    def close(self) -> None:
        self.order.append("backend")


async def test_shutdown_logs_pihole_out_and_then_closes_the_backend(tmp_path):
    order: list[str] = []
    with FakePihole(password="app-password") as fake:
        (tmp_path / "pihole.json").write_text(
            json.dumps({"password": "app-password", "base_url": fake.base_url})
        )
        os.chmod(tmp_path / "pihole.json", 0o600)
        registry = Registry()
        session = pihole.register(registry, data_dir=tmp_path)
        app = create_app(
            Settings(data_dir=tmp_path, backend="scripted"),
            backend=ClosingBackend(order),
            registry=registry,
            password_hasher=CHEAP_HASHER,
        )
        async with app.router.lifespan_context(app):
            executor = app.state.services.turns._executor
            outcome = await executor.invoke(
                "pihole.summary", 1, {}, policy={}, turn_state=TurnState()
            )
            assert outcome.ok, outcome.message
            (sid,) = fake.sessions
            registry.on_close(lambda: _note(order, "registry"))
        assert fake.logged_out == [sid] and fake.sessions == set()
        assert session.logouts == 1
        assert order == ["registry", "backend"]


async def test_shutdown_with_no_session_open_asks_pihole_nothing(tmp_path):
    with FakePihole(password="app-password") as fake:
        registry = Registry()
        pihole.register(registry, data_dir=tmp_path)
        app = create_app(
            Settings(data_dir=tmp_path, backend="scripted"),
            backend=ScriptedBackend([]),
            registry=registry,
            password_hasher=CHEAP_HASHER,
        )
        async with app.router.lifespan_context(app):
            pass
        assert fake.requests == []


async def _note(order: list[str], what: str) -> None:
    order.append(what)
