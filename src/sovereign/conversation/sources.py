"""Web answers that quote their sources: the model selects, the product quotes (DESIGN §4).

A small model reliably chooses the passage that answers a question and unreliably
paraphrases it (four snippets saying "buses replace trains on Sunday" became "there
are no engineering works this weekend"). So what a search or a page returned is shown
to the model as numbered passages (``"2.3"``: source 2, passage 3), and its answer is
a choice among those numbers (the :data:`QUOTE` tool, constrained by the grammar to
numbers that exist) with at most one short sentence of its own. The product then
quotes the chosen passages word for word, each with its source's host, and adds the
sentence only when it states no figure, day or month the quoted passages do not hold
and is written in the question's language; otherwise it is left out, not asked again.
When no passage answers the question, the answer says so and lists what was found.

Content never steers: a passage that speaks to the assistant ("ignore previous
instructions", "now search for …", a chat-template token) is never offered for
quoting, the turn offers nothing that reaches outside afterwards, and the answer says
that a source held instructions that were ignored. The phrases that speak to an
assistant are data, per language (``steering.json``), matched in every language,
since a page can be written in any.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

QUOTE = "quote_sources"
"""The tool the model answers a web question with."""
SUMMARY_CHARACTERS = 200
"""The longest sentence of its own the model may add to a quoted answer (the grammar
ends it there: one short sentence, never a second answer)."""
MAX_QUOTES = 3
"""Most passages quoted in one answer."""
MAX_PASSAGES = 160
"""Most passages numbered per source (a long page's tail is not offered)."""
MAX_PASSAGE_CHARS = 600
"""A longer paragraph is cut into its sentences."""
_OPENERS = "\"'\u201c\u2018\u00ab(\u00bf\u00a1"
_SENTENCE_END = re.compile(rf"(?<=[.!?])\s+(?=[{_OPENERS}]?[A-ZÀ-ÖØ-Þ0-9])")
_STEERING_FILE = Path(__file__).resolve().parent / "steering.json"


@dataclass(frozen=True)
class Passage:
    """One numbered piece of a source's text."""

    id: str
    text: str
    steering: bool = False
    """It speaks to the assistant: never offered for quoting."""


@dataclass(frozen=True)
class Source:
    """A search result or a page read, cut into passages.

    Attributes:
        number: its number in the turn (1, 2, …).
        title, url: as the capability returned them.
        passages: its numbered passages, in order.
    """

    number: int
    title: str
    url: str
    passages: tuple[Passage, ...]

    @property
    def host(self) -> str:
        """The source's host name ("news.example"), or its address when it has none."""
        return urlsplit(self.url).hostname or self.url

    @property
    def steering(self) -> bool:
        """Whether any of its passages (or its title) speaks to the assistant."""
        return speaks_to_the_assistant(self.title) or any(p.steering for p in self.passages)


@dataclass
class Sources:
    """The web sources a turn read, numbered across calls."""

    items: list[Source] = field(default_factory=list)

    def add_result(self, capability: str, result: Mapping[str, Any]) -> list[Source]:
        """Number the sources of one executed web call (search results, or a page read)
        and return them; a redirect or an empty page adds none."""
        added = []
        for title, url, text in _texts(capability, result):
            number = len(self.items) + 1
            source = Source(number, title, url, tuple(cut(text, number)))
            if source.passages:
                self.items.append(source)
                added.append(source)
        return added

    def passage(self, passage_id: str) -> tuple[Source, Passage] | None:
        """The source and passage a number names, or ``None``."""
        for source in self.items:
            for passage in source.passages:
                if passage.id == passage_id:
                    return source, passage
        return None

    def quotable(self) -> list[str]:
        """The numbers of every passage that may be quoted (no steering ones)."""
        return [p.id for s in self.items for p in s.passages if not p.steering]

    @property
    def steered(self) -> bool:
        """Whether any source this turn speaks to the assistant."""
        return any(source.steering for source in self.items)


def cut(text: str, number: int) -> list[Passage]:
    """``text`` as numbered passages: its lines (headings, list items, paragraphs), a
    line longer than :data:`MAX_PASSAGE_CHARS` cut into sentences; blank lines dropped."""
    pieces: list[str] = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        pieces.extend(_SENTENCE_END.split(line) if len(line) > MAX_PASSAGE_CHARS else [line])
    return [
        Passage(f"{number}.{index}", piece, speaks_to_the_assistant(piece))
        for index, piece in enumerate(pieces[:MAX_PASSAGES], 1)
    ]


def for_the_model(sources: Sequence[Source]) -> list[dict[str, Any]]:
    """What the model reads of ``sources``: title, address and the numbered passages it
    may quote (passages that speak to the assistant are shown as withheld)."""
    return [
        {
            "source": source.number,
            "title": source.title,
            "url": source.url,
            "passages": {
                p.id: ("(withheld: it gives orders to the assistant)" if p.steering else p.text)
                for p in source.passages
            },
        }
        for source in sources
    ]


def quote_tool(sources: Sources) -> dict[str, Any] | None:
    """The :data:`QUOTE` tool for the passages the turn may quote, or ``None`` when there
    are none."""
    quotable = sources.quotable()
    if not quotable:
        return None
    return {
        "type": "function",
        "function": {
            "name": QUOTE,
            "description": (
                "Answer from the sources above: choose the passages, by number, that "
                f"answer the question (at most {MAX_QUOTES}, none when none does), and "
                "add at most one short sentence of your own, in the person's language, "
                "that sums them up (empty when the passages say it all)."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "passages": {
                        "type": "array",
                        "items": {"enum": quotable},
                        "maxItems": MAX_QUOTES,
                    },
                    "summary": {"type": "string", "maxLength": SUMMARY_CHARACTERS},
                },
                "required": ["passages", "summary"],
                "additionalProperties": False,
            },
        },
    }


