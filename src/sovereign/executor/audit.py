"""Append-only audit log of capability outcomes, one JSON line per event (DESIGN §2).

A record has a fixed set of fields, none of which can hold arguments, queries,
URLs, fetched text or results: the API takes no free-form payload.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

from .capability import Capability
from .errors import ErrorCode, OutcomeKind, Stage

logger = logging.getLogger(__name__)

AUDIT_FILENAME = "audit.jsonl"


class AuditLog:
    """Writes ``<data dir>/capabilities/audit.jsonl`` lazily, mode 0600.

    Args:
        data_dir: the service's data directory; ``None`` keeps no log (tests, chat).

    A write failure is logged and swallowed: auditing never crashes a turn.
    """

    def __init__(self, data_dir: Path | None) -> None:
        self.path = None if data_dir is None else Path(data_dir) / "capabilities" / AUDIT_FILENAME
        self._lock = threading.Lock()

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
    ) -> None:
        """Append one event.

        Args:
            capability: the resolved capability (for its classification), or None
                when resolution failed.
            version: the version proposed. An unresolved capability is recorded
                as ``"unknown"`` so model-invented text never lands in the file.
            stage: the last stage reached. outcome/error_code: what happened.
            reason: a capability's fixed label for a refusal (see CapabilityError).
            duration_seconds: wall time of the invocation, in seconds.
        """
        if self.path is None:
            return
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "capability": capability.name if capability else "unknown",
            "version": version if capability else None,
            "classification": capability.classification() if capability else None,
            "stage": str(stage),
            "outcome": str(outcome),
            "error_code": str(error_code) if error_code else None,
            "reason": reason,
            "duration_ms": round(duration_seconds * 1000, 1),
        }
        self._append(json.dumps(line, separators=(",", ":")) + "\n")

    def _append(self, text: str) -> None:
        if self.path is None:
            return
        try:
            with self._lock:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, text.encode())
                finally:
                    os.close(fd)
        except OSError as exc:
            logger.error("audit log %s not written: %s", self.path, exc)
