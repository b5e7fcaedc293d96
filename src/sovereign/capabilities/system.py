"""``system.health``: the device's own vital signs (local, read_only, automatic)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import psutil

from sovereign.executor import (
    ABSENT,
    Capability,
    Effect,
    FactSheet,
    Locality,
    Phrases,
    Registry,
    Statement,
    Topic,
    read_subjects,
    read_topic_words,
)

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_NUMBER = {"type": "number"}
_GB_FIELDS = [
    "memory_total_gb", "memory_available_gb", "memory_used_gb", "disk_total_gb", "disk_free_gb",
    "disk_used_gb", "data_disk_total_gb", "data_disk_used_gb", "data_disk_free_gb",
]  # fmt: skip
_PERCENT_FIELDS = ["memory_used_percent", "disk_used_percent", "data_disk_used_percent"]
_LOADS = ["load_average_1m", "load_average_5m", "load_average_15m"]

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "cpu_temperature_celsius", *_LOADS, "cpu_count", "cpu_load_verdict", *_GB_FIELDS,
        *_PERCENT_FIELDS, "disk_space_low", "data_disk_separate", "uptime_hours",
    ],
    "properties": {
        "cpu_temperature_celsius": _NUMBER_OR_NULL,
        "cpu_temperature_verdict": {"enum": ["normal", "warm", "hot"]},
        **dict.fromkeys(_LOADS, _NUMBER),
        "cpu_count": {"type": "integer"},
        "cpu_load_verdict": {"enum": ["light", "busy", "overloaded"]},
        **dict.fromkeys(_GB_FIELDS, _NUMBER),
        **dict.fromkeys(_PERCENT_FIELDS, _NUMBER),
        "disk_space_low": {"type": "boolean"},
        "data_disk_separate": {"type": "boolean"},
        "uptime_hours": _NUMBER,
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


# The verdicts a person asks for ("is it hot?", "is the CPU busy?", "is the disk low?") are
# decided here, by the product, from the figures, and said by the facts below. The limits:
# a Raspberry Pi slows its CPU from 80 °C (its firmware's soft limit, hard at 85 °C);
# a load average above the number of cores means work is waiting for a CPU; a disk is low
# on space from 90 % used (the percentage the household is shown) or under 2 GB free (a
# model file, an update or the audit log's rotation need that much).
HOT_CELSIUS = 80.0
WARM_CELSIUS = 70.0
LOW_USED_PERCENT = 90.0
BUSY_PER_CORE = 0.7
LOW_FREE_GB = 2.0


def temperature_verdict(celsius: float) -> str:
    """``hot`` from :data:`HOT_CELSIUS` (the CPU slows itself down), ``warm`` from
    :data:`WARM_CELSIUS`, else ``normal``."""
    if celsius >= HOT_CELSIUS:
        return "hot"
    return "warm" if celsius >= WARM_CELSIUS else "normal"


def load_verdict(load_1m: float, cpu_count: int) -> str:
    """``overloaded`` when more work waits than there are cores, ``busy`` from
    :data:`BUSY_PER_CORE` of the cores, else ``light``."""
    per_core = load_1m / max(cpu_count, 1)
    if per_core > 1.0:
        return "overloaded"
    return "busy" if per_core >= BUSY_PER_CORE else "light"


def is_low_on_space(free_gb: float, used_percent: float) -> bool:
    """Whether a disk with ``free_gb`` GB free, ``used_percent`` % used, is low on space."""
    return free_gb < LOW_FREE_GB or used_percent >= LOW_USED_PERCENT


def _gigabytes(size_bytes: int) -> float:
    """``size_bytes`` in decimal gigabytes (10^9 bytes), to one decimal."""
    return round(size_bytes / 1e9, 1)


def _shares(total: int, left: int) -> tuple[float, float, float, float]:
    """``(total GB, left GB, used GB, used %)`` of a space of ``total`` bytes with
    ``left`` still free: used is the rest, so the figures shown add up, and its share is
    of the figures shown, so a reader's own sum gives it (from the bytes when the whole
    rounds to 0 GB)."""
    total_gb, left_gb = _gigabytes(total), _gigabytes(left)
    used_gb = round(max(total_gb - left_gb, 0.0), 1)
    if total_gb > 0:
        percent = round(100 * used_gb / total_gb, 1)
    else:
        percent = round(100 * (total - left) / total, 1) if total > 0 else 0.0
    return total_gb, left_gb, used_gb, percent


def disk_space(usage: Any) -> dict[str, float]:
    """A ``psutil.disk_usage`` result in figures that agree with each other.

    ``total_gb`` and ``free_gb`` (what can still be written) as psutil reads them;
    ``used_gb`` is the rest of the disk, ``total_gb - free_gb``, so used and free add up;
    ``used_percent`` is that share of the whole disk, from the same figures. psutil's
    own ``percent`` is ``used / (used + free)`` with only the files as used: on a disk
    with space held back (ext4 keeps 5 % for the system; an overlay or a quota may
    withhold more), "82.6 GB free of 270.6 GB (24.2 % used)" read as a contradiction.
    What is held back is counted as used, not said: a household asking how much room
    is left is told what can still be written.
    """
    total, free, used, percent = _shares(usage.total, usage.free)
    return {"total_gb": total, "free_gb": free, "used_gb": used, "used_percent": percent}


def memory_space(memory: Any) -> dict[str, float]:
    """A ``psutil.virtual_memory`` result as the ``memory_*`` fields: ``available_gb`` and
    ``used_gb`` add up to ``total_gb``, and ``used_percent`` is the share of the figures
    shown (psutil's ``percent`` is the platform's own)."""
    total, available, used, percent = _shares(memory.total, memory.available)
    return {
        "total_gb": total,
        "available_gb": available,
        "used_gb": used,
        "used_percent": percent,
    }


def _fields(prefix: str, figures: dict[str, float]) -> dict[str, float]:
    return {f"{prefix}_{name}": value for name, value in figures.items()}


def existing_ancestor(path: Path) -> Path:
    """``path`` itself, or its nearest parent that exists (a data directory not yet created)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def read_health(disk_path: Path, data_path: Path | None = None) -> dict[str, Any]:
    """Collect one health snapshot; units are in the field names (GB = 10^9 bytes, hours,
    °C, %), rounded to what a person would say.

    ``disk_*`` describe the filesystem of ``disk_path`` (``/``) as :func:`disk_space` says
    it (used and free add up; the share used is of the whole disk), ``data_disk_*`` the one
    holding ``data_path`` (the data directory: audit log, settings, model), which may be
    another disk (``data_disk_separate``) and may be full while ``/`` is not. Where no
    sensor exists, ``cpu_temperature_celsius`` is null and there is no temperature
    verdict. The verdicts (``cpu_temperature_verdict``, ``cpu_load_verdict``,
    ``disk_space_low``) are the product's, from the limits above, and are said by
    :data:`FACTS`.
    """
    # Rounded once: the verdict and the figure read the same number (1.3996 on 2 cores
    # is "busy" at the 1.4 the household is shown).
    load_1, load_5, load_15 = (round(load, 2) for load in os.getloadavg())
    data_at = existing_ancestor(data_path or disk_path)
    disk = disk_space(psutil.disk_usage(str(disk_path)))
    data = disk_space(psutil.disk_usage(str(data_at)))
    temperature = cpu_temperature_celsius()
    verdict = {} if temperature is None else {
        "cpu_temperature_verdict": temperature_verdict(temperature)
    }
    cpu_count = psutil.cpu_count() or 1
    separate = os.stat(data_at).st_dev != os.stat(disk_path).st_dev
    disks = [disk, *([data] if separate else [])]
    return {
        "cpu_temperature_celsius": temperature,
        **verdict,
        "load_average_1m": load_1,
        "load_average_5m": load_5,
        "load_average_15m": load_15,
        "cpu_count": cpu_count,
        "cpu_load_verdict": load_verdict(load_1, cpu_count),
        **_fields("memory", memory_space(psutil.virtual_memory())),
        **_fields("disk", disk),
        **_fields("data_disk", data),
        "disk_space_low": any(
            is_low_on_space(space["free_gb"], space["used_percent"]) for space in disks
        ),
        "data_disk_separate": separate,
        "uptime_hours": round((time.time() - psutil.boot_time()) / 3600, 1),
    }


