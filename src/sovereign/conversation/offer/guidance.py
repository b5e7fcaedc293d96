"""Argument guidance: the parameters a model is offered follow what the conversation gives.

A small model fills every parameter it is shown (a search for a lasagna recipe
limited to the last day) and invents addresses (a Pi-hole question answered by
fetching a made-up pi-hole.net page). Two rules, applied to the copy of each
tool's parameters offered in one round, never to the capability's own schema
(the executor still validates against that):

- A property marked ``"x-time-window"`` (web.search's ``time_range``,
  pihole.summary's ``period``) is offered only when the question names a time
  scope (:func:`names_time_scope`: "today", "this week", "the past year",
  "last 30 days" …). Otherwise it is left out and the capability's default
  applies. When the annotation maps each value to its span in days and the
  question names a span (:func:`~.time_spans.named_span_days`, from a catalog
  of the six languages: "this weekend", "dieses Jahr", "ce mois-ci"), the values
  offered are those that cover it (:func:`window_values`): Pi-hole counts "this
  weekend" over a week, never a day. Such a window is then required, so the grammar
  writes it ("last week" is never left to the default), unless it only hides results. A
  window marked ``"x-published-window"`` as well (web.search's, which hides results
  by when they were published) is offered only for a named span, and stays
  optional. It covers the span as Pi-hole's does, except a span that may lie wholly
  ahead of today, the coming weekend: pages about it are written before it, so the
  window covers twice its length, the span and as long again before it ("this
  weekend" is a month, never a day or a week).
- A property with ``"format": "uri"`` (web.fetch's ``url``) may only hold an
  address the conversation holds (:func:`conversation_urls`): one the household
  wrote, one an earlier answer gave, or one a search result or redirect of this
  turn returned. It becomes an ``enum`` of those, so constrained decoding can only
  copy one exactly; with none, a tool that requires it is not offered at all.
  Addresses inside fetched page text never count (a page must not be able to
  choose what is fetched next). An address of the question that the reader's own
  validation refuses (``localhost``, a home-network name, ``file://``) is not
  offered at all, and the round is given the words that say so
  (:meth:`ArgumentGuide.unreadable_note`).

Every ``x-`` annotation is removed from what the model sees.
See docs/decisions/offered-tools-and-arguments.md.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..backends.base import latest_user_text
from ..voice.words import PhraseIndex, letters
from .time_spans import TimeScope, named_span_days, names_time_scope, time_scope

__all__ = [
    "MAX_URLS",
    "PUBLISHED_WINDOW",
    "TIME_WINDOW",
    "ArgumentGuide",
    "addresses_in",
    "conversation_urls",
    "is_time_window",
    "named_span_days",
    "names_time_scope",
    "refers_back",
    "strip_annotations",
    "unguided",
    "urls_in",
    "window_values",
]

TIME_WINDOW = "x-time-window"
"""Annotation of an optional property that narrows results to a time window."""
PUBLISHED_WINDOW = "x-published-window"
"""Annotation of a time window that only hides results by when they were published
(web.search's ``time_range``): it is offered only when the question names a span, never
for a scope alone, and for a span that may lie ahead of today (the coming weekend) it
reaches back twice the span's length (:data:`LEAD`)."""


def is_time_window(schema: object) -> bool:
    """Whether ``schema``, one property of a capability's arguments, is marked
    :data:`TIME_WINDOW`."""
    return isinstance(schema, Mapping) and TIME_WINDOW in schema


LEAD = 2
"""How many times its own length a published window reaches back for a span that may lie
ahead of today: the span, and as long again before it, when pages about it are
written ("this weekend" 7 days → 14 → a month)."""
MAX_URLS = 8
"""Most addresses offered for one ``format: uri`` property."""
REFERENCES = Path(__file__).resolve().parent / "references.json"
"""The phrases per language that refer back to a page named earlier."""

# No quote, backslash or control character: an address must be a grammar literal as it is.
_ADDRESS = re.compile(r"\b[a-z][a-z0-9+.-]{0,15}://[^\s<>\"'`\\\x00-\x1f\x7f]*", re.IGNORECASE)
_TRAILING = ".,;:!?)]}\"'\u00bb\u201d\u2019"


def window_values(spans: Mapping[str, float], days: float) -> list[str]:
    """The values of a time-window property (value → its span in days) that fit a
    window of ``days``: those of exactly that span, else the shortest that covers it,
    else the longest."""
    exact = [value for value, span in spans.items() if abs(span - days) < 1e-9]
    if exact:
        return exact
    covering = sorted((span, value) for value, span in spans.items() if span >= days)
    if covering:
        return [covering[0][1]]
    return [max(spans, key=lambda value: spans[value])]


def refers_back(text: str) -> bool:
    """Whether ``text`` refers to a page named earlier ("according to it", "that
    article", "résume-le", "laut dem Artikel") rather than naming one: a phrase of
    :data:`REFERENCES`, in any of its languages, as whole words, with the catalog's
    fillers skipped ("fass ihn bitte zusammen")."""
    phrases, fillers = _references()
    return phrases.in_text(text, skipped=fillers)


@functools.cache
def _references() -> tuple[PhraseIndex[bool], frozenset[str]]:
    catalog = json.loads(REFERENCES.read_text(encoding="utf-8"))
    languages = [entry for language, entry in catalog.items() if not language.startswith("_")]
    phrases = PhraseIndex.of((p, True) for entry in languages for p in entry["phrases"])
    fillers = frozenset(letters(f) for entry in languages for f in entry["fillers"])
    return phrases, fillers


def urls_in(text: str) -> list[str]:
    """The http(s) addresses written in ``text``, in order, without trailing punctuation.

    A closing bracket is kept when the address opened one (``…/Foo_(bar)``).
    """
    return [a for a in addresses_in(text) if a.lower().startswith(("http://", "https://"))]


def addresses_in(text: str) -> list[str]:
    """The addresses of any scheme written in ``text`` (``https://…``, ``file:///…``,
    ``ftp://…``), in order, without trailing punctuation (see :func:`urls_in`)."""
    found = []
    for match in _ADDRESS.finditer(text):
        url = match.group(0)
        while url and url[-1] in _TRAILING and not _balanced_close(url):
            url = url[:-1]
        if not url.endswith("://"):
            found.append(url)
    return found


def _balanced_close(url: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{"}
    opener = pairs.get(url[-1])
    return opener is not None and url.count(opener) >= url.count(url[-1])


def conversation_urls(
    messages: Iterable[Mapping[str, Any]], found: Iterable[str] = ()
) -> list[str]:
    """Addresses the conversation holds, newest message first, then ``found``.

    Args:
        messages: the turn's context; only ``user`` and ``assistant`` text counts
            (tool messages hold untrusted data).
        found: addresses results of this turn returned (search result URLs,
            redirect targets), in order.

    Returns:
        At most :data:`MAX_URLS` distinct addresses.
    """
    spoken = [m for m in messages if m.get("role") in ("user", "assistant")]
    urls: list[str] = []
    for message in reversed(spoken):
        urls.extend(urls_in(str(message.get("content") or "")))
    urls.extend(found)
    return list(dict.fromkeys(urls))[:MAX_URLS]


def _last_named(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The address the person or the assistant wrote last (newest message, last named)."""
    spoken = [m for m in messages if m.get("role") in ("user", "assistant")]
    for message in reversed(spoken):
        if urls := urls_in(str(message.get("content") or "")):
            return urls[-1]
    return None


@dataclass(frozen=True)
class ArgumentGuide:
    """What one model round may put into arguments (see the module docstring).

    Attributes:
        time_scoped: the question names a time scope.
        urls: the addresses a ``format: uri`` property may hold.
        question_urls: the addresses the question itself names (a subset of ``urls``).
        unreadable: addresses the question names that the offered reader would
            refuse at validation (a page on this device or the home network, a
            ``file://`` path): they are not offered, and the decision is given the
            words that say so (nothing else stands in for reading them, see
            :attr:`only_unreadable`).
        referred: the address named earlier in the conversation that a question
            without one refers to ("according to it", "that article"), or ``None``.
        span_days: the length of the time window the question names, in days
            (:func:`named_span_days`), or ``None``.
        span_ahead: that span may lie wholly ahead of today (the coming weekend).
        followed: for a question naming no time scope that goes on from an earlier
            one ("hoeveel procent is dat van alles" after "… deze week?"), the scope
            that question named; it fills a window that counts what is read (Pi-hole's
            period), never one that hides search results by their date. ``None`` when
            the question names its own or goes on from none.
    """

    time_scoped: bool = False
    urls: Sequence[str] = ()
    question_urls: Sequence[str] = ()
    unreadable: Sequence[str] = ()
    referred: str | None = None
    span_days: float | None = None
    span_ahead: bool = False
    followed: TimeScope | None = None

    @classmethod
    def for_context(
        cls,
        messages: Sequence[Mapping[str, Any]],
        found: Iterable[str] = (),
        readable: Callable[[str], bool] | None = None,
        followed: TimeScope | None = None,
    ) -> ArgumentGuide:
        """The guide for a round whose latest user message is the question.

        Args:
            messages: the turn's context.
            found: addresses this turn's results returned.
            readable: whether an offered tool would accept an address (the
                executor's validation, which needs no network); ``None`` when no
                offered tool reads addresses.
            followed: the scope of the earlier question this one goes on from
                (:attr:`followed`); used only when the question names none.
        """
        question = latest_user_text(messages)
        named = addresses_in(question)
        unreadable = tuple(dict.fromkeys(a for a in named if readable and not readable(a)))
        urls = tuple(u for u in conversation_urls(messages, found) if u not in unreadable)
        asked = tuple(u for u in dict.fromkeys(named) if u in urls)
        last = _last_named(messages) if not named and refers_back(question) else None
        referred = last if last in urls else None
        scope = time_scope(question)
        followed = followed if not scope.named and followed and followed.named else None
        return cls(
            scope.named, urls, asked, unreadable, referred, scope.days, scope.ahead, followed
        )

    @property
    def only_unreadable(self) -> bool:
        """The question names addresses, and no offered tool may read any of them."""
        return bool(self.unreadable) and not self.question_urls

    def unreadable_note(self) -> str | None:
        """The words for answering a question about :attr:`unreadable` addresses (for
        the decision and for an answer written without a call), or ``None``."""
        if not self.unreadable:
            return None
        named = ", ".join(self.unreadable)
        return (
            f"No tool can read {named}. If the question asks to read or open it, answer "
            f"exactly: I can't read {named}: I read only public web pages, never files "
            "or pages on this device or your home network."
        )

    def hint(self, tools: Sequence[Mapping[str, Any]]) -> str | None:
        """Sentences about the addresses the question gives, or ``None``; the decision
        reads them with its instructions and again after the conversation.

        E.g. "The question names the web address http://news.example/a; web_fetch
        reads exactly that page." (the choice stays the model's). For an address no
        tool may read, the words to answer with (:meth:`unreadable_note`).
        """
        sentences = [self.unreadable_note()] if self.unreadable else []
        reader = self._reader(tools)
        if self.question_urls and reader is not None:
            named = ", ".join(self.question_urls)
            noun = "address" if len(self.question_urls) == 1 else "addresses"
            sentences.append(
                f"The question names the web {noun} {named}; {reader} reads exactly that page."
            )
        return " ".join(sentences) or None

    def reference_hint(self, tools: Sequence[Mapping[str, Any]]) -> str | None:
        """The sentence pointing a question that refers back at :attr:`referred`, e.g.
        "The question refers to the page named earlier, http://…; web_fetch reads
        exactly that page.", or ``None``. The turn loop puts it last in the decision."""
        reader = self._reader(tools)
        if not self.referred or reader is None:
            return None
        return (
            f"The question refers to the page named earlier, {self.referred}; "
            f"{reader} reads exactly that page."
        )

    def page_reader(self, tools: Sequence[Mapping[str, Any]]) -> str | None:
        """The offered tool that reads the page the question names or refers to
        (:attr:`question_urls`, :attr:`referred`), or ``None`` when the question points
        at no readable page or no offered tool reads it."""
        if not self.question_urls and not self.referred:
            return None
        return self._reader(tools)

    def _reader(self, tools: Sequence[Mapping[str, Any]]) -> str | None:
        """The offered tool whose address property holds this round's :attr:`urls`."""
        return next((t["function"]["name"] for t in tools if _takes_urls(t, self.urls)), None)

    def narrow(self, parameters: Mapping[str, Any]) -> dict[str, Any] | None:
        """A copy of a tool's ``parameters`` as offered this round, or ``None`` when the
        tool cannot be offered (a required address with none to choose from)."""
        offered = copy.deepcopy(dict(parameters))
        properties = offered.get("properties", {})
        required = set(offered.get("required", []))
        for name in list(properties):
            schema = properties[name]
            window = schema.get(TIME_WINDOW)
            scoped, days = self.time_scoped, self.span_days
            if window and not schema.get(PUBLISHED_WINDOW) and self.followed is not None:
                scoped, days = True, self.followed.days  # what is counted goes on
            unnamed = schema.get(PUBLISHED_WINDOW) and days is None
            if window and (not scoped or unnamed) and name not in required:
                del properties[name]
            elif isinstance(window, Mapping) and days is not None:
                # The question names a span: the window is the one that fits; one that
                # chooses what is counted is required, so the grammar writes it (left
                # optional, "last week" was omitted). One that only hides results
                # stays the model's choice, and reaches back further for a span that
                # may lie ahead: a page about this weekend was written before it.
                if schema.get(PUBLISHED_WINDOW) and self.span_ahead:
                    days *= LEAD
                schema["enum"] = window_values(window, days)
                if not schema.get(PUBLISHED_WINDOW):
                    offered["required"] = [*offered.get("required", []), name]
            elif schema.get("format") == "uri":
                if self.urls:
                    schema.pop("format")
                    schema["enum"] = list(self.urls)
                elif name in required:
                    return None
                else:
                    del properties[name]
        return strip_annotations(offered)


def _takes_urls(tool: Mapping[str, Any], urls: Sequence[str]) -> bool:
    properties = tool.get("function", {}).get("parameters", {}).get("properties", {})
    return any(p.get("enum") == list(urls) for p in properties.values() if urls)


def unguided(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """``parameters`` with every property offered and no annotation: ``x-`` keys and
    ``format: uri`` removed (what a model sees when no conversation narrows them)."""
    offered = strip_annotations(dict(parameters))
    for schema in offered.get("properties", {}).values():
        if isinstance(schema, dict) and schema.get("format") == "uri":
            del schema["format"]
    return offered


def strip_annotations(schema: Any) -> Any:
    """``schema`` without any ``x-`` key, at any depth (a new object)."""
    if isinstance(schema, dict):
        return {k: strip_annotations(v) for k, v in schema.items() if not str(k).startswith("x-")}
    if isinstance(schema, list):
        return [strip_annotations(item) for item in schema]
    return schema
