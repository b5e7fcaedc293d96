"""llama-cpp-python's own OpenAI-compatible server, run on 127.0.0.1 for the live tests.

``python -m llama_cpp.server`` with the verified default model, on a free port,
greedy and seeded, in its own process group so it is always stopped with the
tests. Its output goes to a log file whose tail is shown when it fails to start.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from sovereign.model import default_model_path

SETUP_HINT = (
    "./scripts/test installs llama-cpp-python's [server] extra and the model "
    "(or deselect these tests with -m 'not slow')"
)
START_SECONDS = 180.0
"""How long the server may take to load the model on a busy two-core machine."""


def require_runtime() -> Path:
    """The model path, after checking that the server and the model are installed."""
    for module in ("llama_cpp", "sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed; {SETUP_HINT}")
    if not default_model_path().is_file():
        pytest.fail(f"the default model is not at {default_model_path()}; {SETUP_HINT}")
    return default_model_path()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def llama_cpp_server(log_dir: Path, *, chat_format: str | None = None) -> Iterator[str]:
    """Run the server until the block ends; yields its API root (``http://…/v1``)."""
    model = require_runtime()
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--seed", "0",
        "--n_threads", str(os.cpu_count() or 1),
        "--verbose", "False",
    ]  # fmt: skip
    if chat_format:
        command += ["--chat_format", chat_format]
    log = log_dir / f"llama-cpp-server-{chat_format or 'default'}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(base_url, process, log)
        yield base_url
    finally:
        _stop(process)


def _wait_until_ready(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if httpx.get(f"{base_url}/models", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    tail = log.read_text(errors="replace")[-3000:]
    raise RuntimeError(f"llama_cpp.server did not start (exit {process.poll()}):\n{tail}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)
