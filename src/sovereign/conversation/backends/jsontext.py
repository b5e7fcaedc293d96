"""Lenient reading of JSON objects that small models write inside text (DESIGN §4).

Small models asked for a tool call often write it as prose content instead of a
structured call: in a ```json fence, inside ``<tool_call>`` tags, with doubled
braces (``{{"name": ..., "arguments": {}}}``), or followed by stray text. This
module finds the JSON objects in such text; deciding which of them are calls is
the caller's job (only declared tools count).
"""

from __future__ import annotations

import json
import re
from typing import Any

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[a-zA-Z]*")
_TAGS = re.compile(r"</?tool_call>")


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object found in ``text``, in order.

    A JSON array of objects counts as its objects. Doubled opening braces are
    read as one; trailing junk after an object (extra ``}``, prose) is ignored.

    Args:
        text: model output, possibly fenced or tagged.

    Returns:
        The decoded objects; an empty list when there are none.
    """
    cleaned = _TAGS.sub("\n", _FENCE.sub("\n", text))
    found: list[dict[str, Any]] = []
    position = 0
    while (start := _next_value_start(cleaned, position)) >= 0:
        value, end = _decode_at(cleaned, start)
        if value is None:
            position = start + 1
            continue
        found.extend(v for v in (value if isinstance(value, list) else [value]) if _is_obj(v))
        position = end
    return found


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Normalise a call's arguments given as an object, a JSON string, "" or null.

    Returns:
        ``(arguments, None)`` when they form a JSON object (``{}`` for "" or
        null), else ``(None, reason)`` with a short sentence naming the problem
        (the raw text is not repeated in it).
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    if not isinstance(raw, str):
        return None, f"arguments were a JSON {type(raw).__name__}, not an object"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments were not valid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(value, dict):
        return None, "arguments were valid JSON but not an object"
    return value, None


def _is_obj(value: Any) -> bool:
    return isinstance(value, dict)


def _next_value_start(text: str, position: int) -> int:
    candidates = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
    return min(candidates, default=-1)


def _decode_at(text: str, start: int) -> tuple[Any, int]:
    """Decode the value at ``start``; a doubled ``{{`` is retried from its inner brace."""
    for offset in (0, 1):
        try:
            return _DECODER.raw_decode(text, start + offset)
        except json.JSONDecodeError:
            if text[start] != "{" or text[start + 1 : start + 2] != "{":
                break
    return None, start + 1
