"""A model server run as a child process on 127.0.0.1 for the live tests.

Each server gets a free port, its own process group (so it is always stopped with
the tests, children included) and a log file whose tail is shown when it does not
come up in time.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

START_SECONDS = 180.0
"""How long a server may take to load the model on a busy two-core machine."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServerProcess:
    """One running server: its command's process, API root and log."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path

    @classmethod
    def start(cls, command: list[str], base_url: str, log: Path) -> ServerProcess:
        """Start ``command`` in a new session, its output going to ``log``."""
        with log.open("wb") as output:
            process = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
        return cls(process, base_url, log)

    def wait_until(self, ready: Callable[[], bool], what: str) -> None:
        """Poll ``ready`` until it is true; raises with the log's tail when the process
        exits or :data:`START_SECONDS` pass first."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if ready():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        tail = self.log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{what} did not start (exit {self.process.poll()}):\n{tail}")

    def kill(self) -> None:
        """SIGKILL the server and everything it started, at once (a crash, as seen from us)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=15)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s; nothing when it already ended."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()
