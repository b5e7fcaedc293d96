"""Text that can cross any boundary: valid Unicode, every string encodable as UTF-8.

A Python ``str`` can hold what no UTF-8 text can: lone surrogates (U+D800-U+DFFF),
half of an emoji that a JSON ``"\\ud83d"`` escape, a ``utf-7`` or
``unicode_escape`` charset, a ``surrogateescape`` terminal or a careless server
produced. Such a string passes through Python untouched until something encodes it
(a JSON response, an SSE frame, a log line, a tokenizer) and fails there, far from
where it came in, after a call already ran. So text is made valid where it
*enters*: each lone surrogate becomes U+FFFD REPLACEMENT CHARACTER, and a surrogate
pair written as two code points becomes the one character it encodes (what a
UTF-16 reader makes of it). Nothing else changes.

Used at every boundary text crosses into the product: the service's request
bodies, model replies and stream pieces, capability results and messages, HTTP
bodies capabilities read, and the audit writer (the executor imports nothing of
ours, and every layer that takes text in may import the executor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["REPLACEMENT", "map_strings", "valid_text", "valid_value"]

REPLACEMENT = "\ufffd"
"""What an unencodable code point becomes."""


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD and every surrogate pair
    joined into its character; ``text`` itself when it is already valid.

    Args:
        text: any Python string.

    Returns:
        A string that encodes as UTF-8 without error.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def valid_value(value: Any) -> Any:
    """``value`` (a parsed JSON value, or any nest of dicts, lists and tuples) with
    every string in it, keys included, made valid by :func:`valid_text`.

    The walk is iterative, so a value nested as deeply as a parser allows is walked
    without recursion. Containers are rebuilt only where a string in them changed;
    an already valid value comes back as it is.

    Returns:
        The valid value (tuples come back as lists only where they changed).
    """
    if isinstance(value, str):
        return valid_text(value)
    if not isinstance(value, dict | list | tuple) or _is_valid(value):
        return value
    return map_strings(value, valid_text)


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of ``value`` (any nest of dicts, lists and tuples) with ``change`` applied
    to every string in it, keys included; tuples come back as lists.

    Iterative, so a value nested as deeply as a parser allows is walked without
    recursion.
    """
    root: list[Any] = [None]
    # (container to fill, key or index in it, value to place there)
    work: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while work:
        target, slot, item = work.pop()
        if isinstance(item, str):
            target[slot] = change(item)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            target[slot] = copy
            for key, inner in item.items():
                fixed = change(key) if isinstance(key, str) else key
                copy[fixed] = None
                work.append((copy, fixed, inner))
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            target[slot] = items
            work.extend((items, index, inner) for index, inner in enumerate(item))
        else:
            target[slot] = item
    return root[0]


def _is_valid(value: Any) -> bool:
    """Whether every string in ``value`` already encodes (one cheap pass, no copies)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not _encodes(item):
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
