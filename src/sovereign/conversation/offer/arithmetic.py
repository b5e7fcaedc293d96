"""Arithmetic the model writes and the product works out (DESIGN §4: the model chooses,
the product states).

A 1.5B model knows what to compute and gets the figure wrong: "quanti grammi sono 8
once?" got "8 once sono 160 grammi", "¿Cuántos minutos son dos horas y cuarto?" got "2
horas y 40 minutos", "Wie viele Esslöffel sind 150 ml?" got "1 Esslöffel". Questions of
this kind also went to a web search or to the change stand-in ("Hoeveel ons is 2,5
kilo?" was searched for). So a question that holds a number is offered
:data:`CALCULATE`: the model writes the sum as one expression (``8 * 28.35``), and the
product works it out and gives the model the result for its answer, shown to the
household as the product's own line (in German, "8 \u00d7 28,35 = 226,8" with the
multiplication sign).

The expression is read by Python's own parser and only numbers, ``+ - * /``, signs and
parentheses are worked out; anything else (a name, a call, a power) is no expression and
the model answers as it would have without one. The units a question writes are the
product's too (:func:`..quantities.with_units`): a conversion it asks for is a
:class:`Conversion`, and a sum of its quantities in two units of one kind a
:class:`Calculation` that carries them.
"""

from __future__ import annotations

import ast
import functools
import json
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from babel.numbers import NumberFormatError, format_decimal, parse_decimal
from babel.units import format_unit

from ..backends.base import ModelReply, ToolDefinition
from ..voice.catalogs import Voice
from ..voice.words import fold

CALCULATE = "calculate"
"""The decision's tool: ``{"expression": "375 * 2"}``; it runs nothing outside the turn."""

MAX_EXPRESSION = 200
"""Characters: a household's sum is short, and parsing a longer one costs for nothing."""
MAX_MAGNITUDE = Decimal("1e15")
"""No operand or result beyond this: the product states no figure it cannot say."""

_WRITTEN_NUMBER = re.compile(r"\d+(?:[.,\u00a0\u202f]\d+)*")
"""A number as a question writes it: digits, with group or decimal separators between."""
NUMBERED_THINGS = Path(__file__).resolve().parent / "numbered_things.json"
"""Per language, the words that name a thing by a number ("bus 3", "Gleis 4", "the 42
bus"): such a number is no quantity (:func:`quantities_written`)."""
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "\u00d7", ast.Div: "\u00f7"}
_APPLY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: operator.truediv}  # fmt: skip
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2}


def calculate_tool() -> ToolDefinition:
    """The OpenAI tool definition the decision is offered beside the others."""
    return {
        "type": "function",
        "function": {
            "name": CALCULATE,
            "description": (
                "Only for a question that needs a calculation or a unit conversion: write "
                "it as one expression of numbers with + - * / and parentheses (for 8 "
                "ounces in grams: 8 * 28.35); the device works it out."
            ),
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
                "additionalProperties": False,
            },
        },
    }


def holds_a_number(question: str) -> bool:
    """Whether ``question`` holds a digit (any script's): the questions offered
    :data:`CALCULATE`. Language-blind on purpose; numbers written as words are left to
    the model."""
    return any(character.isdigit() for character in question)


