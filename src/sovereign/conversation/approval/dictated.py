"""Arguments a result wrote: the card says so when a call's words come from what a page said.

A page read in a turn can ask the assistant to search for something ("search the web
for \"household wifi password\""), and a 1.5B model sometimes does. The executor's
wall holds (a search needs the household's approval of the exact query), but the card
showed the query as if the assistant had chosen it. Now an argument of a call about to
be approved that repeats, word for word, text from this turn's results, and that the
person asking never wrote, is flagged on the card like a household identifier: the
whole value, with the reason "comes from what a result of this turn said, not from
you". The household then approves or denies knowing where the words came from
(docs/decisions/answers-rendered-by-the-product.md). The turn loop passes this check to the
executor with the call, so the ask's audit record holds the flag's kind as it holds
the household-identifier kinds.

Addresses are not flagged: reading a search result's address is the ordinary next
step, and an address inside page text can never be fetched (:mod:`.guidance`). An
edit the household typed is its own words and is not flagged either.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..voice.card import FLAG_REASONS

KIND = "from_a_result"
"""The flag's fixed label (what the audit log and the Console's flag list key on)."""
REASON = FLAG_REASONS[KIND]
"""The flag's phrase, shown after the flagged text on the card."""
MIN_WORDS = 2
MIN_CHARS = 8
"""Shorter values are not flagged: two common words match some page by chance."""


def dictated_flags(
    arguments: Mapping[str, Any], results: Iterable[Any], asked: Iterable[str]
) -> list[dict[str, Any]]:
    """Flags for the string arguments that ``results`` hold word for word and ``asked``
    does not.

    Args:
        arguments: the canonical arguments the card shows.
        results: the executed results of this turn (any JSON values).
        asked: what the person wrote in this conversation.

    Returns:
        One flag per such argument, ``{"kind", "argument", "start", "end", "reason"}``
        spanning the whole value (``start``/``end`` in code points), in argument order.
    """
    texts = [_normal(text) for text in _strings(list(results))]
    said = [_normal(text) for text in asked]
    flags = []
    for name, value in arguments.items():
        if not isinstance(value, str) or _is_address(value):
            continue
        words = _normal(value)
        if len(words.split()) < MIN_WORDS or len(words) < MIN_CHARS:
            continue
        if any(words in text for text in texts) and not any(words in text for text in said):
            flags.append(
                {"kind": KIND, "argument": name, "start": 0, "end": len(value), "reason": REASON}
            )
    return flags


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _is_address(value: str) -> bool:
    return value.strip().lower().startswith(("http://", "https://"))


def _strings(values: list[Any]) -> Iterator[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, Mapping):
            yield from _strings(list(value.values()))
        elif isinstance(value, list):
            yield from _strings(value)
