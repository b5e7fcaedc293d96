"""The link ``sovereign serve`` prints reaches the real service in chromium.

Chromium resolves ``sovereign.localhost`` by itself and connects to ``::1`` first. The
service binds ``[::1]:<port>`` as well as 127.0.0.1, so whatever address chromium
picks, the page, the setup token and the password go to the service, never to a
program that bound ``::1`` before it (tests/service/test_listeners.py puts one there).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sovereign.service.listeners import bind_listeners

from .live_service import PASSWORD

LINK = re.compile(
    r"First run: set the owner password at (http://sovereign\.localhost:\d+/#setup=\S+)"
)


def free_port() -> int:
    sockets = bind_listeners(["127.0.0.1", "::1"], 0)
    port = sockets[0].getsockname()[1]
    for sock in sockets:
        sock.close()
    return port


class Served:
    """``sovereign serve`` in a process of its own, with its output collected."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sovereign.cli", "serve", "--backend", "scripted",
             "--port", str(self.port), "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.link = self._first_run_link()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _first_run_link(self) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            found = LINK.search(line)
            if found:
                return found.group(1)
        raise AssertionError("serve printed no first-run link: " + "".join(self.lines))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self._reader.join(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def served(tmp_path) -> Iterator[Served]:
    running = Served(tmp_path / "data")
    try:
        yield running
    finally:
        running.stop()


def test_the_printed_link_reaches_the_real_service_over_both_loopback_addresses(
    page, served, tmp_path
):
    assert f"[::1]:{served.port}" in "".join(served.lines)  # it said it holds ::1 too
    page.goto(served.link)
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.locator("#chat-view")).to_be_visible()
    assert (tmp_path / "data" / "console-auth.json").exists()  # the service got the password
    page.reload()  # the tab keeps its secret: still signed in after a reload
    expect(page.locator("#chat-view")).to_be_visible()
    setup_line = re.compile(r'::1:\d+ - "POST /api/v1/auth/setup HTTP/1.1" 200')
    deadline = time.monotonic() + 10
    while not setup_line.search("".join(served.lines)) and time.monotonic() < deadline:
        time.sleep(0.1)
    # uvicorn's access log names the peer: chromium came over ::1, which the service holds
    assert setup_line.search("".join(served.lines)), "".join(served.lines)
