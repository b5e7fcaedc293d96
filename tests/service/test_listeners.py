"""The service owns both loopback addresses of its port, or refuses to start, naming
who holds one (sovereign.service.listeners; DESIGN §5).

Browsers open ``sovereign.localhost`` on ``::1`` first. A program that binds
``[::1]:<port>`` before the service would receive the setup link, the password and
the cookies. These tests put a real squatter process there first.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from sovereign.cli_words import CliWords
from sovereign.service.listeners import (
    AddressTaken,
    bind_listeners,
    check_loopback_ownership,
    listen_addresses,
    listeners,
    parse_proc_line,
)

SQUAT = (
    "import socket, sys, time\n"
    "family = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET\n"
    "s = socket.socket(family)\n"
    "s.bind((sys.argv[1], int(sys.argv[2])))\n"
    "s.listen()\n"
    "print('ready', flush=True)\n"
    "time.sleep(120)\n"
)


def free_port() -> int:
    """A port free on both loopback addresses right now."""
    sockets = bind_listeners(["127.0.0.1", "::1"], 0)
    port = sockets[0].getsockname()[1]
    for sock in sockets:
        sock.close()
    return port


@contextmanager
def squatter(address: str, port: int) -> Iterator[subprocess.Popen]:
    """Another program, started first, listening on ``address:port``."""
    folder = Path(tempfile.mkdtemp())
    script = folder / "squatter_marker.py"
    script.write_text(SQUAT)
    process = subprocess.Popen(
        [sys.executable, str(script), address, str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield process
    finally:
        process.kill()
        process.communicate(timeout=10)
        shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("host", "extra", "expected"),
    [
        ("127.0.0.1", [], ["127.0.0.1", "::1"]),
        ("localhost", [], ["127.0.0.1", "::1"]),
        ("::1", [], ["127.0.0.1", "::1"]),
        ("127.0.0.5", ["127.0.1.1", "192.168.1.20", "::1"], ["127.0.0.5", "::1", "127.0.1.1"]),
        ("0.0.0.0", [], ["0.0.0.0", "::1"]),
        ("::", [], ["::"]),
        ("192.168.1.20", ["127.0.0.1"], ["192.168.1.20"]),
    ],
)
def test_the_addresses_served(host, extra, expected):
    assert listen_addresses(host, extra) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("0: 0100007F:1F9C 00000000:0000 0A 0:0 00:0 0 1000 0 4242 1", ("127.0.0.1", 8092)),
        (
            "1: 00000000000000000000000001000000:1F9C 0000:0000 0A 0:0 00:0 0 1000 0 77 1",
            ("::1", 8092),
        ),
        ("2: 00000000:1F9C 00000000:0000 0A 0:0 00:0 0 0 0 9 1", ("0.0.0.0", 8092)),
        ("3: 0100007F:1F9C 0100007F:D431 01 0:0 00:0 0 1000 0 5 1", None),  # established
        ("sl local_address rem_address st", None),  # the header
        ("4: ZZZZZZZZ:1F9C 00000000:0000 0A 0:0 00:0 0 0 0 9 1", None),
    ],
)
def test_proc_lines_are_read_as_listeners(line, expected):
    if sys.byteorder != "little" and expected is not None:
        pytest.skip("the sample lines are a little-endian kernel's")
    listener = parse_proc_line(line)
    assert (listener and (listener.address, listener.port)) == expected or expected is None


def test_a_free_port_is_bound_on_both_loopback_addresses():
    sockets = bind_listeners(["127.0.0.1", "::1"], 0)
    try:
        names = [sock.getsockname()[:2] for sock in sockets]
        assert [name[0] for name in names] == ["127.0.0.1", "::1"]
        assert names[0][1] == names[1][1]
    finally:
        for sock in sockets:
            sock.close()


def test_a_squatter_on_ipv6_loopback_stops_the_bind_and_is_named():
    port = free_port()
    with squatter("::1", port) as held:
        with pytest.raises(AddressTaken) as taken:
            bind_listeners(["127.0.0.1", "::1"], port)
        assert f"[::1]:{port} is already held by process {held.pid}" in str(taken.value)
        assert "squatter_marker.py" in str(taken.value)
        again = socket.socket()  # nothing half-bound was left behind on 127.0.0.1
        again.bind(("127.0.0.1", port))
        again.close()


def start_serve(port: int, data_dir) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sovereign.cli", "serve", "--backend", "scripted",
         "--port", str(port), "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def test_serve_refuses_to_start_while_another_program_holds_ipv6_loopback(tmp_path):
    port = free_port()
    with squatter("::1", port) as held:
        process = start_serve(port, tmp_path)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 1, output
    assert f"[::1]:{port} is already held by process {held.pid}" in output
    assert "does not start" in output
    assert not (tmp_path / "console-auth.json").exists()


def wait_for_health(address: str, port: int) -> httpx.Response:
    host = f"[{address}]" if ":" in address else address
    deadline = time.monotonic() + 60
    while True:
        try:
            return httpx.get(
                f"http://{host}:{port}/healthz",
                headers={"Host": f"sovereign.localhost:{port}"},
                trust_env=False,
            )
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_serve_owns_both_addresses_and_doctor_finds_them_held_by_one_program(tmp_path):
    port = free_port()
    process = start_serve(port, tmp_path)
    try:
        for address in ("127.0.0.1", "::1"):
            assert wait_for_health(address, port).json()["status"] == "ok"
        late = socket.socket(socket.AF_INET6)
        with pytest.raises(OSError):
            late.bind(("::1", port))  # a squatter arriving later finds it taken
        late.close()
        ok, sentence = check_loopback_ownership(port)
        assert ok, sentence
        assert f"process {process.pid}" in sentence
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_doctor_fails_when_ipv6_loopback_is_free_or_held_by_another_program():
    port = free_port()
    service = socket.socket()
    service.bind(("127.0.0.1", port))
    service.listen()
    try:
        ok, sentence = check_loopback_ownership(port)
        assert not ok and f"[::1]:{port} is free" in sentence
        ok, said = check_loopback_ownership(port, CliWords("de"))
        assert not ok and said.startswith(f"[::1]:{port} ist frei: Jedes Programm")
        with squatter("::1", port) as held:
            ok, sentence = check_loopback_ownership(port)
            italian = check_loopback_ownership(port, CliWords("it"))[1]
        assert not ok
        assert f"[::1]:{port} is held by process {held.pid}" in sentence
        assert "reach that program first" in sentence
        assert f"[::1]:{port} è occupato da processo {held.pid} (" in italian
        assert "raggiungono prima quel programma" in italian
    finally:
        service.close()


def test_doctor_says_nothing_is_wrong_when_nothing_listens():
    port = free_port()
    assert listeners(port) == []
    assert check_loopback_ownership(port)[0] is True


async def test_doctor_runs_the_check_on_the_port_it_is_given():
    from sovereign import doctor

    port = free_port()
    service = socket.socket()
    service.bind(("127.0.0.1", port))
    service.listen()
    try:
        [finding] = await doctor.check_console_address(doctor.DoctorConfig(service_port=port))
    finally:
        service.close()
    assert doctor.check_console_address in doctor.CHECKS
    assert finding.check == "console address" and not finding.ok
    assert "restart the service" in (finding.fix or "")


def without_ipv6(monkeypatch, *, device_has_it: bool) -> None:
    """This process may not open IPv6 sockets (a sandbox); the device has ::1 or not."""
    import errno
    import types

    from sovereign.service import listeners as module

    def no_ipv6(family=socket.AF_INET, *args, **kwargs):
        if family == socket.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")
        return socket.socket(family, *args, **kwargs)

    fake = types.SimpleNamespace(**{**vars(socket), "socket": no_ipv6})
    monkeypatch.setattr(module, "socket", fake)
    monkeypatch.setattr(module, "device_has_ipv6_loopback", lambda: device_has_it)


def test_a_service_denied_ipv6_on_a_device_that_has_it_refuses_to_start(monkeypatch):
    without_ipv6(monkeypatch, device_has_it=True)
    with pytest.raises(OSError, match="may not use IPv6"):
        bind_listeners(["127.0.0.1", "::1"], 0)


def test_a_device_without_ipv6_binds_ipv4_loopback_alone(monkeypatch):
    without_ipv6(monkeypatch, device_has_it=False)
    sockets = bind_listeners(["127.0.0.1", "::1"], 0)
    try:
        assert [sock.getsockname()[0] for sock in sockets] == ["127.0.0.1"]
    finally:
        for sock in sockets:
            sock.close()