@dataclass(frozen=True)
class Selection:
    """What the model chose to quote."""

    quoted: tuple[tuple[Source, Passage], ...]
    summary: str


def selection(sources: Sources, arguments: Mapping[str, Any] | None) -> Selection:
    """The model's :data:`QUOTE` call read leniently: unknown or steering numbers and
    repeats dropped, at most :data:`MAX_QUOTES` kept, a summary that is not text ignored."""
    arguments = arguments or {}
    chosen = arguments.get("passages")
    quoted: list[tuple[Source, Passage]] = []
    for passage_id in chosen if isinstance(chosen, list) else []:
        found = sources.passage(str(passage_id))
        if found is not None and not found[1].steering and found not in quoted:
            quoted.append(found)
    summary = arguments.get("summary")
    summary = " ".join(summary.split()) if isinstance(summary, str) else ""
    return Selection(tuple(quoted[:MAX_QUOTES]), summary)


def speaks_to_the_assistant(text: str) -> bool:
    """Whether ``text`` addresses an assistant: a phrase of ``steering.json`` in any of
    its languages, or a chat-template control token."""
    folded = _fold(text)
    return any(marker in folded for marker in _markers())


@functools.cache
def _markers() -> tuple[str, ...]:
    data = json.loads(_STEERING_FILE.read_text(encoding="utf-8"))
    phrases = [p for language in data["phrases"].values() for p in language]
    return tuple(_fold(p) for p in [*phrases, *data["tokens"]])


def _fold(text: str) -> str:
    """Lower case, accents removed, spaces collapsed: how phrases are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.split())


def _texts(capability: str, result: Mapping[str, Any]) -> Iterable[tuple[str, str, str]]:
    """(title, url, text) of each source in a web result (search results or a page)."""
    if isinstance(result.get("results"), list):
        for item in result["results"]:
            if isinstance(item, Mapping) and item.get("url"):
                yield str(item.get("title") or ""), str(item["url"]), str(item.get("snippet") or "")
    elif result.get("url") and not result.get("redirected"):
        url = str(result.get("final_url") or result["url"])
        yield str(result.get("title") or url), url, str(result.get("text") or "")