CATALOG = Path(__file__).resolve().parent / "locale"
"""This family's translations: ``locale/<language>/LC_MESSAGES/<domain>.po``."""

FACTS = FactSheet(
    kinds={
        "cpu_temperature_celsius": "celsius",
        "cpu_temperature_verdict": "state",
        "load_average_1m": "number",
        "cpu_count": "count",
        "cpu_load_verdict": "state",
        "memory_available_gb": "gigabytes",
        "memory_total_gb": "gigabytes",
        "memory_used_percent": "percent",
        "disk_free_gb": "gigabytes",
        "disk_total_gb": "gigabytes",
        "disk_used_percent": "percent",
        "data_disk_free_gb": "gigabytes",
        "data_disk_total_gb": "gigabytes",
        "data_disk_used_percent": "percent",
        "uptime_hours": "hours",
    },
    topics=(
        Topic(
            name="temperature",
            means="how warm the CPU is",
            statements=(
                Statement(
                    text="This device has no temperature sensor, so I can't tell how warm it is.",
                    when={"cpu_temperature_celsius": ABSENT},
                ),
                Statement(
                    text="The CPU is at {temperature}: {verdict}.",
                    values={
                        "temperature": "cpu_temperature_celsius",
                        "verdict": "cpu_temperature_verdict",
                    },
                    states="temperature_verdict",
                ),
            ),
        ),
        Topic(
            name="load",
            means="how busy the CPU is (its load)",
            statements=(
                Statement(
                    text="The CPU is {verdict}: a load of {load} over the last minute on "
                    "{cores} core.",
                    plural="The CPU is {verdict}: a load of {load} over the last minute on "
                    "{cores} cores.",
                    count="cores",
                    values={
                        "verdict": "cpu_load_verdict",
                        "load": "load_average_1m",
                        "cores": "cpu_count",
                    },
                    states="load_verdict",
                ),
            ),
        ),
        Topic(
            name="memory",
            means="free and used memory (RAM)",
            statements=(
                Statement(
                    text="{available} of memory is free, of {total} in all ({used} in use).",
                    values={
                        "available": "memory_available_gb",
                        "total": "memory_total_gb",
                        "used": "memory_used_percent",
                    },
                ),
            ),
        ),
        Topic(
            name="disk",
            means="free and used disk space, and whether it is running low",
            statements=(
                Statement(
                    text="The system disk has {free} free of {total} ({used} used).",
                    values={
                        "free": "disk_free_gb",
                        "total": "disk_total_gb",
                        "used": "disk_used_percent",
                    },
                ),
                Statement(
                    text="The disk holding my data has {free} free of {total} ({used} used).",
                    values={
                        "free": "data_disk_free_gb",
                        "total": "data_disk_total_gb",
                        "used": "data_disk_used_percent",
                    },
                    when={"data_disk_separate": True},
                ),
                Statement(text="That is running low.", when={"disk_space_low": True}),
                Statement(text="That is plenty of space.", when={"disk_space_low": False}),
            ),
        ),
        Topic(
            name="uptime",
            means="how long since the device last restarted",
            statements=(
                Statement(
                    text="The device has been running for {uptime} since its last restart.",
                    values={"uptime": "uptime_hours"},
                ),
            ),
        ),
    ),
    summary=("temperature", "load", "memory", "disk", "uptime"),
    asked_by=read_topic_words(CATALOG.parent / "subjects" / "system_topics.json"),
    words={
        "temperature_verdict": {
            "normal": "a normal temperature",
            "warm": "warm, but below the point where it slows itself down",
            "hot": "hot, so it slows itself down",
        },
        "load_verdict": {
            "light": "lightly loaded",
            "busy": "busy",
            "overloaded": "overloaded, with more work waiting than it has cores for",
        },
    },
    catalog=CATALOG,
    domain="system",
)
"""How ``system.health`` is said (DESIGN §4): every figure from its own field."""

