"""Plain answers built from results alone, for when a model's answer cannot be trusted.

When an answer states figures no result holds, and asking the model once more
does not mend it, the turn answers with sentences built here from the executed
results (every figure copied from them) and the sentences of the calls that did
not run (:mod:`.wording`). They are short and dry on purpose: correct first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

_PERIODS = {
    "last_24_hours": "in the last 24 hours",
    "last_7_days": "in the last 7 days",
    "last_30_days": "in the last 30 days",
}
MAX_ITEMS = 5
"""Most search results or entities named in one plain answer."""
PAGE_START_CHARS = 240
"""How much of a page a plain answer quotes, in characters."""


def plain_answer(results: Sequence[tuple[str, Any]], unrun: Sequence[str]) -> str:
    """One paragraph: a sentence per executed result, then the sentences of calls that
    did not run.

    Args:
        results: ``(capability name, result)`` of each executed call, in order.
        unrun: what to say about each call that did not run (already worded).
    """
    sentences = [describe(name, result) for name, result in results]
    return " ".join([s for s in sentences if s] + list(dict.fromkeys(unrun)))


def describe(capability: str, result: Any) -> str:
    """One sentence stating what ``result`` of ``capability`` holds."""
    if not isinstance(result, Mapping):
        return ""
    describer = _DESCRIBERS.get(capability, _generic)
    return describer(capability, result)


def _health(_name: str, r: Mapping[str, Any]) -> str:
    temperature = r.get("cpu_temperature_celsius")
    parts = [
        f"CPU temperature {'unknown (no sensor)' if temperature is None else f'{temperature} °C'}"
    ]
    if "load_average_1m" in r:
        parts.append(f"load {r['load_average_1m']} over the last minute")
    for label, key in (("memory", "memory"), ("disk", "disk")):
        if f"{key}_used_percent" in r:
            sizes = (r.get(f"{key}_used_gb"), r.get(f"{key}_total_gb"))
            of = f" ({sizes[0]} of {sizes[1]} GB)" if None not in sizes else ""
            parts.append(f"{label} {r[f'{key}_used_percent']} % used{of}")
    if "uptime_hours" in r:
        parts.append(f"running for {r['uptime_hours']} hours")
    verdicts = [r.get(key) for key in ("disk_space_note", "cpu_load_note")]
    if temperature is not None:
        verdicts.append(r.get("cpu_temperature_note"))
    notes = [note for note in verdicts if isinstance(note, str) and note]
    return " ".join(["This device: " + "; ".join(parts) + ".", *notes])


def _pihole(_name: str, r: Mapping[str, Any]) -> str:
    period = _PERIODS.get(str(r.get("period")), "")
    domains = r.get("domains_on_blocklist")
    listed = "" if domains is None else f"; {_count(domains)} domains on the blocklist"
    return (
        f"Pi-hole {period}: {_count(r.get('queries_total'))} queries, "
        f"{_count(r.get('queries_blocked'))} blocked ({r.get('percent_blocked')} %){listed}; "
        f"blocking is {r.get('blocking_status')}."
    )


def _entity(entity: Mapping[str, Any]) -> str:
    name = entity.get("friendly_name") or entity.get("entity_id")
    unit = f" {entity['unit_of_measurement']}" if entity.get("unit_of_measurement") else ""
    return f"{name}: {entity.get('state')}{unit}"


def _ha_state(_name: str, r: Mapping[str, Any]) -> str:
    entity = r.get("entity")
    return f"Home Assistant reports {_entity(entity)}." if isinstance(entity, Mapping) else ""


def _ha_list(_name: str, r: Mapping[str, Any]) -> str:
    entities = [e for e in r.get("entities", []) if isinstance(e, Mapping)]
    if not entities:
        return "Home Assistant reports none of the entities you allowed."
    listed = "; ".join(_entity(e) for e in entities[:MAX_ITEMS])
    more = f" and {len(entities) - MAX_ITEMS} more" if len(entities) > MAX_ITEMS else ""
    return f"Home Assistant reports {listed}{more}."


def _search(_name: str, r: Mapping[str, Any]) -> str:
    items = [i for i in r.get("results", []) if isinstance(i, Mapping)][:MAX_ITEMS]
    if not items:
        return f"The search for “{r.get('query')}” found nothing."
    listed = "; ".join(f"{i.get('title')} ({i.get('url')})" for i in items)
    return f"The search for “{r.get('query')}” found: {listed}."


def _fetch(_name: str, r: Mapping[str, Any]) -> str:
    if r.get("redirected"):
        return f"{r.get('url')} redirects to {r.get('final_url')}; I did not follow it."
    text = " ".join(str(r.get("text") or "").split())
    if not text:
        return f"I read {r.get('url')}, but it holds no text."
    start = text if len(text) <= PAGE_START_CHARS else text[:PAGE_START_CHARS].rstrip() + "…"
    return f"I read {r.get('url')}. It begins: “{start}”"


def _generic(name: str, r: Mapping[str, Any]) -> str:
    pairs = [f"{k.replace('_', ' ')}: {v}" for k, v in r.items() if _scalar(v)]
    return f"{name} reports {'; '.join(pairs)}." if pairs else ""


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) and value is not None


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


_DESCRIBERS: dict[str, Callable[[str, Mapping[str, Any]], str]] = {
    "system.health": _health,
    "pihole.summary": _pihole,
    "home_assistant.get_state": _ha_state,
    "home_assistant.list_entities": _ha_list,
    "web.search": _search,
    "web.fetch": _fetch,
}
