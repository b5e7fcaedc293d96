"""Web answers that quote their sources: the model selects, the product quotes (DESIGN §4).

A small model reliably chooses the passage that answers a question and unreliably
paraphrases it (four snippets saying "buses replace trains on Sunday" became "there
are no engineering works this weekend"). So what a search or a page returned is shown
to the model as numbered passages (``"2.3"``: source 2, passage 3), and its answer is
a choice among those numbers (the :data:`QUOTE` tool, constrained by the grammar to the
few passages that share most words with the question, :func:`candidates`, listed best
first in a note that repeats the question) with at most one short sentence of its own.
The product then quotes the chosen passage word for word with its source's host, and
adds the sentence only when it states no figure, day or month the quoted passage does
not hold and is written in the question's language; otherwise it is left out, not
asked again.
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
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .voice.words import stem, words

QUOTE = "quote_sources"
"""The tool the model answers a web question with."""
SUMMARY_CHARACTERS = 200
"""The longest sentence of its own the model may add to a quoted answer (the grammar
ends it there: one short sentence, never a second answer)."""
MAX_QUOTES = 1
"""Most passages quoted in one answer: the one that answers. Allowed three, the model
quoted three, in the order shown, the decoys beside the answer among them."""
CANDIDATES = 5
"""Most passages offered for quoting: those sharing most words with the question."""
BM25_K1, BM25_B = 1.2, 0.75
"""Okapi BM25's usual term-saturation and length-normalisation constants."""
MAX_PASSAGES = 160
"""Most passages numbered per source (a long page's tail is not offered)."""
MAX_PASSAGE_CHARS = 600
"""A longer paragraph is cut into its sentences."""
_OPENERS = "\"'\u201c\u2018\u00ab(\u00bf\u00a1"
_SENTENCE_END = re.compile(rf"(?<=[.!?])\s+(?=[{_OPENERS}]?[A-ZÀ-ÖØ-Þ0-9])")
_STEERING_FILE = Path(__file__).resolve().parent / "steering.json"
_ADDRESS = re.compile(r"\S+://\S+")


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

    def quotable(self) -> list[Passage]:
        """Every passage that may be quoted (no steering ones), in reading order."""
        return [p for s in self.items for p in s.passages if not p.steering]

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


def candidates(sources: Sources, question: str, language: str) -> list[str]:
    """The numbers of the passages that may answer ``question``, most related first: at
    most :data:`CANDIDATES` quotable passages, ranked by Okapi BM25 over the Snowball
    stems of the question's words in ``language`` (addresses in the question left out),
    ties in reading order. Passages that share no stem with the question are not
    candidates; when none shares one, every quotable passage is, in reading order.

    A retrieval step before the model reads: ranking by shared words is language-
    independent and never paraphrases, and a small model chooses among five passages,
    shown best first, better than among a page's hundred in page order.
    """
    quotable = sources.quotable()
    if not quotable:
        return []
    asked = {stem(w.whole, language) for w in words(_ADDRESS.sub(" ", question))}
    bags = [[stem(w.whole, language) for w in words(p.text)] for p in quotable]
    average = sum(map(len, bags)) / len(bags) or 1.0
    holding = {t: sum(t in bag for bag in bags) for t in asked}
    scores = []
    for passage, bag in zip(quotable, bags, strict=True):
        score = 0.0
        for term in asked:
            count = bag.count(term)
            if count:
                rarity = math.log(1 + (len(bags) - holding[term] + 0.5) / (holding[term] + 0.5))
                scale = BM25_K1 * (1 - BM25_B + BM25_B * len(bag) / average)
                score += rarity * count * (BM25_K1 + 1) / (count + scale)
        scores.append((score, passage.id))
    ranked = [n for score, n in sorted(scores, key=lambda x: -x[0]) if score > 0]
    return ranked[:CANDIDATES] or [p.id for p in quotable]


def quote_tool(choices: Sequence[str]) -> dict[str, Any] | None:
    """The :data:`QUOTE` tool for the passage numbers ``choices`` (:func:`candidates`),
    or ``None`` when there are none."""
    quotable = list(choices)
    if not quotable:
        return None
    return {
        "type": "function",
        "function": {
            "name": QUOTE,
            "description": (
                "Answer from the sources above: choose the passage, by number, that "
                "answers the question (none when none does), and add at most one short "
                "sentence of your own, in the person's language, that sums it up (empty "
                "when the passage says it all)."
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


def quote_note(question: str, choices: Sequence[str]) -> str:
    """The last words the model reads before choosing: the question again, right before
    the choice (a small model weighs what it read last), what a passage must match to
    answer it, and the candidate numbers, most related first."""
    return (
        f"The question is: {json.dumps(question, ensure_ascii=False)}\n"
        f"The passages that may answer it, most related first: {', '.join(choices)}.\n"
        "Choose the one that answers exactly this question: the same place, day and "
        "thing it asks about. A passage about another day, place or thing does not answer "
        "it, however close. Choose none when no passage answers it."
    )


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
