"""Append-only audit log of capability calls, one JSON line per event (DESIGN §2).

Nothing leaves unrecorded: before a call starts, :meth:`AuditLog.begin` writes
an ``executing`` record (fsynced for external calls) and raises
:class:`AuditUnavailable` when it cannot, so the executor refuses the call. The
outcome follows in its own record, which names the ``executing`` record in
``started``. A crash in between leaves an ``executing`` record with no
outcome, which readers show as "may have left — outcome unknown".

Every record carries ``boot`` (the kernel's boot id), ``run`` (random, one per
log object, i.e. per service start), ``seq`` (1, 2, … within the run) and
``uptime_s`` (seconds since the device booted, a clock that wall-clock steps do
not move), so readers can order records and place them in time honestly. A
record's id is ``"<run>.<seq>"``: an answer to an approval names the asking
record in ``asked``.

A record has a fixed set of fields, none of which can hold arguments, queries,
URLs, fetched text or results: the API takes no free-form payload. Lines are
always whole (see :mod:`.audit_file`). Records the file refuses are kept in memory
(at most :data:`BACKLOG_LINES`) and written before the next record; when some had
to be dropped, a ``lost`` record that counts them follows.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .audit_file import FileOps, append_lines, read_records, repair_file, storage_problem
from .capability import Capability, Locality
from .errors import ErrorCode, OutcomeKind, Stage
from .text import valid_value

logger = logging.getLogger(__name__)

AUDIT_FILENAME = "audit.jsonl"
BACKLOG_LINES = 256
"""Records kept in memory when the file refuses them, written before the next record."""
LOST_OUTCOME = "lost"
"""``outcome`` of the record written once the file takes records again after more than
:data:`BACKLOG_LINES` were kept back: its ``lost`` field counts the oldest ones dropped."""
LOST_REASON = "records dropped while the audit log could not be written"
RESTART_REASON = "service restarted"
"""``reason`` of the ``expired`` records that close approvals a restart left unanswered."""


def uptime_seconds() -> float:
    """Seconds since the device booted, counting suspend; never stepped by clock changes."""
    clock = getattr(time, "CLOCK_BOOTTIME", None)
    return time.clock_gettime(clock) if clock is not None else time.monotonic()


def kernel_boot_id() -> str | None:
    """The kernel's random id of this boot (Linux), or ``None`` where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


class AuditUnavailable(Exception):
    """The ``executing`` record could not be written, so the call must not run.

    ``problem`` is a short phrase such as "the data filesystem is full".
    """

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class StartupReport:
    """What :meth:`AuditLog.prepare` did: torn lines set aside, open approvals closed."""

    torn_lines_set_aside: int = 0
    open_asks_closed: int = 0
    problem: str | None = None