PHRASES = Phrases(
    denied="You declined the device check, so I didn't check the device.",
    expired="The approval request for the device check expired before you answered, "
    "so I didn't check the device.",
    failed="I tried to check the device, but it failed, so I have no reading from it.",
    not_asked="You declined an earlier request, so I didn't ask you about the device check "
    "either.",
    subjects=read_subjects(CATALOG.parent / "subjects" / "system.json"),
    others=read_subjects(CATALOG.parent / "subjects" / "system_others.json"),
    names=read_subjects(CATALOG.parent / "subjects" / "system_names.json"),
    plurals=read_subjects(CATALOG.parent / "subjects" / "system_plurals.json"),
    itself=read_subjects(CATALOG.parent / "subjects" / "system_itself.json"),
    catalog=CATALOG,
    domain="system",
)


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
                "Read the health of this device itself (the appliance, box or server "
                "this assistant runs on): CPU temperature, load averages, memory and "
                "disk use, uptime. Use it for any question about how this device is "
                "doing, e.g. 'how hot is my device?', 'is the disk full?' or 'is the box "
                "alright?'."
            ),
            arguments_schema={"type": "object", "properties": {}, "additionalProperties": False},
            result_schema=RESULT_SCHEMA,
            facts=FACTS,
            phrases=PHRASES,
            effect=Effect.READ_ONLY,
            locality=Locality.LOCAL,
            execute=execute,
            timeout_seconds=5.0,
            max_invocations_per_turn=2,
        )
    )
