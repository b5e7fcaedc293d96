"""Nothing runs unrecorded, and no line tears: the audit log under injected storage faults.

The faults are an injected writer (ENOSPC, EIO, short writes, a failure in the
middle of a line), a failing fsync, an unwritable file, a real tmpfs that fills
up mid-write, and a writer process killed with SIGKILL in the middle of a burst.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sovereign.executor import AuditLog, ErrorCode, Executor, Locality, Registry, TurnState
from sovereign.executor.audit_file import FileOps, read_records
from tests.fakes.tmpfs import mounted_tmpfs, remount

from .conftest import make_capability

POLICY = {"external_enabled": True}


def audit_file(tmp_path):
    return tmp_path / "capabilities" / "audit.jsonl"


def lines_of(path):
    raw = path.read_bytes()
    assert raw == b"" or raw.endswith(b"\n"), "the file ends with a torn line"
    return [json.loads(line) for line in raw.splitlines()]


class Storage:
    """Injected write/fsync calls: healthy, full, failing or slow, switchable mid-test."""

    def __init__(self, chunk: int | None = None) -> None:
        self.fault: int | None = None  # errno every write fails with
        self.fail_after: int | None = None  # bytes written before the fault hits
        self.fsync_fault: int | None = None
        self.chunk = chunk  # most bytes one write call accepts (short writes)
        self.fsyncs = 0

    def write(self, fd, data):
        if self.fail_after is not None:
            if self.fail_after == 0:
                raise OSError(self.fault or errno.ENOSPC, os.strerror(self.fault or errno.ENOSPC))
            data = data[: self.fail_after]
            self.fail_after -= len(data)
        elif self.fault is not None:
            raise OSError(self.fault, os.strerror(self.fault))
        if self.chunk is not None:
            data = data[: self.chunk]
        return os.write(fd, data)

    def fsync(self, fd):
        if self.fsync_fault is not None:
            raise OSError(self.fsync_fault, os.strerror(self.fsync_fault))
        self.fsyncs += 1
        os.fsync(fd)

    def ops(self) -> FileOps:
        return FileOps(write=self.write, fsync=self.fsync)


def external_executor(tmp_path, storage: Storage, execute=None):
    capability = make_capability(
        locality=Locality.EXTERNAL, policy_key="external_enabled",
        **({"execute": execute} if execute else {}),
    )
    registry = Registry()
    registry.add(capability)
    executor = Executor(registry, audit=AuditLog(tmp_path, ops=storage.ops()))
    return executor, capability


async def approved_call(executor, text="hello"):
    token = executor.confirmations.issue("test.echo", 1, {"text": text})
    return await executor.invoke(
        "test.echo", 1, {"text": text}, policy=POLICY, turn_state=TurnState(),
        confirmation_token=token,
    )


async def test_the_executing_record_is_on_disk_before_an_external_call_starts(tmp_path):
    storage = Storage()
    seen = {}

    async def execute(arguments):
        seen["lines"] = lines_of(audit_file(tmp_path))
        seen["fsyncs"] = storage.fsyncs
        return {"echo": arguments["text"]}

    executor, _ = external_executor(tmp_path, storage, execute)
    outcome = await approved_call(executor)
    assert outcome.ok
    assert [line["outcome"] for line in seen["lines"]] == ["executing"]
    assert seen["fsyncs"] == 1, "the executing record of an external call is fsynced"
    executing, executed = lines_of(audit_file(tmp_path))
    assert executed["started"] == f"{executing['run']}.{executing['seq']}"


async def test_a_local_call_is_flushed_before_it_starts_but_not_fsynced(build, tmp_path):
    storage = Storage()
    seen = {}

    async def execute(arguments):
        seen["lines"] = lines_of(audit_file(tmp_path))
        return {"echo": "ok"}

    registry = Registry()
    registry.add(make_capability(execute=execute))
    executor = Executor(registry, audit=AuditLog(tmp_path, ops=storage.ops()))
    outcome = await executor.invoke("test.echo", 1, {"text": "x"}, policy={},
                                    turn_state=TurnState())
    assert outcome.ok
    assert [line["outcome"] for line in seen["lines"]] == ["executing"]
    assert storage.fsyncs == 0


@pytest.mark.parametrize("fault", [errno.ENOSPC, errno.EIO, errno.EROFS, errno.EDQUOT])
async def test_a_refused_executing_record_means_the_call_never_runs(tmp_path, fault):
    storage = Storage()
    storage.fault = fault
    executor, capability = external_executor(tmp_path, storage)
    outcome = await approved_call(executor)
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert outcome.kind == "refused"
    assert capability.calls == [], "the external call ran without its record"
    assert "nothing left the device" in outcome.message
    assert not audit_file(tmp_path).exists() or lines_of(audit_file(tmp_path)) == []


async def test_a_failing_fsync_refuses_the_call_and_leaves_no_undurable_record(tmp_path):
    storage = Storage()
    storage.fsync_fault = errno.EIO
    executor, capability = external_executor(tmp_path, storage)
    outcome = await approved_call(executor)
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert "input/output error" in outcome.message
    assert capability.calls == []
    records = lines_of(audit_file(tmp_path))
    assert [(r["outcome"], r["error_code"]) for r in records] == [("refused", "AUDIT_UNAVAILABLE")]


async def test_records_refused_by_a_full_disk_are_written_once_it_has_room(tmp_path):
    storage = Storage()
    executor, capability = external_executor(tmp_path, storage)
    storage.fault = errno.ENOSPC
    refused = await approved_call(executor)
    await executor.invoke("test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState())
    storage.fault = None
    ran = await approved_call(executor)
    assert ran.ok and len(capability.calls) == 1
    outcomes = [(line["outcome"], line["error_code"]) for line in lines_of(audit_file(tmp_path))]
    assert outcomes == [
        ("refused", "AUDIT_UNAVAILABLE"),
        ("refused", "POLICY_DISABLED"),
        ("executing", None),
        ("executed", None),
    ]
    assert refused.audit_id.endswith(".1")


@pytest.mark.parametrize("chunk", [1, 7, 64])
async def test_short_writes_are_continued_until_the_line_is_whole(tmp_path, chunk):
    executor, _ = external_executor(tmp_path, Storage(chunk=chunk))
    for text in ("a", "b", "c"):
        assert (await approved_call(executor, text)).ok
    outcomes = [line["outcome"] for line in lines_of(audit_file(tmp_path))]
    assert outcomes == ["executing", "executed"] * 3


@pytest.mark.parametrize("written", [1, 40, 150])
async def test_a_write_that_fails_mid_line_is_cut_back_and_the_call_refused(tmp_path, written):
    storage = Storage()
    executor, capability = external_executor(tmp_path, storage)
    assert (await approved_call(executor, "first")).ok
    size = audit_file(tmp_path).stat().st_size
    storage.fail_after = written
    outcome = await approved_call(executor, "second")
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert capability.calls == [{"text": "first"}]
    assert audit_file(tmp_path).stat().st_size == size, "the partial line was not cut off"
    storage.fail_after = None
    assert (await approved_call(executor, "third")).ok
    assert all(record is not None for record in read_records(audit_file(tmp_path)))


def test_a_torn_last_line_is_set_aside_not_glued_to_the_next_record(tmp_path):
    log = AuditLog(tmp_path)
    log.record(make_capability(), version=1, stage="shape", outcome="executed")
    path = audit_file(tmp_path)
    with path.open("ab") as handle:
        handle.write(b'{"time":"2026-12-01T10:00:00Z","capabil')  # a crash mid-write
    log.record(make_capability(), version=1, stage="shape", outcome="executed")
    assert len(lines_of(path)) == 2
    corrupt = path.with_name("audit.jsonl.corrupt")
    assert corrupt.read_bytes() == b'{"time":"2026-12-01T10:00:00Z","capabil\n'


def test_start_up_sets_a_torn_line_aside_and_reports_the_count(tmp_path):
    AuditLog(tmp_path).record(make_capability(), version=1, stage="shape", outcome="executed")
    path = audit_file(tmp_path)
    with path.open("ab") as handle:
        handle.write(b'{"half a record')
    report = AuditLog(tmp_path).prepare()
    assert report.torn_lines_set_aside == 1
    assert len(lines_of(path)) == 1
    assert AuditLog(tmp_path).prepare().torn_lines_set_aside == 0


def test_a_whole_record_that_only_lost_its_newline_is_kept(tmp_path):
    path = audit_file(tmp_path)
    path.parent.mkdir(parents=True)
    record = {"time": "2026-12-01T10:00:00Z", "capability": "system.health", "outcome": "executed"}
    path.write_text(json.dumps(record))
    assert AuditLog(tmp_path).prepare().torn_lines_set_aside == 0
    assert lines_of(path) == [record]


def test_when_the_torn_line_cannot_be_set_aside_it_is_ended_where_it_is(tmp_path):
    path = audit_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"torn')
    path.with_name("audit.jsonl.corrupt").mkdir()  # cannot be written
    log = AuditLog(tmp_path)
    log.record(make_capability(), version=1, stage="shape", outcome="executed")
    records = list(read_records(path))
    assert records[0] is None, "the fragment stays one unreadable line, counted by readers"
    assert records[1]["outcome"] == "executed"


async def test_an_audit_path_that_is_a_directory_refuses_the_call(tmp_path):
    audit_file(tmp_path).mkdir(parents=True)
    executor, capability = external_executor(tmp_path, Storage())
    outcome = await approved_call(executor)
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert capability.calls == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
async def test_a_read_only_audit_file_refuses_the_call(tmp_path):
    AuditLog(tmp_path).record(make_capability(), version=1, stage="shape", outcome="executed")
    audit_file(tmp_path).chmod(0o400)
    executor, capability = external_executor(tmp_path, Storage())
    outcome = await approved_call(executor)
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert "permission denied" in outcome.message
    assert capability.calls == []


@pytest.fixture
def small_tmpfs(tmp_path):
    with mounted_tmpfs(tmp_path / "fs") as mount_point:
        yield mount_point


async def test_a_real_filesystem_that_fills_mid_write_never_tears_and_never_runs_unrecorded(
    small_tmpfs,
):
    ran = []

    async def execute(arguments):
        lines = lines_of(audit_file(small_tmpfs))
        ran.append(sum(line["outcome"] == "executing" for line in lines))
        return {"echo": arguments["text"]}

    executor, _ = external_executor(small_tmpfs, Storage(), execute)
    outcomes = [await approved_call(executor, f"q{n}") for n in range(400)]
    refused = [o for o in outcomes if o.error_code is ErrorCode.AUDIT_UNAVAILABLE]
    assert refused, "the 64 KiB filesystem never filled up"
    assert "the data filesystem is full" in refused[0].message
    records = lines_of(audit_file(small_tmpfs))  # whole lines only, even at the full end
    executing = [r for r in records if r["outcome"] == "executing"]
    assert len(executing) == len(ran) == sum(o.ok for o in outcomes)
    assert ran == list(range(1, len(ran) + 1)), "a call ran before its record was in the file"
    remount(small_tmpfs, "size=512k")
    report = AuditLog(small_tmpfs).prepare()
    assert report.torn_lines_set_aside == 0
    assert (await approved_call(executor, "after")).ok
    assert lines_of(audit_file(small_tmpfs))[-1]["outcome"] == "executed"


async def test_a_read_only_filesystem_refuses_the_call(small_tmpfs):
    AuditLog(small_tmpfs).record(make_capability(), version=1, stage="shape", outcome="executed")
    remount(small_tmpfs, "ro")
    executor, capability = external_executor(small_tmpfs, Storage())
    outcome = await approved_call(executor)
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert "read-only" in outcome.message
    assert capability.calls == []


BURST_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from sovereign.executor import AuditLog
    from sovereign.executor.audit_file import FileOps
    from tests.executor.conftest import make_capability

    def slow_write(fd, data):  # a few bytes per call: a kill lands mid-line
        time.sleep(0.0005)
        return os.write(fd, data[:5])

    log = AuditLog(sys.argv[1], ops=FileOps(write=slow_write))
    capability = make_capability()
    while True:
        log.record(capability, version=1, stage="shape", outcome="executed")
    """
)


