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


def _gigabytes(size_bytes: int) -> float:
    """``size_bytes`` in decimal gigabytes (10^9 bytes), to one decimal."""
    return round(size_bytes / 1e9, 1)


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
    another percentage for the temperature.
    """
    load_1, load_5, load_15 = os.getloadavg()
    memory = psutil.virtual_memory()
    disk = psutil.disk_usage(str(disk_path))
    data = psutil.disk_usage(str(existing_ancestor(data_path or disk_path)))
    temperature = cpu_temperature_celsius()
    note = {} if temperature is not None else {"cpu_temperature_note": NO_SENSOR_NOTE}
    return {
        "cpu_temperature_celsius": temperature,
        **note,
        "load_average_1m": round(load_1, 2),
        "load_average_5m": round(load_5, 2),
        "load_average_15m": round(load_15, 2),
        "cpu_count": psutil.cpu_count() or 1,
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
