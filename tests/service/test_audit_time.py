"""Activity's windows stay honest when the wall clock is stepped, and say that it jumped."""

from __future__ import annotations

import pytest

from sovereign.executor import AuditLog, Capability, Effect, Locality, OutcomeKind, Stage
from sovereign.service.audit_summary import audit_path, summarize
from sovereign.service.audit_time import Now

DAY = 86400.0
TRUE_NOW = 1_800_000_000.0  # 2027-01-15


async def _noop(arguments):
    return {}


HEALTH = Capability(
    name="system.health", version=1, description="d", arguments_schema={"type": "object"},
    result_schema={"type": "object"}, effect=Effect.READ_ONLY, locality=Locality.LOCAL,
    execute=_noop,
)


class Device:
    """A device whose wall clock the test sets, with a boot clock that only moves forward."""

    def __init__(self, data_dir, boot="boot-1", wall_error=0.0, uptime=100.0):
        self.data_dir, self.boot, self.wall_error, self.uptime = data_dir, boot, wall_error, uptime
        self.true_time = TRUE_NOW

    def log(self):
        return AuditLog(
            self.data_dir, wall=lambda: self.true_time + self.wall_error,
            uptime=lambda: self.uptime, boot_id=self.boot,
        )

    def health_check(self, log):
        log.record(HEALTH, version=1, stage=Stage.SHAPE, outcome=OutcomeKind.EXECUTED)

    def wait(self, seconds):
        self.true_time += seconds
        self.uptime += seconds

    def now(self):
        return Now(self.true_time + self.wall_error, self.uptime, self.boot)


def executed(device, days):
    return summarize(audit_path(device.data_dir), days=days, now=device.now())


@pytest.mark.parametrize("step_days", [3.0, -3.0, 400.0, -400.0])
def test_a_clock_step_after_the_records_moves_nothing_in_or_out_of_the_window(
    tmp_path, step_days
):
    device = Device(tmp_path)
    log = device.log()
    device.health_check(log)
    device.wait(2 * DAY)  # two days ago, truly
    device.health_check(log)
    device.wait(3600)
    device.wall_error = step_days * DAY  # the wall clock is stepped
    one_day, three_days = executed(device, 1), executed(device, 3)
    assert one_day["totals"]["executed"] == 1
    assert three_days["totals"]["executed"] == 2
    assert one_day["clock_jumps"] == 1


def test_records_written_while_the_clock_was_wrong_are_placed_by_the_later_correct_one(tmp_path):
    """A Pi without a real-time clock boots a year behind, until NTP steps it."""
    device = Device(tmp_path, boot="boot-1", wall_error=-365 * DAY, uptime=5.0)
    log = device.log()
    device.health_check(log)  # stamped a year ago
    device.wait(30)
    device.wall_error = 0.0  # NTP
    device.health_check(log)
    later = Device(tmp_path, boot="boot-2", uptime=50.0)  # the next boot, an hour later
    later.true_time = device.true_time + 3600
    summary = executed(later, 1)
    assert summary["totals"]["executed"] == 2
    assert summary["clock_jumps"] == 1


def test_an_earlier_boot_whose_clock_ran_ahead_is_never_placed_after_this_boot_began(tmp_path):
    ahead = Device(tmp_path, boot="boot-1", wall_error=30 * DAY)
    ahead.health_check(ahead.log())
    current = Device(tmp_path, boot="boot-2", uptime=10 * DAY)
    current.true_time = TRUE_NOW + 10 * DAY
    assert executed(current, 7)["totals"]["executed"] == 0  # it was before this boot: > 10 days
    assert executed(current, 11)["totals"]["executed"] == 1


def test_a_steady_clock_reports_no_jump(tmp_path):
    device = Device(tmp_path)
    log = device.log()
    for _ in range(5):
        device.health_check(log)
        device.wait(600)
    summary = executed(device, 1)
    assert summary["clock_jumps"] == 0 and summary["totals"]["executed"] == 5


def test_records_without_boot_clock_fields_keep_their_wall_time(tmp_path):
    import json
    import time

    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(TRUE_NOW - 2 * DAY))
    record = {"time": stamp, "capability": "system.health", "outcome": "executed",
              "stage": "shape", "classification": {"confirmation": "automatic"}}
    path.write_text(json.dumps(record) + "\n")
    now = Now(TRUE_NOW, 100.0, "boot-9")
    assert summarize(path, days=1, now=now)["totals"]["executed"] == 0
    assert summarize(path, days=3, now=now)["totals"]["executed"] == 1
