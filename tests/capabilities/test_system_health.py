"""system.health: local, read_only, automatic; numbers with units in their names."""

from __future__ import annotations

import pytest

from sovereign.capabilities import system
from sovereign.executor import Confirmation, Executor, Registry, TurnState


async def test_system_health_runs_without_policy_or_confirmation(tmp_path):
    registry = Registry()
    system.register(registry, disk_path=tmp_path)
    capability = registry.get("system.health", 1)
    assert capability.confirmation is Confirmation.AUTOMATIC
    assert capability.policy_key is None
    outcome = await Executor(registry).invoke(
        "system.health", 1, {}, policy={}, turn_state=TurnState()
    )
    assert outcome.ok, outcome.message
    result = outcome.result
    assert result["memory_total_gb"] >= result["memory_used_gb"] > 0
    assert 0 <= result["disk_used_percent"] <= 100
    assert result["uptime_hours"] >= 0
    assert result["cpu_count"] >= 1


def test_sizes_are_in_gigabytes_to_one_decimal(monkeypatch, tmp_path):
    class Memory:
        total, available, percent = 8_000_000_000, 6_049_999_999, 24.4

    monkeypatch.setattr(system.psutil, "virtual_memory", lambda: Memory)
    health = system.read_health(tmp_path)
    assert (health["memory_total_gb"], health["memory_used_gb"]) == (8.0, 2.0)


async def test_system_health_takes_no_arguments(tmp_path):
    registry = Registry()
    system.register(registry, disk_path=tmp_path)
    outcome = await Executor(registry).invoke(
        "system.health", 1, {"verbose": True}, policy={}, turn_state=TurnState()
    )
    assert outcome.error_code == "INVALID_ARGUMENTS"


def test_cpu_temperature_reads_the_first_known_sensor(monkeypatch):
    class Reading:
        def __init__(self, current):
            self.current = current

    monkeypatch.setattr(
        system.psutil,
        "sensors_temperatures",
        lambda: {"acpitz": [Reading(30.0)], "cpu_thermal": [Reading(51.234)]},
        raising=False,
    )
    assert system.cpu_temperature_celsius() == 51.2
    monkeypatch.setattr(system.psutil, "sensors_temperatures", lambda: {}, raising=False)
    assert system.cpu_temperature_celsius() is None


def test_a_missing_sensor_leaves_no_temperature_and_no_verdict(monkeypatch, tmp_path):
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: None)
    health = system.read_health(tmp_path)
    assert health["cpu_temperature_celsius"] is None
    assert "cpu_temperature_verdict" not in health
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: 48.0)
    assert system.read_health(tmp_path)["cpu_temperature_verdict"] == "normal"


@pytest.mark.parametrize(
    ("celsius", "verdict"),
    [(45.5, "normal"), (69.9, "normal"), (70.0, "warm"), (79.9, "warm"), (80.0, "hot"),
     (91.0, "hot")],
)
def test_the_temperature_verdict_follows_the_pis_own_limits(celsius, verdict):
    assert system.temperature_verdict(celsius) == verdict


@pytest.mark.parametrize(
    ("load", "cores", "verdict"),
    [
        (0.1, 4, "light"),
        (2.7, 4, "light"),
        (2.8, 4, "busy"),
        (4.0, 4, "busy"),
        (4.01, 4, "overloaded"),
        (1.5, 1, "overloaded"),
        (0.0, 1, "light"),
    ],
)
def test_the_load_verdict_is_per_core(load, cores, verdict):
    assert system.load_verdict(load, cores) == verdict


@pytest.mark.parametrize(
    ("free", "used", "low"),
    [(40.0, 37.5, False), (6.5, 89.9, False), (6.4, 90.0, True), (1.9, 88.0, True),
     (2.0, 99.8, True), (0.0, 100.0, True)],
)
def test_a_disk_is_low_from_ninety_percent_or_under_two_gigabytes(free, used, low):
    assert system.is_low_on_space(free, used) is low


def test_the_result_holds_no_sentence_only_figures_and_verdicts(tmp_path):
    health = system.read_health(tmp_path)
    words = [k for k, v in health.items() if isinstance(v, str) and not k.endswith("_verdict")]
    assert words == []
    assert health["data_disk_separate"] is False  # one filesystem here
    assert health["memory_available_gb"] + health["memory_used_gb"] == pytest.approx(
        health["memory_total_gb"], abs=0.11
    )