class AuditLog:
    """Writes ``<data dir>/capabilities/audit.jsonl`` lazily, mode 0600.

    Args:
        data_dir: the service's data directory; ``None`` keeps no log (tests, chat).
        ops: the write/fsync calls (tests inject ones failing with ENOSPC or EIO).
        wall: the wall clock, Unix seconds. uptime: seconds since boot.
        boot_id: the boot's id (default: the kernel's, else this log's run id).
    """

    def __init__(
        self,
        data_dir: Path | None,
        *,
        ops: FileOps | None = None,
        wall: Callable[[], float] = time.time,
        uptime: Callable[[], float] = uptime_seconds,
        boot_id: str | None = None,
    ) -> None:
        self.path = None if data_dir is None else Path(data_dir) / "capabilities" / AUDIT_FILENAME
        self.run = secrets.token_hex(4)
        self.boot = boot_id or kernel_boot_id() or self.run
        self._ops = ops or FileOps()
        self._wall, self._uptime = wall, uptime
        self._lock = threading.Lock()
        self._seq = 0
        self._backlog: deque[bytes] = deque()
        self._dropped = 0
        self._failing: str | None = None

    def record(
        self,
        capability: Capability | None,
        *,
        version: int,
        stage: Stage,
        outcome: OutcomeKind,
        error_code: ErrorCode | None = None,
        reason: str | None = None,
        duration_seconds: float = 0.0,
        asked: str | None = None,
        started: str | None = None,
        flags: Iterable[str] | None = None,
        strict: bool = False,
        sent: bool | None = None,
    ) -> str | None:
        """Append one event; unless ``strict``, never raises (a refused write is kept
        and retried later).

        Args:
            capability: the resolved capability (for its classification), or None
                when resolution failed.
            version: the version proposed. An unresolved capability is recorded
                as ``"unknown"`` so model-invented text never lands in the file.
            stage: the last stage reached. outcome/error_code: what happened.
            reason: a capability's fixed label for a refusal (see CapabilityError).
            duration_seconds: wall time of the invocation, in seconds.
            asked: id of the record that asked for the approval this answers.
            started: id of the ``executing`` record this outcome closes.
            flags: for an approval asked, the kinds of the flags on its card (fixed
                labels such as ``"email_address"`` or ``"from_a_result"``, never the
                flagged text); written as a sorted list, only when given.
            strict: the record must be in the file before this returns (an approval
                asked: a card is shown only when its ask is on record).
            sent: for a failed call, whether its request was sent (``False``: it
                failed before anything left); written only when known.

        Returns:
            The record's id (``"<run>.<seq>"``), or ``None`` when no log is kept.

        Raises:
            AuditUnavailable: only with ``strict``, when the record could not be written.
        """
        fields = _event(
            _describe(capability, version),
            stage,
            outcome,
            error_code=str(error_code) if error_code else None,
            reason=reason,
            duration_ms=round(duration_seconds * 1000, 1),
            asked=asked,
            started=started,
        )
        if flags is not None:
            fields["flags"] = flag_kinds(flags)
        if sent is not None:
            fields["sent"] = sent
        return self._write_now(fields, durable=False) if strict else self._keep(fields)

    def begin(
        self, capability: Capability, *, version: int, asked: str | None = None
    ) -> str | None:
        """Write the ``executing`` record of a call about to start; returns its id.

        The record is in the file before this returns (for an external call,
        fsynced to disk), together with any records kept back earlier.

        Raises:
            AuditUnavailable: the record could not be written; the call must not run.
        """
        fields = _event(_describe(capability, version), Stage.EXECUTE, OutcomeKind.EXECUTING)
        fields["asked"] = asked
        return self._write_now(fields, durable=capability.locality is Locality.EXTERNAL)

    def _write_now(self, fields: dict[str, Any], *, durable: bool) -> str | None:
        """Write ``fields`` (after any records kept back) or raise :class:`AuditUnavailable`."""
        if self.path is None:
            return None
        with self._lock:
            ref, line = self._line(fields)
            try:
                self._flush(line, durable=durable)
            except OSError as exc:
                self._seq -= 1  # never written: the next record takes its number
                logger.error(
                    "audit log %s refused a record that must be written: %s", self.path, exc
                )
                raise AuditUnavailable(storage_problem(exc)) from exc
        return ref

    def prepare(self, *, close_open_asks: bool = False) -> StartupReport:
        """At start-up: set a torn last line aside and, for the service, close
        approvals earlier runs left unanswered with ``expired`` records
        (``reason`` :data:`RESTART_REASON`). Never raises; the report says what
        happened and any problem.
        """
        if self.path is None or not self.path.exists():
            return StartupReport()
        try:
            torn = self._repair()
            closed = self._close_open_asks() if close_open_asks else 0
        except OSError as exc:
            logger.error("audit log %s could not be prepared: %s", self.path, exc)
            return StartupReport(problem=storage_problem(exc))
        if torn:
            logger.warning("audit log: %d torn line set aside in %s.corrupt", torn, self.path)
        if closed:
            logger.info("audit log: %d unanswered approval(s) closed as expired", closed)
        return StartupReport(torn, closed)

    def _repair(self) -> int:
        assert self.path is not None
        with self._lock:
            return repair_file(self.path, self._ops)

    def _close_open_asks(self) -> int:
        """Append an ``expired`` record for each earlier run's unanswered approval."""
        assert self.path is not None
        open_asks = unanswered_asks(read_records(self.path), exclude_run=self.run)
        for ref, ask in open_asks.items():
            described = {key: ask.get(key) for key in ("capability", "version", "classification")}
            expired = _event(described, Stage.CONFIRM, OutcomeKind.EXPIRED, asked=ref)
            self._keep({**expired, "reason": RESTART_REASON})
        return len(open_asks)

    def _keep(self, fields: dict[str, Any]) -> str | None:
        """Write ``fields`` as the next record, or keep it back when the file refuses it."""
        if self.path is None:
            return None
        with self._lock:
            ref, line = self._line(fields)
            try:
                self._flush(line, durable=False)
            except OSError as exc:
                self._hold(line)
                self._report_failure(exc)
        return ref

    def _flush(self, line: bytes, *, durable: bool) -> None:
        """Under the lock: the records kept back, ``line``, and, when records were lost
        meanwhile, a ``lost`` record saying how many; all or nothing.

        Raises:
            OSError: nothing was written (the records kept back stay kept).
        """
        lines = [*self._backlog, line]
        if self._dropped:
            lines.append(self._line(self._lost_fields())[1])
        try:
            self._append(lines, durable=durable)
        except OSError:
            if self._dropped:
                self._seq -= 1  # the lost record was not written either
            raise
        self._backlog.clear()
        self._dropped = 0

    def _lost_fields(self) -> dict[str, Any]:
        described = {"capability": None, "version": None, "classification": None}
        fields = _event(described, "audit", LOST_OUTCOME, reason=LOST_REASON)
        fields["lost"] = self._dropped
        return fields

    def _report_failure(self, exc: OSError) -> None:
        """Log a refused write once per distinct problem, not once per record."""
        problem = storage_problem(exc)
        if problem != self._failing:
            logger.error("audit log %s not written (kept in memory): %s", self.path, exc)
        self._failing = problem

    def _line(self, fields: dict[str, Any]) -> tuple[str, bytes]:
        """Under the lock: number the record and serialise it."""
        self._seq += 1
        head = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._wall())),
            "boot": self.boot,
            "run": self.run,
            "seq": self._seq,
            "uptime_s": round(self._uptime(), 3),
        }
        # Every field is a fixed label or a number, but a capability's reason could
        # still carry text it read: the line is valid UTF-8 whatever it holds.
        text = json.dumps(valid_value({**head, **fields}), separators=(",", ":"))
        return f"{self.run}.{self._seq}", (text + "\n").encode()

    def _append(self, lines: list[bytes], *, durable: bool) -> None:
        assert self.path is not None
        set_aside = append_lines(self.path, b"".join(lines), durable=durable, ops=self._ops)
        if self._failing is not None:
            logger.warning("audit log %s is written again (%d kept)", self.path, len(lines) - 1)
            self._failing = None
        if set_aside:
            logger.warning("audit log: a torn line was set aside in %s.corrupt", self.path)

    def _hold(self, line: bytes) -> None:
        if len(self._backlog) >= BACKLOG_LINES:
            self._backlog.popleft()
            self._dropped += 1
            logger.error("audit log: %d record(s) lost while unwritable", self._dropped)
        self._backlog.append(line)


