"""``sovereign doctor`` names the tool mode the service will use, and why."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import DoctorConfig, check_tool_mode

from .replay_server import ReplayServer, start
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