def test_the_data_filesystem_is_reported_beside_the_system_disk(tmp_path):
    from tests.fakes.tmpfs import fill, mounted_tmpfs

    with mounted_tmpfs(tmp_path / "data", "1m") as data_dir:
        fill(data_dir)
        health = system.read_health(tmp_path, data_dir / "not-yet-created")
        assert health["data_disk_used_percent"] == 100.0
        assert health["data_disk_free_gb"] == 0.0
        assert health["data_disk_total_gb"] == 0.0  # 1 MiB, in GB to one decimal
        assert health["disk_used_percent"] < 100.0  # the system disk is not the full one
        assert health["data_disk_separate"] is True and health["disk_space_low"] is True


async def test_the_service_reports_its_data_directory(tmp_path):
    from sovereign.service.settings import Settings
    from sovereign.service.wiring import build_registry

    registry = build_registry(Settings(data_dir=tmp_path / "data", backend="scripted"))
    outcome = await Executor(registry).invoke(
        "system.health", 1, {}, policy={}, turn_state=TurnState()
    )
    assert outcome.ok, outcome.message
    assert 0 <= outcome.result["data_disk_used_percent"] <= 100


@pytest.mark.parametrize("load", [1.3996, 1.3949, 1.4049, 0.6999, 2.0049, 1.99951])
@pytest.mark.parametrize("cores", [1, 2, 4])
def test_the_load_figure_and_its_verdict_agree_at_every_boundary(
    monkeypatch, tmp_path, load, cores
):
    # The verdict once read the load unrounded and the figure rounded: at 1.3996 on 2
    # cores the figure said 1.4 (busy) and the verdict was not busy (0.6998 per core).
    monkeypatch.setattr(system.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(system.psutil, "cpu_count", lambda: cores)
    health = system.read_health(tmp_path)
    shown = health["load_average_1m"]
    assert health["cpu_load_verdict"] == system.load_verdict(shown, cores)


class ReservedDisk:
    """psutil's reading of a disk with space reserved (this is the household's trial disk):
    its ``percent`` is used / (used + free), 24.2, not a share of the 270.6 GB."""

    total, used, free, percent = 270_553_174_016, 26_368_274_432, 82_576_019_456, 24.2


def test_a_disk_s_used_and_free_add_up_and_its_share_is_of_the_whole_disk(monkeypatch, tmp_path):
    monkeypatch.setattr(system.psutil, "disk_usage", lambda path: ReservedDisk)
    health = system.read_health(tmp_path)
    for disk in ("disk", "data_disk"):
        total, free = health[f"{disk}_total_gb"], health[f"{disk}_free_gb"]
        assert (total, free) == (270.6, 82.6)
        assert health[f"{disk}_used_gb"] == 188.0 == round(total - free, 1)
        assert health[f"{disk}_used_percent"] == 69.5  # 188.0 of 270.6; never 24.2
    assert health["disk_space_low"] is False


def test_a_disk_without_reserved_space_keeps_psutil_s_share(monkeypatch, tmp_path):
    class Disk:
        total, used, free, percent = 64_000_000_000, 22_800_000_000, 41_200_000_000, 35.6

    monkeypatch.setattr(system.psutil, "disk_usage", lambda path: Disk)
    health = system.read_health(tmp_path)
    assert (health["disk_used_gb"], health["disk_used_percent"]) == (22.8, 35.6)


def test_the_share_of_memory_in_use_is_that_of_the_figures_shown(monkeypatch, tmp_path):
    class Memory:  # a platform whose percent is not (total - available) / total
        total, available, percent = 25_324_961_792, 23_310_667_776, 12.0

    monkeypatch.setattr(system.psutil, "virtual_memory", lambda: Memory)
    health = system.read_health(tmp_path)
    total, available = health["memory_total_gb"], health["memory_available_gb"]
    assert (total, available, health["memory_used_gb"]) == (25.3, 23.3, 2.0)
    assert health["memory_used_percent"] == round(100 * 2.0 / 25.3, 1) == 7.9
