"""What a scripted model reads of a request: the last message that is not one of the
product's notes (the decision may end with system messages after the question: the
address it names, the page it refers to, the tool that reads what it names)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def last_spoken(messages: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The last message that is not a system message (the household's, a tool result,
    the assistant's), or the last message when every one is a system message."""
    return next((m for m in reversed(messages) if m["role"] != "system"), messages[-1])


def deciding(messages: Sequence[Mapping[str, Any]]) -> bool:
    """The request decides on the household's latest message: nothing has answered it."""
    return last_spoken(messages)["role"] == "user"
