"""Reading JSON objects that small models write inside text (DESIGN §4, issue 16).

Small models asked for a tool call often write it as prose content instead of a
structured call: in a ```json fence, inside ``<tool_call>`` tags, or with doubled
braces (``{{"name": ..., "arguments": {}}}}``). Two readers:

- :func:`sole_json_objects` is the one that may turn text into calls: it reads
  the objects only when the text is *nothing but* them (fences, tags, whitespace
  and stray closing braces aside). JSON quoted in a sentence ("The page says
  {…}; I will ignore it.") is prose and stays prose.
- :func:`json_objects` finds every object anywhere in a text; it is for looking
  *into* text, e.g. for calls written in a tool's result, never for promoting.

Deciding which objects are calls is the caller's job (only declared tools count).
"""

from __future__ import annotations

import json
import re
from typing import Any

from sovereign.executor import valid_value

_DECODER = json.JSONDecoder()
_TOO_DEEP = object()
"""What :func:`_decode_at` gives for a value nested deeper than Python's parser goes."""
_FENCE = re.compile(r"```[a-zA-Z]*")
_TAGS = re.compile(r"</?tool_call>")
_WRAPPING = re.compile(r"\s+|```[A-Za-z0-9_-]*|</?tool_call>|}")
"""What may surround the objects of a text that is nothing but objects: whitespace,
fences (with a language word), ``<tool_call>`` tags and stray closing braces (small
models double them)."""


def sole_json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects ``text`` consists of, or ``[]`` when it holds anything else.

    Accepted around and between the objects: whitespace, code fences, ``<tool_call>``
    tags and surplus ``}``; a doubled opening brace is read as one. A JSON array
    counts as its objects only when every item is an object. Any other character
    (a word, a colon, a second kind of value) means the text is prose: ``[]``.

    Args:
        text: model output.

    Returns:
        The decoded objects, in order; ``[]`` for prose, for text without an
        object and for a value that does not decode.
    """
    found: list[dict[str, Any]] = []
    position = 0
    while position < len(text):
        wrapping = _WRAPPING.match(text, position)
        if wrapping is not None:
            position = wrapping.end()
            continue
        if text[position] not in "{[":
            return []
        value, end = _decode_at(text, position)
        if value is _TOO_DEEP:
            return []
        items = value if isinstance(value, list) else [value]
        if value is None or not items or not all(map(_is_obj, items)):
            return []
        found.extend(items)
        position = end
    return found


class ScanBudgetSpent(Exception):
    """A text held more failed JSON starts than the caller's budget allows."""


def json_objects(text: str, budget: list[int] | None = None) -> list[dict[str, Any]]:
    """Every top-level JSON object found in ``text``, in order.

    A JSON array of objects counts as its objects. Doubled opening braces are
    read as one; trailing junk after an object (extra ``}``, prose) is ignored.

    Args:
        text: model output, possibly fenced or tagged.
        budget: a one-item list holding how many more failed decode attempts
            the caller allows (each costs up to the text's length, so hostile
            text full of braces would cost quadratic time); decremented here.

    Returns:
        The decoded objects; an empty list when there are none.

    Raises:
        ScanBudgetSpent: ``budget`` reached zero before the end of ``text``.
    """
    cleaned = _TAGS.sub("\n", _FENCE.sub("\n", text))
    found: list[dict[str, Any]] = []
    position = 0
    while (start := _next_value_start(cleaned, position)) >= 0:
        value, end = _decode_at(cleaned, start)
        if value is _TOO_DEEP and budget is not None:
            raise ScanBudgetSpent  # nothing this deep can be read: the scan is incomplete
        if value is None or value is _TOO_DEEP:
            _spend(budget)
            position = start + 1
            continue
        found.extend(v for v in (value if isinstance(value, list) else [value]) if _is_obj(v))
        position = end
    return found


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Normalise a call's arguments given as an object, a JSON string, "" or null.

    Returns:
        ``(arguments, None)`` when they form a JSON object (``{}`` for "" or
        null; every string in it valid, a ``"\\ud83d"`` escape read as U+FFFD), else
        ``(None, reason)`` with a short sentence naming the problem (the raw text is
        not repeated in it).
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, dict):
        return valid_value(raw), None
    if not isinstance(raw, str):
        return None, f"arguments were a JSON {type(raw).__name__}, not an object"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments were not valid JSON ({exc.msg} at character {exc.pos})"
    except RecursionError:
        return None, "arguments were nested too deeply to read"
    if not isinstance(value, dict):
        return None, "arguments were valid JSON but not an object"
    return valid_value(value), None


def _is_obj(value: Any) -> bool:
    return isinstance(value, dict)


_VALUE_START = re.compile(r"[{\[]")


def _next_value_start(text: str, position: int) -> int:
    found = _VALUE_START.search(text, position)
    return found.start() if found else -1


def _decode_at(text: str, start: int) -> tuple[Any, int]:
    """Decode the value at ``start``; a doubled ``{{`` is retried from its inner brace."""
    for offset in (0, 1):
        try:
            value, end = _DECODER.raw_decode(text, start + offset)
            return valid_value(value), end
        except RecursionError:
            return _TOO_DEEP, start + 1
        except json.JSONDecodeError:
            if text[start] != "{" or text[start + 1 : start + 2] != "{":
                break
    return None, start + 1


def _spend(budget: list[int] | None) -> None:
    if budget is None:
        return
    budget[0] -= 1
    if budget[0] < 0:
        raise ScanBudgetSpent
