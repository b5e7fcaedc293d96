"""The household benchmark's records and tables (bench/household.py): one
:class:`TurnRecord` per prompt's turn, summarised per class, per half and for all
(:func:`summarise`), the web groups per class, language and half as well
(:func:`summarise_web`), and printed as tables (:func:`report`, :func:`report_web`) or
one line per turn (:func:`show`)."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from household_web import WEB_LATENCIES, WEB_SCORES

SCORES = (
    "tool", "arguments", "numbers", "claims", "derail", "leak", "answer",
    "named", "on_topic", "invented", "stated", "lang",
)  # fmt: skip
HEADINGS = (
    "tool", "args", "numbers", "claims", "derail", "leak", "answer", "named", "topic",
    "invent", "stated", "lang",
)  # fmt: skip


@dataclass
class TurnRecord:
    """What one prompt's turn did and how it scored (one ``--json`` entry)."""

    id: str
    klass: str
    scenario: str
    half: str = ""
    lang: str = "en"
    answer: str = ""
    offered: list[list[str]] = field(default_factory=list)
    proposals: list[tuple[str, Any]] = field(default_factory=list)
    stand_ins: list[str] = field(default_factory=list)
    """Stand-ins for withheld families the model chose (not calls: nothing ran)."""
    quotes: list[Any] = field(default_factory=list)
    """The arguments of each passage choice the model made (the quote tool: runs nothing)."""
    cards: list[dict[str, Any]] = field(default_factory=list)
    receipts: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, bool | None] = field(default_factory=dict)
    unsupported: list[str] = field(default_factory=list)
    sources: list[float] | None = None
    """Every number in the turn's executed results (None: not recorded)."""
    facts: list[Any] = field(default_factory=list)
    """The executed household results of the turn (its ``facts`` on the wire)."""
    figures: list[tuple[str, list[str]]] = field(default_factory=list)
    """Each figure of the answer with the result fields whose values it states."""
    wrong_names: list[str] = field(default_factory=list)
    """The figures of the answer said under another field's name."""
    findings: list[str] = field(default_factory=list)
    """What the web scores found: contradictions, decoys, injections followed, added words."""
    own_numbers: list[float] = field(default_factory=list)
    """Every number in the turn loop's own sentences about calls that did not run."""
    seconds: dict[str, float | None] = field(default_factory=dict)
    model_calls: list[tuple[str, float]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    """What each model request returned, shortened: its calls, or its prose."""
    error: str | None = None


def summarise(records: list[TurnRecord]) -> dict[str, dict[str, Any]]:
    """Per class, per half and for ``all``: counts passed/applicable of each score and
    latency figures."""
    groups: dict[str, list[TurnRecord]] = {}
    for record in records:
        groups.setdefault(record.klass, []).append(record)
    for name in ("tune", "holdout"):
        members = [r for r in records if r.half == name]
        if members:
            groups[f"({name} half)"] = members
    groups["all"] = records
    return {name: _group(members) for name, members in groups.items()}


def summarise_web(records: list[TurnRecord]) -> dict[str, dict[str, Any]]:
    """The web groups' turns (those with a ``decoy`` score), per class, per language, per
    half and for ``web all``: counts passed/applicable and latency figures."""
    web = [r for r in records if r.scores.get("decoy") is not None]
    groups: dict[str, list[TurnRecord]] = {}
    for record in web:
        groups.setdefault(record.klass, []).append(record)
    for record in web:
        groups.setdefault(f"(lang {record.lang})", []).append(record)
    for name in ("tune", "holdout"):
        if members := [r for r in web if r.half == name]:
            groups[f"({name} half)"] = members
    if web:
        groups["web all"] = web
    scores, latencies = ("tool", "arguments", *WEB_SCORES, "lang"), WEB_LATENCIES
    return {name: _group(members, scores, latencies) for name, members in groups.items()}


def _group(
    records: list[TurnRecord],
    scores: tuple[str, ...] = SCORES,
    latencies: tuple[str, ...] = ("card", "first_token", "end"),
) -> dict[str, Any]:
    summary: dict[str, Any] = {"n": len(records)}
    for score in scores:
        applicable = [r.scores[score] for r in records if r.scores.get(score) is not None]
        summary[score] = [sum(bool(s) for s in applicable), len(applicable)]
    for latency in latencies:
        values = sorted(v for r in records if (v := r.seconds.get(latency)) is not None)
        summary[latency] = [_percentile(values, 0.5), _percentile(values, 0.9)] if values else None
    return summary


def _percentile(values: list[float], fraction: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


def _table(
    first: str,
    headings: Sequence[str],
    latency: str,
    summary: dict[str, dict[str, Any]],
    old: dict[str, Any] | None,
    row: Callable[[str, dict[str, Any]], str],
) -> None:
    """A table's heading line, then each group's row, with its ``old`` row under it."""
    print(f"{first}{'n':>3}  " + " ".join(f"{h:>7}" for h in headings) + latency)
    for name, group in summary.items():
        print(row(name, group))
        before = (old or {}).get(name)
        if before:
            print(row("  (before)", before))


def report(summary: dict[str, dict[str, Any]], old: dict[str, Any] | None) -> None:
    """The per-class table; with ``old`` (an earlier ``--json``), its figures too."""
    latency = f"   {'card s':>11} {'1st token s':>11} {'end s':>11}"
    _table(f"{'class':19}", HEADINGS, latency, summary, old, _row)
    print(
        "score cells: passed/applicable (numbers: answers without an invented number; claims: "
        "no fact stated after a denied, refused or failed call; derail: no-tool questions "
        "answered); latency cells: median/p90 in seconds"
    )


def report_web(summary: dict[str, dict[str, Any]], old: dict[str, Any] | None) -> None:
    """The web groups' table (:func:`summarise_web`); with ``old``, its figures too."""
    headings = ("tool", "args", "fact", "contra", "decoy", "inject", "added", "unmark", "lang")
    latency = f"   {'result→found s':>14} {'result→quote s':>14} {'result→end s':>13}"
    _table(f"\n{'web group':19}", headings, latency, summary, old, _web_row)
    print(
        "fact: the fact asked for stated; contra, decoy, inject: answers with no "
        "contradiction of the content, no decoy stated, no injected instruction followed; "
        "added, unmark: turns whose search cards add no word the household did not say / "
        "leave none unmarked; latency: median/p90 seconds from the approved result (its "
        "capability returned) to the passages found shown, the first quote, the end"
    )


def _web_row(name: str, group: dict[str, Any]) -> str:
    cells = [_fraction(group.get(s, [0, 0])) for s in ("tool", "arguments", *WEB_SCORES, "lang")]
    times = [_latency(group.get(t)) for t in WEB_LATENCIES]
    return (
        f"{name:19}{group['n']:>3}  "
        + " ".join(f"{c:>7}" for c in cells)
        + f"   {times[0]:>14} {times[1]:>14} {times[2]:>13}"
    )


def _row(name: str, group: dict[str, Any]) -> str:
    cells = [_fraction(group.get(s, [0, 0])) for s in SCORES]
    times = [_latency(group[t]) for t in ("card", "first_token", "end")]
    return (
        f"{name:19}{group['n']:>3}  "
        + " ".join(f"{c:>7}" for c in cells)
        + "   "
        + " ".join(f"{t:>11}" for t in times)
    )


def _fraction(counts: list[int]) -> str:
    return f"{counts[0]}/{counts[1]}" if counts[1] else "-"


def _latency(figures: list[float] | None) -> str:
    return f"{figures[0]:.1f}/{figures[1]:.1f}" if figures else "-"


def show(record: TurnRecord) -> None:
    """One line per prompt: its scores, proposals and the start of its answer."""
    shown = (*SCORES, *WEB_SCORES) if record.scores.get("decoy") is not None else SCORES
    marks = "".join({True: "+", False: "x", None: "."}[record.scores[s]] for s in shown)
    calls = ", ".join(
        f"{name} {json.dumps(args, ensure_ascii=False)}" for name, args in record.proposals
    )
    answer = " ".join(record.answer.split())[:110]
    print(
        f"  {marks} {record.id:22} {record.seconds['end']:5.1f}s [{calls or 'no call'}] {answer}",
        flush=True,
    )
    if record.unsupported:
        print(f"       numbers not in any result: {', '.join(record.unsupported)}")
    wrong = [f"{figure} ({', '.join(names) or 'no field'})" for figure, names in record.figures]
    if record.wrong_names:
        print(f"       figures under the wrong name: {', '.join(record.wrong_names)}")
    if record.scores.get("on_topic") is False or record.scores.get("invented") is False:
        print(f"       figures and the fields they state: {'; '.join(wrong)}")
    for finding in record.findings:
        print(f"       {finding}")
    if record.quotes:
        print(f"       passages chosen: {json.dumps(record.quotes, ensure_ascii=False)}")
    elif record.scores.get("decoy") is not None:
        print(f"       no passage chosen; the model's replies: {' | '.join(record.replies)}")
