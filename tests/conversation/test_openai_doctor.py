"""``sovereign doctor`` names the model server, its build, the tool mode the service will use
and why, and says when a web page or another machine could use the server."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import (
    WEB_PAGE_ORIGINS,
    DoctorConfig,
    _bind_finding,
    check_model_server,
    check_tool_mode,
)

from .replay_server import ReplayServer, fixture, start
from .test_openai_probe import (
    llama_cpp_python_probes,
    llama_server_probes,
    plain_server_probes,
)


@pytest.fixture
def server():
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


def openai(server, tool_mode=None) -> DoctorConfig:
    return DoctorConfig(backend="openai", openai_base_url=server.base_url, tool_mode=tool_mode)


@pytest.mark.parametrize(
    ("probes", "expected"),
    [
        (llama_cpp_python_probes, "schema mode: auto: decisions constrained by response_format"),
        (llama_server_probes, "native mode: auto: the server returns tool_calls"),
        (plain_server_probes, "schema mode: auto: the server refused a request with tools"),
    ],
)
async def test_the_mode_in_use_is_named_with_its_reason(server, probes, expected):
    server.queue(*probes())
    (finding,) = await check_tool_mode(openai(server))
    assert finding.ok and finding.detail.startswith(expected)
    assert "Probes: response_format json_schema:" in finding.detail


async def test_the_mode_its_reason_and_the_probes_are_said_in_the_terminal_s_language(server):
    from sovereign.cli_words import CliWords

    server.queue(*llama_server_probes())
    config = DoctorConfig(backend="openai", openai_base_url=server.base_url,
                          words=CliWords("de"))  # fmt: skip
    (finding,) = await check_tool_mode(config)
    assert finding.ok
    assert finding.detail.startswith("Modus native: auto: der Server gibt tool_calls zurück; ")
    assert "Proben: response_format json_schema: beschränkt die Ausgabe; Streaming: " in (
        finding.detail
    )
    assert "Werkzeuge: der Aufruf kam als tool_calls zurück" in finding.detail
    assert "constrains" not in finding.detail


async def test_an_unreachable_server_is_said_in_the_terminal_s_language():
    from sovereign.cli_words import CliWords

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    config = DoctorConfig(backend="openai", openai_base_url=url, words=CliWords("fr"))
    (finding,) = await check_tool_mode(config)
    assert not finding.ok
    assert finding.detail == (
        "le serveur du modèle est indisponible : le serveur du modèle à l\u2019adresse "
        f"{url}/chat/completions est injoignable"
    )


async def test_native_mode_forced_on_a_server_that_refuses_tools_fails_with_a_fix(server):
    server.queue(*plain_server_probes())
    (finding,) = await check_tool_mode(openai(server, tool_mode="native"))
    assert not finding.ok and "--tool-mode auto" in finding.fix


async def test_an_unreachable_server_fails_with_a_fix():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = DoctorConfig(backend="openai", openai_base_url=f"http://127.0.0.1:{port}/v1")
    (finding,) = await check_tool_mode(config)
    assert not finding.ok and "cannot be reached" in finding.detail and finding.fix


async def test_the_embedded_backend_names_its_mode_without_asking_anything():
    detail = (await check_tool_mode(DoctorConfig()))[0].detail
    assert detail == "embedded backend, schema mode (set, not tested)"
    native = DoctorConfig(tool_mode="native")
    detail = (await check_tool_mode(native))[0].detail
    assert detail == "embedded backend, native mode (set, not tested)"


def test_the_command_prints_the_mode(server, tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    server.queue(*llama_cpp_python_probes())
    options = ["--no-probe", "--searxng-url", "http://127.0.0.1:9", "--backend", "openai"]
    result = CliRunner().invoke(main, ["doctor", *options, "--openai-base-url", server.base_url])
    line = next(x for x in result.output.splitlines() if "model tool mode" in x)
    assert line.startswith("[ ok ] model tool mode: schema mode: auto:")
    assert "json_object" in line


# The model server itself: which one, its build, and who else could use it.

IDENTITY = "llama-server-b11312_qwen2.5-coder-1.5b_identity.json"
"""/props and preflight answers of llama-server as the appliance's unit runs it."""
DEFAULT_CORS = "llama-server-b11312_qwen2.5-coder-1.5b_identity_default_cors.json"
"""The same, started with llama-server's own CORS defaults."""


