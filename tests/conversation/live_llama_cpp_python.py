"""llama-cpp-python's own OpenAI-compatible server, run on 127.0.0.1 for the live tests.

``python -m llama_cpp.server`` with the verified default model, on a free port,
greedy and seeded, in its own process group (:mod:`.live_process`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from sovereign.model import default_model_path

from .live_process import ServerProcess, free_port

SETUP_HINT = (
    "./scripts/test installs llama-cpp-python's [server] extra and the model "
    "(or deselect these tests with -m 'not slow')"
)


def require_runtime() -> Path:
    """The model path, after checking that the server and the model are installed."""
    for module in ("llama_cpp", "sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed; {SETUP_HINT}")
    if not default_model_path().is_file():
        pytest.fail(f"the default model is not at {default_model_path()}; {SETUP_HINT}")
    return default_model_path()


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
    server = ServerProcess.start(command, f"http://127.0.0.1:{port}/v1", log)
    try:
        server.wait_until(lambda: _models_answer(server.base_url), "llama_cpp.server")
        yield server.base_url
    finally:
        server.stop()


def _models_answer(base_url: str) -> bool:
    return httpx.get(f"{base_url}/models", timeout=2, trust_env=False).status_code == 200