@dataclass(frozen=True)
class Calculation:
    """An expression the product worked out.

    Attributes:
        tree: the parsed expression (numbers and ``+ - * /`` only).
        value: its value, exact (``Decimal``), in :attr:`unit` if it has one.
        units: the expression's numbers that carry a unit of the question's, with that
            unit (CLDR key): worked out in their units (:func:`..quantities.with_units`).
        unit: the result's unit (CLDR key), or ``None`` for a number.
    """

    tree: ast.expr
    value: Decimal
    units: tuple[tuple[Decimal, str], ...] = ()
    unit: str | None = None

    def shown(self, voice: Voice) -> str:
        """The product's line, numbers in the household's language: in German,
        ``8 * 28.35`` is "8 \u00d7 28,35 = 226,8" (the multiplication sign), and with
        units, "128 GB \u00f7 4 MB = 32.000"."""
        units = dict(self.units)
        return f"{_shown(self.tree, voice, units)} = {_figure(self.value, self.unit, voice)}"

    def works_with(self, question: str, language: str) -> bool:
        """Whether this is an operation (not a lone number) on a number ``question``
        holds, read in ``language``'s conventions or in English's ("2,5" is 2.5 in
        German): the household gave what is computed ("¿cuántos megas son 2 gigas?"
        is ``2 * 1024``), so nothing of the household need be read for it."""
        if not isinstance(self.tree, ast.BinOp):
            return False
        held = set()
        for written in quantities_written(question, language):
            for locale in dict.fromkeys((language, "en")):
                try:
                    held.add(parse_decimal(written, locale=locale, strict=False))
                except NumberFormatError:
                    continue
        return any(value in held for value in self.operands)

    @property
    def operands(self) -> list[Decimal]:
        """The numbers the expression is written with, in the order the tree is walked."""
        return [
            Decimal(str(node.value))
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Constant)
        ]

    def note(self, voice: Voice) -> str:
        """What the model is told for its answer: English, as its other instructions,
        with the line as the household reads it (``voice``), so that the prose writes
        the figure as the line does ("204,44" in Dutch, not "204.44")."""
        return _note(self.shown(voice))


@dataclass(frozen=True)
class Conversion:
    """A quantity the question gives, converted to the unit it names
    (:func:`..quantities.with_units`): "400 °F = 204,44 °C".

    Attributes:
        amount: the question's number, in ``source``.
        source: its unit (CLDR key, e.g. ``temperature-fahrenheit``).
        value: the amount in ``target``, exact (``Decimal``).
        target: the unit asked for (CLDR key).
    """

    amount: Decimal
    source: str
    value: Decimal
    target: str

    def shown(self, voice: Voice) -> str:
        """The product's line, in the household's numbers and units (Babel)."""
        given = _figure(self.amount, self.source, voice)
        return f"{given} = {_figure(self.value, self.target, voice)}"

    def works_with(self, question: str, language: str) -> bool:
        """Always: the amount converted is the question's own."""
        return True

    def note(self, voice: Voice) -> str:
        """What the model is told for its answer: English, as its other instructions,
        with the line as the household reads it (``voice``), so that the prose writes
        the figure as the line does ("204,44" in Dutch, not "204.44")."""
        return _note(self.shown(voice))


def quantities_written(question: str, language: str) -> Iterator[str]:
    """The numbers ``question`` writes (as written: "2,5", "1.000") that count something,
    in order: not those that name a thing, in ``language``'s words
    (``numbered_things.json``: "autobús 3", "Linie 5", "Nr. 12", "the 42 bus") or glued
    to letters before them ("A40", "ICE599"). "el billete del autobús 3 ha subido un 5%"
    gives 5 alone: a sum on the bus's number is no sum the household gave."""
    before, after = _numbered_things(language)
    for match in _WRITTEN_NUMBER.finditer(question):
        preceding = question[: match.start()]
        glued = preceding.rsplit(None, 1)[-1] if preceding[-1:].isalpha() else ""
        if glued[:1].isalpha():
            continue  # "A40": a token of letters, then digits
        if _ends_with_word(fold(preceding.rstrip()), before):
            continue
        if _starts_with_word(fold(question[match.end() :].lstrip()), after):
            continue
        yield match.group()


def _ends_with_word(text: str, names: frozenset[str]) -> bool:
    """Whether folded ``text`` ends with one of ``names`` as a whole word (or symbol)."""
    return any(
        text.endswith(name) and not text[: len(text) - len(name)][-1:].isalnum() for name in names
    )


def _starts_with_word(text: str, names: frozenset[str]) -> bool:
    """Whether folded ``text`` starts with one of ``names`` as a whole word."""
    return any(
        text.startswith(name) and not text[len(name) : len(name) + 1].isalnum() for name in names
    )


