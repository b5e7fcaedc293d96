"""The real embedded model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) choosing and answering.

These load the verified default model once for the module and keep generation
short. The tools offered are every capability family the service registers, so
the grammar built from their schemas is the one the service uses.
``./scripts/test`` installs llama-cpp-python and the model first
(``scripts/setup-embedded``); deselect these elsewhere with ``-m "not slow"``.
"""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.conversation import ToolCatalog, TurnLoop
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling
from sovereign.conversation.offer.choices import split_product_parameters
from sovereign.conversation.voice.prompts import DEFAULT_SYSTEM_PROMPT
from sovereign.executor import Registry
from sovereign.model import default_model_path
from sovereign.service.app import build_turn_loop
from sovereign.service.settings import Settings
from sovereign.service.wiring import build_registry, embedded_load_options
from tests.fakes._loopback import LoopbackServer, Reply

pytestmark = pytest.mark.slow

HOW_HOT = "how hot is my device?"
SEARCH_PI = "search the web for the latest Raspberry Pi 5 firmware"
SETUP_HINT = "./scripts/setup-embedded installs it (or deselect these tests with -m 'not slow')"


@pytest.fixture(scope="module")
def backend():
    """One loaded model for the whole module: greedy, short answers."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail(f"llama-cpp-python is not installed; {SETUP_HINT}")
    if not default_model_path().is_file():
        pytest.fail(f"the default model is not at {default_model_path()}; {SETUP_HINT}")
    model = EmbeddedBackend(
        load=embedded_load_options(),
        sampling=Sampling(answer_max_tokens=48, answer_temperature=0.0),
    )
    yield model
    model.close()


@pytest.fixture
def searxng():
    """A loopback server standing where SearXNG would be; it records every request."""
    with LoopbackServer(lambda request: Reply(503, {"error": "not here"})) as server:
        yield server


@pytest.fixture
def settings(tmp_path, searxng) -> Settings:
    return Settings(data_dir=tmp_path, searxng_url=searxng.base_url)


@pytest.fixture
def registry(settings) -> Registry:
    """Every capability family, exactly as the service registers them."""
    return build_registry(settings)


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT}, {"role": "user", "content": text}]


async def test_the_model_alone_chooses_system_health_for_how_hot_is_my_device(backend, registry):
    reply = await backend.complete(ask(HOW_HOT), tools=ToolCatalog.from_registry(registry).tools())
    assert [call.name for call in reply.tool_calls] == ["system_health"]
    chosen = split_product_parameters(
        registry.get("system.health", 1), reply.tool_calls[0].arguments
    )
    assert chosen.arguments == {}  # only the product's parameters: the facts and the rest
    assert chosen.topics == ("temperature",) and not chosen.rest_asked


async def test_the_model_alone_chooses_web_search_with_the_users_query(backend, registry):
    reply = await backend.complete(
        ask(SEARCH_PI), tools=ToolCatalog.from_registry(registry).tools()
    )
    [call] = reply.tool_calls
    assert call.name == "web_search"
    assert "raspberry pi 5" in call.arguments["query"].lower()


async def test_the_model_streams_an_answer_that_uses_the_tool_result(backend):
    history = [
        *ask(HOW_HOT),
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_0", "type": "function",
             "function": {"name": "system_health", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_0",
         "content": '{"untrusted_data": {"cpu_temperature_celsius": 52.5, "uptime_hours": 0.2}}'},
    ]  # fmt: skip
    pieces: list[str] = []

    async def on_token(piece: str) -> None:
        pieces.append(piece)

    reply = await backend.complete(history, tools=None, on_token=on_token)
    assert len(pieces) > 3
    assert "".join(pieces) == reply.content
    assert "52.5" in reply.content


@pytest.fixture
def turn_loop(backend, settings) -> TurnLoop:
    return build_turn_loop(settings, backend=backend)


async def test_through_the_turn_loop_how_hot_is_answered_from_system_health(turn_loop):
    pieces: list[str] = []

    async def on_token(piece: str) -> None:
        pieces.append(piece)

    result = await turn_loop.process_turn(
        [{"role": "user", "content": HOW_HOT}],
        policy={"external_enabled": False},
        owner="household",
        on_token=on_token,
    )
    assert result.pending_confirmation is None
    assert [(r.capability, r.outcome) for r in result.receipts] == [("system.health", "executed")]
    assert result.text and "".join(pieces).strip() == result.text


async def test_through_the_turn_loop_a_web_search_halts_for_confirmation_without_a_request(
    turn_loop, searxng
):
    result = await turn_loop.process_turn(
        [{"role": "user", "content": SEARCH_PI}],
        policy={"external_enabled": True},
        owner="household",
    )
    pending = result.pending_confirmation
    assert pending is not None
    assert pending.capability == "web.search"
    assert "raspberry pi 5" in pending.arguments["query"].lower()
    assert searxng.requests == []  # nothing left the device before approval


def test_the_installed_default_model_verifies():
    result = CliRunner().invoke(main, ["model", "verify"])
    assert result.exit_code == 0, result.output
    assert "is the published model" in result.output
