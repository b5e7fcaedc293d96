"""The policy file: absent/corrupt reads as off, writes are atomic under concurrency and crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sovereign.service import atomic
from sovereign.service.policy import PolicyStore, check_policy_file


def test_absent_file_reads_as_off_without_a_problem(tmp_path):
    reading = PolicyStore(tmp_path).read()
    assert reading.web_search_enabled is False
    assert reading.problem is None


def test_written_switch_is_read_back_fresh_each_time(tmp_path):
    store = PolicyStore(tmp_path)
    store.set_web_search(True)
    assert store.read().web_search_enabled is True
    assert store.turn_policy() == {"external_enabled": True}
    # another process (the CLI) changes the file: no cache hides it
    store.path.write_text('{"web_search_enabled": false}')
    assert store.turn_policy() == {"external_enabled": False}


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"\xff\xfe\x00",
        b'{"web_search_enabled": "true"}',
        b'{"web_search_enabled": 1}',
        b'{"web_search_enabled": null}',
        b"[true]",
        b"true",
        b'{"other": true}',
    ],
    ids=["broken", "empty", "not-utf8", "string", "int", "null", "list", "bare", "missing-key"],
)
def test_corrupt_or_wrongly_typed_file_counts_as_off_and_is_reported(tmp_path, caplog, content):
    store = PolicyStore(tmp_path)
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)
    reading = store.read()
    assert reading.web_search_enabled is False
    assert reading.problem and str(store.path) in reading.problem
    assert "web search treated as off" in caplog.text
    ok, sentence = check_policy_file(tmp_path)
    assert ok is False and "off until it is fixed" in sentence


def test_problem_is_logged_once_not_on_every_message(tmp_path, caplog):
    store = PolicyStore(tmp_path)
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{")
    for _ in range(5):
        store.read()
    assert caplog.text.count("web search treated as off") == 1


def test_doctor_check_reports_a_healthy_file(tmp_path):
    PolicyStore(tmp_path).set_web_search(True)
    assert check_policy_file(tmp_path) == (True, "policy file readable; web search is on")
    assert check_policy_file(tmp_path / "fresh")[0] is True


def test_file_is_private_and_no_temporary_files_remain(tmp_path):
    store = PolicyStore(tmp_path)
    store.set_web_search(True)
    store.set_web_search(False)
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["policy.json"]


def test_concurrent_toggles_never_leave_a_torn_file(tmp_path):
    store = PolicyStore(tmp_path)
    store.set_web_search(False)
    seen: list[bytes] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            seen.append(store.path.read_bytes())

    def writer(value: bool) -> None:
        for _ in range(15):
            store.set_web_search(value)

    threads = [threading.Thread(target=reader)]
    threads += [threading.Thread(target=writer, args=(i % 2 == 0,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads[1:]:
        thread.join()
    stop.set()
    threads[0].join()
    assert seen
    assert all(isinstance(json.loads(raw)["web_search_enabled"], bool) for raw in seen)
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["policy.json"]


def test_failure_before_the_rename_keeps_the_old_file(tmp_path, monkeypatch):
    store = PolicyStore(tmp_path)
    store.set_web_search(True)

    def crash(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError):
        store.set_web_search(False)
    assert store.read().web_search_enabled is True
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["policy.json"]


def test_failure_while_writing_the_temp_file_keeps_the_old_file(tmp_path, monkeypatch):
    store = PolicyStore(tmp_path)
    store.set_web_search(True)
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "EIO")))
    with pytest.raises(OSError):
        store.set_web_search(False)
    assert json.loads(store.path.read_text()) == {"web_search_enabled": True}


_KILL_LOOP = """
import sys
from pathlib import Path
from sovereign.service.policy import PolicyStore
store = PolicyStore(Path(sys.argv[1]))
print("ready", flush=True)
value = True
while True:
    store.set_web_search(value)
    value = not value
"""


def test_process_killed_mid_write_leaves_old_or_new_file(tmp_path):
    """A real crash: SIGKILL a process that toggles the file in a loop, at varied moments."""
    store = PolicyStore(tmp_path)
    store.set_web_search(False)  # the old file a kill before the first write leaves
    for attempt in range(8):
        process = subprocess.Popen(
            [sys.executable, "-c", _KILL_LOOP, str(tmp_path)], stdout=subprocess.PIPE
        )
        assert process.stdout.readline() == b"ready\n"
        time.sleep(0.01 + attempt * 0.007)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process.stdout.close()
        reading = store.read()
        assert reading.problem is None, reading.problem
        assert json.loads(store.path.read_text()) == reading.to_wire()


def test_unwritable_directory_raises_and_keeps_reading(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    store = PolicyStore(tmp_path)
    store.set_web_search(True)
    Path(store.path.parent).chmod(0o500)
    try:
        with pytest.raises(OSError):
            store.set_web_search(False)
        assert store.read().web_search_enabled is True
    finally:
        Path(store.path.parent).chmod(0o700)
