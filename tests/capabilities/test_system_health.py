"""system.health: local, read_only, automatic; numbers with units in their names."""

from __future__ import annotations

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


def test_a_missing_sensor_is_said_in_words(monkeypatch, tmp_path):
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: None)
    health = system.read_health(tmp_path)
    assert health["cpu_temperature_celsius"] is None
    assert "no CPU temperature sensor" in health["cpu_temperature_note"]
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: 48.0)
    assert "cpu_temperature_note" not in system.read_health(tmp_path)


def test_the_data_filesystem_is_reported_beside_the_system_disk(tmp_path):
    from tests.fakes.tmpfs import fill, mounted_tmpfs

    with mounted_tmpfs(tmp_path / "data", "1m") as data_dir:
        fill(data_dir)
        health = system.read_health(tmp_path, data_dir / "not-yet-created")
        assert health["data_disk_used_percent"] == 100.0
        assert health["data_disk_free_gb"] == 0.0
        assert health["data_disk_total_gb"] == 0.0  # 1 MiB, in GB to one decimal
        assert health["disk_used_percent"] < 100.0  # the system disk is not the full one


async def test_the_service_reports_its_data_directory(tmp_path):
    from sovereign.service.settings import Settings
    from sovereign.service.wiring import build_registry

    registry = build_registry(Settings(data_dir=tmp_path / "data", backend="scripted"))
    outcome = await Executor(registry).invoke(
        "system.health", 1, {}, policy={}, turn_state=TurnState()
    )
    assert outcome.ok, outcome.message
    assert 0 <= outcome.result["data_disk_used_percent"] <= 100