_FLAG_KIND = re.compile(r"[a-z][a-z_]{0,39}")


def flag_kinds(kinds: Iterable[str]) -> list[str]:
    """Distinct flag kinds, sorted, for the audit record. Anything that is not a fixed
    label (lower-case words joined by ``_``) is left out, so free text never reaches
    the log."""
    kept = {kind for kind in kinds if isinstance(kind, str) and _FLAG_KIND.fullmatch(kind)}
    return sorted(kept)


def record_id(record: dict[str, Any]) -> str | None:
    """``"<run>.<seq>"`` of a record read back, or ``None`` for one without them."""
    run, seq = record.get("run"), record.get("seq")
    return f"{run}.{seq}" if isinstance(run, str) and isinstance(seq, int) else None


def unanswered_asks(
    records: Iterable[dict[str, Any] | None], *, exclude_run: str | None = None
) -> dict[str, dict[str, Any]]:
    """Records that asked for an approval no later record answers, by id.

    Args:
        records: as :func:`~.audit_file.read_records` yields them (``None`` skipped).
        exclude_run: leave out this run's asks (they may still be answered).
    """
    asks: dict[str, dict[str, Any]] = {}
    answered: set[str] = set()
    for record in records:
        if record is None:
            continue
        if isinstance(record.get("asked"), str):
            answered.add(record["asked"])
        ref = record_id(record)
        is_ask = ref is not None and record.get("outcome") == "confirmation_required"
        if is_ask and record.get("run") != exclude_run:
            asks[str(ref)] = record
    return {ref: ask for ref, ask in asks.items() if ref not in answered}


def _event(
    described: dict[str, Any],
    stage: str,
    outcome: str,
    *,
    error_code: str | None = None,
    reason: str | None = None,
    duration_ms: float = 0.0,
    asked: str | None = None,
    started: str | None = None,
) -> dict[str, Any]:
    """Every field of one record after its head: what it describes, then the event."""
    return {
        **described,
        "stage": str(stage),
        "outcome": str(outcome),
        "error_code": error_code,
        "reason": reason,
        "duration_ms": duration_ms,
        "asked": asked,
        "started": started,
    }


def _describe(capability: Capability | None, version: int) -> dict[str, Any]:
    return {
        "capability": capability.name if capability else "unknown",
        "version": version if capability else None,
        "classification": capability.classification() if capability else None,
    }
