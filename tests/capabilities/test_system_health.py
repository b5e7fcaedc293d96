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


def test_a_missing_sensor_is_said_in_words(monkeypatch, tmp_path):
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: None)
    health = system.read_health(tmp_path)
    assert health["cpu_temperature_celsius"] is None
    assert "no CPU temperature sensor" in health["cpu_temperature_note"]
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: 48.0)
    assert system.read_health(tmp_path)["cpu_temperature_note"] == (
        "The CPU is at 48 °C: a normal temperature."
    )


@pytest.mark.parametrize(
    ("celsius", "verdict"),
    [
        (45.5, "a normal temperature"),
        (69.9, "a normal temperature"),
        (70.0, "warm, below the 80"),
        (79.9, "warm, below the 80"),
        (80.0, "hot, so"),
        (91.0, "hot, so"),
    ],
)
def test_the_temperature_comes_with_its_verdict(celsius, verdict):
    note = system.temperature_note(celsius)
    assert verdict in note
    assert f"{celsius:g} °C" in note


@pytest.mark.parametrize(
    ("load", "cores", "verdict"),
    [
        (0.1, 4, "lightly loaded"),
        (2.7, 4, "lightly loaded"),
        (2.8, 4, "fairly busy"),
        (4.0, 4, "fairly busy"),
        (4.01, 4, "overloaded: more work"),
        (1.5, 1, "overloaded: more work"),
        (0.0, 1, "lightly loaded"),
    ],
)
def test_the_load_comes_with_its_verdict_per_core(load, cores, verdict):
    note = system.load_note(load, cores)
    assert note.startswith(f"The CPU is {verdict}")
    assert f"load {load:g} over the last minute, {cores} core" in note


@pytest.mark.parametrize(
    ("total", "free", "used", "low"),
    [
        (64.0, 40.0, 37.5, False),
        (64.0, 6.5, 89.9, False),
        (64.0, 6.4, 90.0, True),
        (16.0, 1.9, 88.0, True),
        (1000.0, 2.0, 99.8, True),
        (0.0, 0.0, 100.0, True),
    ],
)
def test_the_disk_space_comes_with_its_verdict(total, free, used, low):
    note = system.space_note("system disk", total, free, used)
    verdict = "is running low on space" if low else "has plenty of space left"
    assert note.startswith(f"The system disk {verdict}:")
    assert f"{free:g} GB free of {total:g} GB ({used:g} % used)" in note


def test_the_notes_read_the_same_figures_as_the_fields(tmp_path):
    health = system.read_health(tmp_path)
    assert (
        f"{health['disk_total_gb']:g} GB ({health['disk_used_percent']:g} % used)"
        in (health["disk_space_note"])
    )
    assert f"load {health['load_average_1m']:g} " in health["cpu_load_note"]
    assert "assistant's data" not in health["disk_space_note"]  # one filesystem, one sentence


def test_the_data_filesystem_is_reported_beside_the_system_disk(tmp_path):
    from tests.fakes.tmpfs import fill, mounted_tmpfs

    with mounted_tmpfs(tmp_path / "data", "1m") as data_dir:
        fill(data_dir)
        health = system.read_health(tmp_path, data_dir / "not-yet-created")
        assert health["data_disk_used_percent"] == 100.0
        assert health["data_disk_free_gb"] == 0.0
        assert health["data_disk_total_gb"] == 0.0  # 1 MiB, in GB to one decimal
        assert health["disk_used_percent"] < 100.0  # the system disk is not the full one
        space = health["disk_space_note"]
        assert "The disk holding the assistant's data is running low on space: 0 GB free" in space


async def test_the_service_reports_its_data_directory(tmp_path):
    from sovereign.service.settings import Settings
    from sovereign.service.wiring import build_registry

    registry = build_registry(Settings(data_dir=tmp_path / "data", backend="scripted"))
    outcome = await Executor(registry).invoke(
        "system.health", 1, {}, policy={}, turn_state=TurnState()
    )
    assert outcome.ok, outcome.message
    assert 0 <= outcome.result["data_disk_used_percent"] <= 100


@pytest.mark.parametrize("celsius", [None, 45.0, 75.0, 85.0])
def test_the_notes_read_no_household_state_but_a_temperature(monkeypatch, tmp_path, celsius):
    # The states check (conversation.states) reads results as text: a note that said
    # "on 2 cores" would let "the garage door is on/open" pass after a health check.
    from sovereign.conversation.answer.states import kinds_read

    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: celsius)
    for load in (0.1, 1.6, 3.5):
        monkeypatch.setattr(system.os, "getloadavg", lambda load=load: (load, load, load))
        read = kinds_read([system.read_health(tmp_path)])
        assert read == (frozenset() if celsius is None else {"a temperature"})


@pytest.mark.parametrize("load", [1.3996, 1.3949, 1.4049, 0.6999, 2.0049, 1.99951])
@pytest.mark.parametrize("cores", [1, 2, 4])
def test_the_load_note_and_the_busy_verdict_agree_at_every_boundary(
    monkeypatch, tmp_path, load, cores
):
    # The note and the boolean once read the load unrounded and rounded: at 1.3996 on
    # 2 cores the note said "fairly busy" (1.4) and cpu_busy was false (0.6998).
    from sovereign.conversation.answer.verdicts import contradicted, verdicts_in

    monkeypatch.setattr(system.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(system.psutil, "cpu_count", lambda: cores)
    health = system.read_health(tmp_path)
    shown = health["load_average_1m"]
    assert health["cpu_busy"] is system.is_busy(shown, cores)
    assert contradicted(health["cpu_load_note"], verdicts_in([health])) == []
    assert f"load {shown:g} " in health["cpu_load_note"]