def test_sigkill_during_a_burst_leaves_no_torn_line_after_a_restart(tmp_path):
    path = audit_file(tmp_path)
    for _attempt in range(3):
        writer = subprocess.Popen(
            [sys.executable, "-c", BURST_WRITER, str(tmp_path)], cwd=os.getcwd()
        )
        deadline = time.monotonic() + 30
        while (not path.exists() or path.stat().st_size < 4000) and time.monotonic() < deadline:
            time.sleep(0.02)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        if not path.read_bytes().endswith(b"\n"):
            break
    assert not path.read_bytes().endswith(b"\n"), "the kill never landed mid-line"
    complete = path.read_bytes().count(b"\n")
    report = AuditLog(tmp_path).prepare()
    assert report.torn_lines_set_aside == 1
    records = lines_of(path)
    assert len(records) == complete
    assert all(record["outcome"] == "executed" for record in records)
    AuditLog(tmp_path).record(make_capability(), version=1, stage="shape", outcome="executed")
    assert len(lines_of(path)) == complete + 1


@pytest.mark.parametrize("fault", [errno.ENOSPC, errno.EROFS])
async def test_no_approval_is_asked_while_its_ask_cannot_be_recorded(tmp_path, fault):
    storage = Storage()
    storage.fault = fault
    executor, capability = external_executor(tmp_path, storage)
    outcome = await executor.invoke(
        "test.echo", 1, {"text": "hello"}, policy=POLICY, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE, "a card was offered unrecorded"
    assert outcome.flags == ()
    assert "not put to the household for approval" in outcome.message
    assert capability.calls == []
    storage.fault = None
    asked = await executor.invoke(
        "test.echo", 1, {"text": "hello"}, policy=POLICY, turn_state=TurnState()
    )
    assert asked.error_code is ErrorCode.CONFIRMATION_REQUIRED
    records = lines_of(audit_file(tmp_path))
    assert [(r["outcome"], r["error_code"]) for r in records] == [
        ("refused", "AUDIT_UNAVAILABLE"),
        ("confirmation_required", "CONFIRMATION_REQUIRED"),
    ]
    assert asked.audit_id == f"{records[1]['run']}.{records[1]['seq']}"


async def test_records_dropped_while_unwritable_are_counted_in_the_file_once_it_has_room(
    tmp_path,
):
    from sovereign.executor.audit import BACKLOG_LINES, LOST_OUTCOME

    storage = Storage()
    executor, _ = external_executor(tmp_path, storage)
    storage.fault = errno.ENOSPC
    kept_back = BACKLOG_LINES + 40
    for _ in range(kept_back):  # refused by policy: each is one record, kept back
        await executor.invoke("test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState())
    storage.fault = None
    await executor.invoke("test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState())
    records = lines_of(audit_file(tmp_path))
    assert len(records) == BACKLOG_LINES + 2  # the kept, the new one, the count
    lost = records[-1]
    assert lost["outcome"] == LOST_OUTCOME and lost["lost"] == kept_back - BACKLOG_LINES
    seqs = [r["seq"] for r in records]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    await executor.invoke("test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState())
    assert lines_of(audit_file(tmp_path))[-1]["outcome"] == "refused"  # counted once
