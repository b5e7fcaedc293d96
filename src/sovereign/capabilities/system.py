"""``system.health``: the device's own vital signs (local, read_only, automatic)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import psutil

from sovereign.executor import Capability, Effect, Locality, Registry

_NUMBER_OR_NULL = {"type": ["number", "null"]}

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "cpu_temperature_celsius",
        "load_average_1m",
        "load_average_5m",
        "load_average_15m",
        "cpu_count",
        "memory_total_gb",
        "memory_used_gb",
        "memory_used_percent",
        "disk_total_gb",
        "disk_used_gb",
        "disk_used_percent",
        "data_disk_total_gb",
        "data_disk_used_gb",
        "data_disk_free_gb",
        "data_disk_used_percent",
        "uptime_hours",
    ],
    "properties": {
        "cpu_temperature_celsius": _NUMBER_OR_NULL,
        "cpu_temperature_note": {"type": "string"},
        "cpu_load_note": {"type": "string"},
        "cpu_hot": {"type": "boolean"},
        "cpu_busy": {"type": "boolean"},
        "disk_space_low": {"type": "boolean"},
        "disk_space_note": {"type": "string"},
        "load_average_1m": {"type": "number"},
        "load_average_5m": {"type": "number"},
        "load_average_15m": {"type": "number"},
        "cpu_count": {"type": "integer"},
        "memory_total_gb": {"type": "number"},
        "memory_used_gb": {"type": "number"},
        "memory_used_percent": {"type": "number"},
        "disk_total_gb": {"type": "number"},
        "disk_used_gb": {"type": "number"},
        "disk_used_percent": {"type": "number"},
        "data_disk_total_gb": {"type": "number"},
        "data_disk_used_gb": {"type": "number"},
        "data_disk_free_gb": {"type": "number"},
        "data_disk_used_percent": {"type": "number"},
        "uptime_hours": {"type": "number"},
    },
    "additionalProperties": False,
}

# Sensor names that carry the SoC/CPU temperature, most specific first
# (Raspberry Pi: cpu_thermal; x86: coretemp / k10temp; generic ACPI last).
_SENSORS = ("cpu_thermal", "coretemp", "k10temp", "soc_thermal", "acpitz")


def cpu_temperature_celsius() -> float | None:
    """The CPU temperature in °C, or None where the platform exposes none."""
    reader = getattr(psutil, "sensors_temperatures", None)
    readings = reader() if reader else {}
    for sensor in _SENSORS:
        if readings.get(sensor):
            return round(readings[sensor][0].current, 1)
    return None


NO_SENSOR_NOTE = "This device exposes no CPU temperature sensor, so the temperature is unknown."

# The verdicts a person asks for ("is it hot?", "is the CPU busy?", "is the disk low?") are
# given in words beside the figures: a small model asked a yes/no question otherwise guesses
# the verdict ("Yes, the box is running low on disk space" at 22 % used). The limits:
# a Raspberry Pi slows its CPU from 80 °C (its firmware's soft limit, hard at 85 °C);
# a load average above the number of cores means work is waiting for a CPU; a disk is low
# on space from 90 % used (the percentage the household is shown) or under 2 GB free (a
# model file, an update or the audit log's rotation need that much).
HOT_CELSIUS = 80.0
WARM_CELSIUS = 70.0
LOW_USED_PERCENT = 90.0
BUSY_PER_CORE = 0.7
LOW_FREE_GB = 2.0


def temperature_note(celsius: float) -> str:
    """The CPU temperature ``celsius`` (°C) with its verdict, as a sentence."""
    if celsius >= HOT_CELSIUS:
        verdict = "hot, so the CPU slows itself down"
    elif celsius >= WARM_CELSIUS:
        verdict = f"warm, below the {HOT_CELSIUS:g} °C at which the CPU slows down"
    else:
        verdict = "a normal temperature"
    return f"The CPU is at {celsius:g} °C: {verdict}."


def load_note(load_1m: float, cpu_count: int) -> str:
    """The one-minute load average on ``cpu_count`` cores with its verdict, as a sentence.

    Verdicts are said without negations ("lightly loaded", not "not busy"): a small model
    asked "is it busy?" reads "busy" and answers "yes".
    """
    per_core = load_1m / max(cpu_count, 1)
    if per_core > 1.0:
        verdict = "overloaded: more work is waiting than it has cores for"
    elif per_core >= BUSY_PER_CORE:
        verdict = "fairly busy"
    else:
        verdict = "lightly loaded, with time to spare"
    cores = "core" if cpu_count == 1 else "cores"
    return f"The CPU is {verdict} (load {load_1m:g} over the last minute, {cpu_count} {cores})."


def is_low_on_space(free_gb: float, used_percent: float) -> bool:
    """Whether a disk with ``free_gb`` GB free, ``used_percent`` % used, is low on space."""
    return free_gb < LOW_FREE_GB or used_percent >= LOW_USED_PERCENT


def is_busy(load_1m: float, cpu_count: int) -> bool:
    """Whether a one-minute load average on ``cpu_count`` cores is "fairly busy" or more."""
    return load_1m / max(cpu_count, 1) >= BUSY_PER_CORE


def space_note(label: str, total_gb: float, free_gb: float, used_percent: float) -> str:
    """How much of a disk (``label``: "system disk") is free (GB, %) and whether that is low."""
    low = is_low_on_space(free_gb, used_percent)
    verdict = "is running low on space" if low else "has plenty of space left"
    return (
        f"The {label} {verdict}: {free_gb:g} GB free of {total_gb:g} GB ({used_percent:g} % used)."
    )


def _gigabytes(size_bytes: int) -> float:
    """``size_bytes`` in decimal gigabytes (10^9 bytes), to one decimal."""
    return round(size_bytes / 1e9, 1)


def _space(usage: Any) -> tuple[float, float, float]:
    """A ``psutil.disk_usage`` result as (total GB, free GB, used %)."""
    return _gigabytes(usage.total), _gigabytes(usage.free), usage.percent


def existing_ancestor(path: Path) -> Path:
    """``path`` itself, or its nearest parent that exists (a data directory not yet created)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def read_health(disk_path: Path, data_path: Path | None = None) -> dict[str, Any]:
    """Collect one health snapshot; units are in the field names (GB = 10^9 bytes, hours,
    °C, %), rounded to what a person would say, so a small model can quote them.

    ``disk_*`` describe the filesystem of ``disk_path`` (``/``), ``data_disk_*``
    the one holding ``data_path`` (the data directory: audit log, settings,
    model), which may be another disk and may be full while ``/`` is not.

    Where no sensor exists, ``cpu_temperature_celsius`` is null and
    ``cpu_temperature_note`` says so in words, so a small model does not take
    another percentage for the temperature. ``cpu_temperature_note``,
    ``cpu_load_note`` and ``disk_space_note`` give the verdicts a person asks for
    (hot? busy? low on space?) in sentences a model may repeat as its answer;
    ``cpu_hot`` (only with a sensor), ``cpu_busy`` and ``disk_space_low`` are the
    same verdicts as booleans, which the answer check reads (``conversation.verdicts``).
    """
    # Rounded once: the note, the verdict and the figure all read the same number
    # (1.3996 on 2 cores is "fairly busy" at the 1.4 the household is shown).
    load_1, load_5, load_15 = (round(load, 2) for load in os.getloadavg())
    memory = psutil.virtual_memory()
    data_at = existing_ancestor(data_path or disk_path)
    disk, data = psutil.disk_usage(str(disk_path)), psutil.disk_usage(str(data_at))
    temperature = cpu_temperature_celsius()
    note = temperature_note(temperature) if temperature is not None else NO_SENSOR_NOTE
    hot = {} if temperature is None else {"cpu_hot": temperature >= HOT_CELSIUS}
    cpu_count = psutil.cpu_count() or 1
    disks = [("system disk", _space(disk))]
    if os.stat(data_at).st_dev != os.stat(disk_path).st_dev:
        disks.append(("disk holding the assistant's data", _space(data)))
    return {
        "cpu_temperature_celsius": temperature,
        "cpu_temperature_note": note,
        "cpu_load_note": load_note(load_1, cpu_count),
        "disk_space_note": " ".join(space_note(label, *space) for label, space in disks),
        **hot,
        "cpu_busy": is_busy(load_1, cpu_count),
        "disk_space_low": any(is_low_on_space(*space[1:]) for _, space in disks),
        "load_average_1m": load_1,
        "load_average_5m": load_5,
        "load_average_15m": load_15,
        "cpu_count": cpu_count,
        "memory_total_gb": _gigabytes(memory.total),
        "memory_used_gb": _gigabytes(memory.total - memory.available),
        "memory_used_percent": memory.percent,
        "disk_total_gb": _gigabytes(disk.total),
        "disk_used_gb": _gigabytes(disk.used),
        "disk_used_percent": disk.percent,
        "data_disk_total_gb": _gigabytes(data.total),
        "data_disk_used_gb": _gigabytes(data.used),
        "data_disk_free_gb": _gigabytes(data.free),
        "data_disk_used_percent": data.percent,
        "uptime_hours": round((time.time() - psutil.boot_time()) / 3600, 1),
    }


def register(
    registry: Registry, *, disk_path: Path = Path("/"), data_path: Path | None = None
) -> None:
    """Add ``system.health`` v1 to ``registry``.

    ``disk_path`` is the system filesystem reported as ``disk_*``; ``data_path``
    (the data directory; default ``disk_path``) the one reported as ``data_disk_*``.
    """

    async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(read_health, disk_path, data_path)

    registry.add(
        Capability(
            name="system.health",
            version=1,
            description=(
                "Read this device's health (the box this assistant runs on): CPU "
                "temperature, load averages, memory and disk use, uptime. Use it for "
                "questions like 'how hot is my device?' or 'is the disk full?'."
            ),
            arguments_schema={"type": "object", "properties": {}, "additionalProperties": False},
            result_schema=RESULT_SCHEMA,
            effect=Effect.READ_ONLY,
            locality=Locality.LOCAL,
            execute=execute,
            timeout_seconds=5.0,
            max_invocations_per_turn=2,
        )
    )
