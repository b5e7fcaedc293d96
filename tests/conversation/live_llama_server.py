"""llama.cpp's ``llama-server`` (the specification's model server), run on 127.0.0.1.

``./scripts/test`` builds it once from the llama.cpp that the pinned
llama-cpp-python vendors and installs it beside the venv's Python
(``scripts/setup-llama-server``). It serves the verified default model, seeded,
with a small context and one slot, as the appliance's unit runs it: loopback,
no web UI, no ``/slots``, CORS limited to the Console's origin.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from sovereign.model import default_model_path

from .live_process import ServerProcess, free_port

SETUP_HINT = (
    "./scripts/test builds and installs llama-server (scripts/setup-llama-server) and the "
    "model (or deselect these tests with -m 'not slow')"
)
CONTEXT_TOKENS = 4096
"""The context of the one slot: a decision prompt with every family set up is about 960
tokens (README), and a turn's few rounds add a few hundred."""
CONSOLE_ORIGIN = "http://sovereign.localhost:8092"


def llama_server_binary() -> Path:
    """The llama-server beside this Python (the venv's ``bin/``), else the one on PATH."""
    beside = Path(sys.executable).parent / "llama-server"
    found = beside if beside.is_file() else shutil.which("llama-server")
    if found is None:
        pytest.fail(f"llama-server is not installed; {SETUP_HINT}")
    if not default_model_path().is_file():
        pytest.fail(f"the default model is not at {default_model_path()}; {SETUP_HINT}")
    return Path(found)


def threads() -> str:
    """One thread per CPU, as the embedded backend uses; ``LLAMA_ARG_THREADS`` (llama.cpp's
    own variable) overrides it, e.g. 1 on a machine shared with other work."""
    return os.environ.get("LLAMA_ARG_THREADS") or str(os.cpu_count() or 1)


@dataclass
class LlamaServer:
    """A running llama-server: its API root (``http://…/v1``), root and process."""

    server: ServerProcess
    root: str
    command: list[str]

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def props(self) -> dict:
        """``GET /props``: the server's build, model and chat template."""
        return httpx.get(f"{self.root}/props", timeout=10, trust_env=False).json()

    def kill(self) -> None:
        """SIGKILL it (a crash or an out-of-memory kill, as the service sees it)."""
        self.server.kill()

    def restart(self) -> None:
        """Start it again on the same port, after :meth:`kill`; returns once it is healthy."""
        self.server.stop()
        self.server = ServerProcess.start(self.command, self.server.base_url, self.server.log)
        self.server.wait_until(lambda: _healthy(self.root), "llama-server")


def command(binary: Path, port: int, *, jinja: bool, restrict_cors: bool = True) -> list[str]:
    """llama-server's arguments, as deploy/systemd/sovereign-llama-server.service passes them
    (``restrict_cors=False``: llama-server's own default, any origin with credentials)."""
    cors = ["--cors-origins", CONSOLE_ORIGIN, "--no-cors-credentials"] if restrict_cors else []
    return [
        str(binary), "--model", str(default_model_path()),
        "--host", "127.0.0.1", "--port", str(port),
        "--ctx-size", str(CONTEXT_TOKENS), "--parallel", "1",
        "--threads", threads(), "--seed", "0",
        "--jinja" if jinja else "--no-jinja",
        "--no-webui", "--no-slots", *cors,
    ]  # fmt: skip


@contextmanager
def llama_server(
    log_dir: Path, *, jinja: bool = True, restrict_cors: bool = True
) -> Iterator[LlamaServer]:
    """Run llama-server until the block ends (or :meth:`LlamaServer.kill`)."""
    port = free_port()
    root = f"http://127.0.0.1:{port}"
    log = log_dir / f"llama-server-{'jinja' if jinja else 'no-jinja'}.log"
    arguments = command(llama_server_binary(), port, jinja=jinja, restrict_cors=restrict_cors)
    running = LlamaServer(ServerProcess.start(arguments, f"{root}/v1", log), root, arguments)
    try:
        running.server.wait_until(lambda: _healthy(root), "llama-server")
        yield running
    finally:
        running.server.stop()


def _healthy(root: str) -> bool:
    """``GET /health`` is 200 once the model is loaded (503 while loading)."""
    return httpx.get(f"{root}/health", timeout=2, trust_env=False).status_code == 200
