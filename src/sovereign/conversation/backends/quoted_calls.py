"""Calls that a tool's result spells out, so a model copying one is not obeyed (issue 16).

A fetched page, a search snippet or any other result may hold text shaped like
a call (``{"name": "web_fetch", "arguments": {...}}``), plainly, inside a
string of its JSON, or as a JSON string literal in its own text. A small model
asked to report on it may copy that text as its whole reply, which would read
as its own proposal; :func:`quoted_calls` lists every such call so the readers
of calls written as text can refuse them.

The scan has a budget of failed JSON starts (text full of braces would
otherwise cost quadratic time); past it, the scan is *incomplete*, and a call
counts as quoted whenever the results mention its tool's name at all (fail
closed for that tool, without blocking tools the results never name).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .jsontext import ScanBudgetSpent, json_objects, parse_arguments

SCAN_BUDGET = 2000
"""Failed JSON starts allowed per scan of a conversation's tool results."""
DEPTH = 4
"""Levels searched: the result's JSON, then up to three of JSON written in its strings."""
_DECODER = json.JSONDecoder()
_UNSAFE_NAME = re.compile(r"[^a-zA-Z0-9_-]")
"""What a model-safe tool name may not hold (``web.fetch`` is offered as ``web_fetch``)."""
_JSON_IN_STRING = re.compile(r'"(?=[\\"]{0,16}[{\[])')
"""A quote opening a string literal whose text starts with JSON (maybe escaped again, a
bounded number of times, so a page of quotes and backslashes stays linear)."""


@dataclass(frozen=True)
class QuotedCalls:
    """The calls found; ``complete`` is False when the scan ran out of budget, and then
    ``texts`` (the results as sent) are searched for a tool's name instead."""

    found: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    complete: bool = True
    texts: tuple[str, ...] = ()

    def __contains__(self, call: object) -> bool:
        """True for a ``(name, canonical arguments)`` pair found; when incomplete, also for
        any call whose name the results mention, spelt with any separator."""
        if call in self.found:
            return True
        if self.complete or not isinstance(call, tuple) or not isinstance(call[0], str):
            return False
        spelling = re.compile(
            "[^a-zA-Z0-9-]".join(map(re.escape, call[0].split("_"))), re.IGNORECASE
        )
        return any(spelling.search(text) for text in self.texts)


def quoted_calls(context: list[dict[str, Any]]) -> QuotedCalls:
    """Every call that the ``tool`` results of ``context`` spell out (module docstring).

    Args:
        context: OpenAI chat messages; only ``role: "tool"`` contents are read.

    Returns:
        ``(model-safe name, canonical arguments)`` pairs; compare a candidate
        with ``(name, canonical_arguments(arguments)) in quoted``.
    """
    texts = tuple(
        message["content"]
        for message in context
        if message.get("role") == "tool" and isinstance(message.get("content"), str)
    )
    found: set[tuple[str, str]] = set()
    budget = [SCAN_BUDGET]
    try:
        for text in texts:
            found |= {_key(obj) for obj in _objects_within(text, DEPTH, budget)}
    except ScanBudgetSpent:
        return QuotedCalls(frozenset(found), complete=False, texts=texts)
    return QuotedCalls(frozenset(key for key in found if key[0]))


def call_shape(obj: dict[str, Any]) -> tuple[Any, Any]:
    """``(name, raw arguments)`` of an object written as a call, in any shape models use:
    ``{"name", "arguments"|"parameters"}``, ``{"function": {...}}`` or a decision's
    ``{"action", "arguments"}``. Either may be ``None``."""
    function = obj.get("function") if isinstance(obj.get("function"), dict) else obj
    name = function.get("name", function.get("action"))
    return name, function.get("arguments", function.get("parameters"))


def canonical_arguments(arguments: dict[str, Any] | None) -> str:
    """One spelling of ``arguments`` (sorted keys), to compare calls written differently."""
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    name, raw = call_shape(obj)
    if not isinstance(name, str):
        return "", ""
    return _UNSAFE_NAME.sub("_", name), canonical_arguments(parse_arguments(raw)[0])


def _objects_within(text: str, depth: int, budget: list[int]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    pending: list[Any] = [*json_objects(text, budget), *_string_literals(text, budget)]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            found.append(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and depth > 1 and "{" in value:
            found.extend(_objects_within(value, depth - 1, budget))
    return found


def _string_literals(text: str, budget: list[int]) -> list[str]:
    """JSON string literals in ``text`` that start with JSON; a literal's span is skipped
    once read, so its escaped quotes are not read again (linear, not quadratic)."""
    literals, position = [], 0
    while (match := _JSON_IN_STRING.search(text, position)) is not None:
        position = match.start() + 1
        try:
            value, end = _DECODER.raw_decode(text, match.start())
        except (json.JSONDecodeError, RecursionError):
            budget[0] -= 1
            if budget[0] < 0:
                raise ScanBudgetSpent from None
            continue
        if isinstance(value, str):
            literals.append(value)
            position = end
    return literals
