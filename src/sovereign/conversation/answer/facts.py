"""Household facts said by the product, from the result itself (DESIGN §4, "the product states").

The model names which facts a question asks about (topics of the capability's
:class:`~sovereign.executor.facts.FactSheet`); this module says them, in the
household's language, from the result's own fields: every figure and state in
these sentences is the field the sentence names, formatted by its kind. The facts
panel under an answer comes from here too (:func:`panel_lines`), so the sentences
and the panel can never disagree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from babel.lists import format_list

from sovereign.executor.facts import ABSENT, NUMBER, FactSheet, Statement, Topic

from ..voice.catalogs import Voice
from ..voice.formats import FORMATTERS, measurement

_FIELD_IN_CONTEXT = re.compile(r"\{([a-z0-9_.]+)\}")


def render(
    sheet: FactSheet,
    result: Mapping[str, Any],
    topics: Sequence[str],
    voice: Voice,
    terms: set[str] | None = None,
) -> list[str]:
    """The sentences stating ``topics`` of ``result``, in the order the sheet lists them.

    Args:
        sheet: the capability's declaration.
        result: the executed call's result, as its result schema shaped it.
        topics: the topics the decision named; unknown ones are ignored, and with none
            left the sheet's summary topics are said.
        voice: the household's language (any catalog: the sheet's own is used).
        terms: when given, receives the names and state words the sentences said (what
            prose written after them must not say again, :func:`.checks.restating`).

    Returns:
        One or more sentences; a sentence said by two topics is said once.
    """
    named = [topic for topic in sheet.topics if topic.name in topics]
    if not named:
        named = [topic for topic in sheet.topics if topic.name in sheet.summary]
    return _sentences(sheet, result, named, voice, terms)


def panel_lines(sheet: FactSheet, result: Mapping[str, Any], voice: Voice) -> list[str]:
    """Every topic of ``result`` as sentences: the facts panel shown under an answer."""
    return _sentences(sheet, result, list(sheet.topics), voice)


def _sentences(
    sheet: FactSheet,
    result: Mapping[str, Any],
    topics: list[Topic],
    voice: Voice,
    terms: set[str] | None = None,
) -> list[str]:
    own = voice.with_catalog(sheet.catalog, sheet.domain)
    said: list[str] = []
    for topic in topics:
        for statement in topic.statements:
            for item in _items(statement, result):
                sentence = _say(sheet, topic, statement, item, own, terms)
                sentence = sentence[:1].upper() + sentence[1:] if sentence else sentence
                if sentence and sentence not in said:
                    said.append(sentence)
    return said


def _items(statement: Statement, result: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    if statement.each is None:
        yield result
        return
    items = field_value(result, statement.each)
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            yield item


def _say(
    sheet: FactSheet,
    topic: Topic,
    statement: Statement,
    item: Mapping[str, Any],
    voice: Voice,
    terms: set[str] | None = None,
) -> str | None:
    if not all(_holds(field_value(item, path), want) for path, want in statement.when.items()):
        return None
    if any(_holds(field_value(item, path), want) for path, want in statement.unless.items()):
        return None
    values: dict[str, object] = {}
    for placeholder in statement.values:
        shown = _shown(sheet, statement, item, placeholder, voice)
        if shown is None:
            return None  # never a unit on a state, never "None GB"
        values[placeholder] = shown
    if terms is not None:
        words = {p for p in values if _kind(sheet, statement, p) in ("name", "state")}
        terms.update(str(values[p]) for p in words)
    if statement.plural is None or statement.count is None:
        return voice.say(topic.name, statement.text, **values)
    number = field_value(item, statement.values[statement.count])
    count = round(float(number)) if _number(number) is not None else 0
    return voice.say_count(topic.name, statement.text, statement.plural, count, **values)


def _shown(
    sheet: FactSheet,
    statement: Statement,
    item: Mapping[str, Any],
    placeholder: str,
    voice: Voice,
) -> str | None:
    path = statement.values[placeholder]
    kind, value = _kind(sheet, statement, placeholder), field_value(item, path)
    if kind in FORMATTERS:
        number = _number(value)
        return None if number is None else FORMATTERS[kind](number, voice)
    if kind == "reading":
        number = _number(value)
        unit = field_value(item, sheet.units[path]) if path in sheet.units else None
        return None if number is None else measurement(number, _text(unit), voice)
    if value is None:
        return None
    if isinstance(value, list):  # names: "a, b and c" in the language's own way
        return format_list([str(v) for v in value], locale=voice.language) if value else None
    if kind == "state":
        context = _FIELD_IN_CONTEXT.sub(
            lambda match: str(field_value(item, match.group(1))), statement.states
        )
        english = sheet.words.get(context, {}).get(str(value))
        return voice.say(context, english) if english else _text(str(value).replace("_", " "))
    return _text(value)


def _kind(sheet: FactSheet, statement: Statement, placeholder: str) -> str | None:
    return statement.kinds.get(placeholder, sheet.kinds.get(statement.values[placeholder]))


def field_value(result: Any, path: str) -> Any:
    """The value at a dotted ``path`` of ``result`` (``None`` when any step is missing)."""
    value = result
    for step in path.split("."):
        if not isinstance(value, Mapping) or step not in value:
            return None
        value = value[step]
    return value


def _holds(value: Any, want: Any) -> bool:
    if want is ABSENT:
        return value is None
    if want is NUMBER:
        return _number(value) is not None
    if isinstance(want, tuple):
        return any(_holds(value, one) for one in want)
    return bool(value == want) and isinstance(value, bool) == isinstance(want, bool)


def _number(value: Any) -> float | None:
    """``value`` as a finite number: a JSON number, or text that reads as one ("21.4")."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _text(value: Any) -> str | None:
    """Text from a result shown as it is, on one line (a friendly name, a unit)."""
    if value is None:
        return None
    return " ".join(str(value).split()) or None
