"""Read systemd unit files as systemd does: repeated keys accumulate, ``Key=`` resets, and a
line ending in a backslash goes on on the next one.

configparser cannot: it keeps one value per key, while ``SystemCallFilter=`` may be given
twice and an empty ``CapabilityBoundingSet=`` means "none" (systemd.unit(5), systemd.exec(5)).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONVERSATION_UNIT = REPO / "deploy" / "systemd" / "sovereign-conversation.service"
LLAMA_SERVER_UNIT = REPO / "deploy" / "systemd" / "sovereign-llama-server.service"
SEARXNG_UNITS = REPO / "deploy" / "searxng" / "systemd"
ALL_UNITS = [CONVERSATION_UNIT, LLAMA_SERVER_UNIT, *sorted(SEARXNG_UNITS.glob("*.service"))]
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def read_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """``{section: {key: [value, ...]}}`` in file order; an empty assignment clears the list
    and is kept as ``[""]`` when nothing follows it (an explicit empty setting)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in _logical_lines(path.read_text()):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{path.name}: {line!r} outside a section"
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: {line!r} is not Key=value"
        values = current.setdefault(key.strip(), [])
        if value.strip():
            values[:] = [v for v in values if v]
            values.append(value.strip())
        else:
            values[:] = [""]
    return sections


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined (the backslash and newline become a space);
    comments are never continued."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if not pending and raw.lstrip()[:1] in ("#", ";"):
            lines.append(raw)
            continue
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        lines.append(pending + raw)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def service(path: Path) -> dict[str, list[str]]:
    """The ``[Service]`` section of ``path``."""
    return read_unit(path)["Service"]


def one(section: dict[str, list[str]], key: str) -> str:
    """The single value of ``key`` (fails when it is absent or repeated)."""
    values = section.get(key)
    assert values is not None, f"{key}= is missing"
    assert len(values) == 1, f"{key}= is given {len(values)} times: {values}"
    return values[0]


def exposure(unit: Path, root: Path | None = None) -> float:
    """``systemd-analyze security --offline=true`` overall exposure of ``unit`` (0.0-10.0)."""
    args = [SYSTEMD_ANALYZE, "security", "--offline=true", "--no-pager"]
    if root is not None:
        args.append(f"--root={root}")
    result = subprocess.run(
        [*args, str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    for line in result.stdout.splitlines():
        if "Overall exposure level for" in line:
            return float(line.split(":", 1)[1].split()[0])
    raise AssertionError(f"no exposure level in the output:\n{result.stdout}\n{result.stderr}")