@contextmanager
def identity_server(recorded: dict | None) -> Iterator[str]:
    """Replays a recorded ``GET /props`` and the preflight answer to each ``Origin``; with
    ``None``, a server with no /props that lists one model (llama-cpp-python's shape)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if recorded is not None and self.path == "/props":
                return self._reply(200, {}, json.dumps(recorded["props"]).encode())
            if recorded is None and self.path == "/v1/models":
                models = {"object": "list", "data": [{"id": "qwen-local", "object": "model"}]}
                return self._reply(200, {}, json.dumps(models).encode())
            self._reply(404, {}, b'{"error": "not found"}')

        def do_OPTIONS(self) -> None:
            answer = (recorded or {}).get("preflight", {}).get(self.headers.get("Origin"))
            if answer is None:
                return self._reply(200, {}, b"")
            self._reply(answer["status"], answer["headers"], b"")

        def _reply(self, status: int, headers: dict, body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def model_server_config(url: str, listening: list[str] | None = None) -> DoctorConfig:
    return DoctorConfig(
        backend="openai",
        openai_base_url=url,
        listening=lambda _port: ["127.0.0.1"] if listening is None else listening,
    )


async def test_llama_server_is_named_with_its_build_and_model_and_found_private():
    with identity_server(fixture(IDENTITY)) as url:
        named, cors, address = await check_model_server(model_server_config(url))
    assert named.ok and named.detail == (
        f"llama-server b11312-0c1e570 at {url}, serving qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    )
    assert cors.ok and cors.detail == "no other web page may read its answers"
    assert address.ok and address.detail.startswith("listens on 127.0.0.1 port ")


async def test_llama_servers_default_cors_lets_any_web_page_use_it():
    with identity_server(fixture(DEFAULT_CORS)) as url:
        _, cors, _ = await check_model_server(model_server_config(url))
    assert not cors.ok
    for origin in WEB_PAGE_ORIGINS:  # it echoes every origin, with credentials
        assert f"{origin} (Access-Control-Allow-Origin: {origin})" in cors.detail
    assert "--cors-origins http://sovereign.localhost:8092 --no-cors-credentials" in cors.fix


@pytest.mark.parametrize(
    "wide", [["0.0.0.0"], ["::"], ["127.0.0.1", "192.168.1.20"], ["fe80::1%eth0"]]
)
async def test_a_server_listening_beyond_loopback_is_named_with_a_fix(wide):
    with identity_server(fixture(IDENTITY)) as url:
        _, _, address = await check_model_server(model_server_config(url, wide))
    assert not address.ok
    assert "any machine that reaches this device can use the model" in address.detail
    assert "127.0.0.1" not in address.detail.split(" port ")[0]  # only the wide ones named
    assert "--host 127.0.0.1" in address.fix


@pytest.mark.parametrize("loopback", [["127.0.0.1"], ["::1"], ["::ffff:127.0.0.1"], ["127.0.0.2"]])
async def test_every_spelling_of_loopback_is_private(loopback):
    with identity_server(fixture(IDENTITY)) as url:
        _, _, address = await check_model_server(model_server_config(url, loopback))
    assert address.ok and "only" in address.detail


@pytest.mark.parametrize("unknown", [[], None])
async def test_listeners_the_system_does_not_show_are_reported_as_not_checked(unknown):
    with identity_server(fixture(IDENTITY)) as url:
        config = DoctorConfig(backend="openai", openai_base_url=url, listening=lambda _: unknown)
        _, _, address = await check_model_server(config)
    assert not address.checked
    assert address.detail.startswith("not checked: this system does not say who listens")


def test_a_server_on_another_machine_is_noted_and_its_listeners_not_looked_for():
    asked: list[int] = []
    config = DoctorConfig(backend="openai", listening=lambda port: asked.append(port) or [])
    finding = _bind_finding(config, "http://192.168.1.50:8081/v1")
    assert not finding.checked
    assert finding.detail.startswith("not checked: the server is on 192.168.1.50, not this")
    assert asked == []


async def test_another_openai_compatible_server_is_named_as_not_llama_server():
    with identity_server(None) as url:
        named, cors, _ = await check_model_server(model_server_config(url))
    assert named.detail == (
        f"an OpenAI-compatible server at {url} (not llama-server: no /props), serving qwen-local"
    )
    assert cors.ok


async def test_the_embedded_backend_has_no_model_server_and_an_unreachable_one_is_unchecked():
    assert await check_model_server(DoctorConfig()) == []
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (finding,) = await check_model_server(model_server_config(f"http://127.0.0.1:{port}/v1"))
    assert not finding.checked and finding.detail.startswith("not checked: the server cannot")


def test_the_command_prints_the_model_server_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    with identity_server(fixture(DEFAULT_CORS)) as url:
        options = ["--no-probe", "--searxng-url", "http://127.0.0.1:9", "--backend", "openai"]
        result = CliRunner().invoke(main, ["doctor", *options, "--openai-base-url", url])
    lines = result.output.splitlines()
    assert any(x.startswith("[ ok ] model server: llama-server b11312-0c1e570") for x in lines)
    assert any(x.startswith("[FAIL] model server CORS: a web page open") for x in lines)
    assert result.exit_code == 1