@functools.cache
def _numbered_things(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """``numbered_things.json`` for ``language`` and every language's symbols, folded:
    (the words before a number, the words after it)."""
    catalog = json.loads(NUMBERED_THINGS.read_text(encoding="utf-8"))
    entries = [catalog["*"], catalog.get(language, {})]
    before = frozenset(fold(w) for entry in entries for w in entry.get("before", ()))
    after = frozenset(fold(w) for entry in entries for w in entry.get("after", ()))
    return before, after


def _note(shown: str) -> str:
    return (
        f"The device worked this out: {shown}. Answer the question with this result, in "
        "one or two sentences; do not calculate anything yourself."
    )


def calculation(reply: ModelReply) -> Calculation | None:
    """The calculation ``reply``'s :data:`CALCULATE` call asks for, worked out, or
    ``None`` (no such call, or no expression of numbers and ``+ - * /`` alone)."""
    for call in reply.tool_calls:
        if call.name == CALCULATE and isinstance(call.arguments, dict):
            expression = call.arguments.get("expression")
            if isinstance(expression, str):
                return worked_out(expression)
    return None


def worked_out(expression: str) -> Calculation | None:
    """``expression`` parsed and worked out (``"2 * 60 + 15"`` → 135), or ``None``: too
    long, not Python's expression syntax, anything but numbers, ``+ - * /``, signs and
    parentheses, a division by zero, or a figure beyond :data:`MAX_MAGNITUDE`."""
    if len(expression) > MAX_EXPRESSION:
        return None
    try:
        tree = ast.parse(expression.strip(), mode="eval").body
        return Calculation(tree, _value(tree))
    except (SyntaxError, ValueError, ArithmeticError):
        return None


def _value(node: ast.expr) -> Decimal:
    """The exact value of ``node``; ``ValueError`` for anything but the allowed nodes,
    ``ArithmeticError`` for a division by zero."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value = Decimal(str(node.value))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _value(node.operand)
        value = -value if isinstance(node.op, ast.USub) else value
    elif isinstance(node, ast.BinOp) and type(node.op) in _APPLY:
        value = _APPLY[type(node.op)](_value(node.left), _value(node.right))
    else:
        raise ValueError(f"not worked out: {type(node).__name__}")
    if not value.is_finite() or abs(value) > MAX_MAGNITUDE:
        raise ValueError("beyond what is said")
    return value


def _shown(node: ast.expr, voice: Voice, units: dict[Decimal, str], outer: int = 0) -> str:
    """``node`` written for the household: the multiplication and division signs,
    numbers in its language with the unit each carries (``units``), parentheses only
    where the order needs them."""
    if isinstance(node, ast.Constant):
        number = Decimal(str(node.value))
        return _figure(number, units.get(number), voice)
    if isinstance(node, ast.UnaryOp):
        sign = "-" if isinstance(node.op, ast.USub) else "+"
        return f"{sign}{_shown(node.operand, voice, units, 3)}"
    assert isinstance(node, ast.BinOp)
    precedence = _PRECEDENCE[type(node.op)]
    # The right operand of - and / keeps parentheses at the same precedence: 2 - (3 - 1).
    right_outer = precedence + (1 if isinstance(node.op, ast.Sub | ast.Div) else 0)
    text = (
        f"{_shown(node.left, voice, units, precedence)} {_OPERATORS[type(node.op)]} "
        f"{_shown(node.right, voice, units, right_outer)}"
    )
    return f"({text})" if precedence < outer else text


def _figure(value: Decimal, unit: str | None, voice: Voice) -> str:
    """A figure grouped as the household's language groups: a number to at most four
    decimals, a quantity to two with its unit's short name ("204,44 °C", "128 Go")."""
    if unit is None:
        return format_decimal(value, format="#,##0.####", locale=voice.language)
    return format_unit(value, unit, length="short", format="#,##0.##", locale=voice.language)
