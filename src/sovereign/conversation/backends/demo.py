"""The demo script of the scripted backend: the whole Console flow without a model.

Proposes ``system_health`` for questions about heat, temperature or health,
``web_search`` for "search (the web) for …", ``web_fetch`` for "read/fetch/open
<url>" (or, with web search switched off, its stand-in ``web_switched_off``), and
otherwise answers. After a search or a page read it quotes the first passage offered;
a household reading is said by the product itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Message, ModelReply, ToolCall, ToolDefinition, latest_user_text

_HEALTH = re.compile(r"\b(hot|heat|temperature|temp|health|cpu|memory|disk|load)\b", re.I)
_SEARCH = re.compile(r"\b(?:search(?: the web)?(?: for)?|look up|google)\s+(.+)", re.I)
_FETCH = re.compile(r"\b(?:read|fetch|open)\s+(https?://\S+)", re.I)
INTRODUCTION = (
    "I am the demo model. Ask me how hot this device is, to search the web for something, "
    "or to read a web page (https://…)."
)


def demo_script(messages: list[Message], tools: list[ToolDefinition] | None) -> ModelReply:
    """Reply to ``messages`` as described in the module docstring."""
    results = _results_since_user(messages)
    if tools is None:
        return ModelReply(content=_answer(messages, results))
    offered = {tool["function"]["name"] for tool in tools}
    quotable = _quotable(tools)
    if quotable:  # a web answer: quote the first candidate offered
        arguments = {"passages": quotable[:1]}
        return ModelReply(tool_calls=(ToolCall("call_0", "quote_sources", arguments),))
    if results:  # what the product already said answers it, or the answer comes next
        return ModelReply()
    call = _choose(latest_user_text(messages), offered)
    return ModelReply(tool_calls=(call,)) if call else ModelReply()


def _choose(text: str, offered: set[str]) -> ToolCall | None:
    if (match := _FETCH.search(text)) and "web_fetch" in offered:
        return ToolCall("call_0", "web_fetch", {"url": match.group(1).rstrip(".,;)")})
    if (match := _SEARCH.search(text)) and "web_search" in offered:
        query = match.group(1).strip().rstrip("?.!")
        return ToolCall("call_0", "web_search", {"query": query[:500]})
    if (_FETCH.search(text) or _SEARCH.search(text)) and _WEB_OFF in offered:
        return ToolCall("call_0", _WEB_OFF, {})  # the product says it is switched off
    if _HEALTH.search(text) and "system_health" in offered:
        return ToolCall("call_0", "system_health", {})
    return None


def _quotable(tools: list[ToolDefinition]) -> list[str]:
    """The passage numbers the quote tool offers, when it is offered."""
    for tool in tools:
        if tool["function"]["name"] == "quote_sources":
            passages = tool["function"]["parameters"]["properties"]["passages"]
            return list(passages["items"]["enum"])
    return []


def _results_since_user(messages: list[Message]) -> list[dict[str, Any]]:
    results = []
    for message in reversed(messages):
        if message["role"] == "user":
            break
        if message["role"] == "tool":
            try:
                results.append(json.loads(message["content"]))
            except (TypeError, ValueError):
                continue
    return results[::-1]


_WEB_OFF = "web_switched_off"
"""The web's stand-in (:mod:`..offer.stand_ins`), offered while web search is off."""


def _answer(messages: list[Message], results: list[dict[str, Any]]) -> str:
    if not results:
        return INTRODUCTION
    return "\n\n".join(_describe(result) for result in results)


def _describe(result: dict[str, Any]) -> str:
    status, data = result.get("status"), result.get("untrusted_data")
    if status == "executed" and isinstance(data, dict):
        writer = _WRITERS.get(str(result.get("capability")))
        return writer(data) if writer else "Done."
    # Every framed problem's message is a sentence the assistant may say as it is.
    return str(result.get("message") or "That did not work.")


def _health(data: dict[str, Any]) -> str:
    celsius = data.get("cpu_temperature_celsius")
    heat = f"The CPU is at {celsius} °C" if celsius is not None else "This device has no CPU sensor"
    return (
        f"{heat}. Load average {data.get('load_average_1m')} (1 min), memory "
        f"{data.get('memory_used_percent')} % used, disk {data.get('disk_used_percent')} % used."
    )


def _search(data: dict[str, Any]) -> str:
    items = data.get("results") or []
    if not items:
        return f"The search for “{data.get('query')}” found nothing."
    lines = [f"- {item.get('title')}: {item.get('url')}" for item in items]
    return f"Results for “{data.get('query')}”:\n" + "\n".join(lines)


def _fetch(data: dict[str, Any]) -> str:
    if data.get("redirected"):
        return f"That page redirects to {data.get('final_url')}; I did not follow it."
    text = " ".join(str(data.get("text", "")).split())
    excerpt = text[:280] + ("…" if len(text) > 280 else "")
    return f"From {data.get('url')}: {excerpt}"


_WRITERS = {"system_health": _health, "web_search": _search, "web_fetch": _fetch}
