"""The JSON Schema a backend may hand to a grammar compiler (DESIGN §4, model backends).

Constrained decoding turns a JSON Schema into a llama.cpp grammar: in process
(llama-cpp-python's converter, the embedded backend) or inside a model server
(``response_format`` of llama-server, llama-cpp-python's server, Ollama, vLLM).
Those converters fail on parts of JSON Schema, and a grammar llama.cpp rejects
kills the process that loads it (a segmentation fault at the first token, seen
with llama-cpp-python's server twice). Every backend that sends a schema to be
compiled sends :func:`grammar_schema` of it instead.

The schema only gets looser, never wrong: the executor still validates the
proposal against the capability's full schema at its validate stage
(INVALID_ARGUMENTS), so a dropped keyword costs at most one refused proposal.

What is kept is an allowlist, walked structurally (property *names* are data,
never mistaken for keywords):

- structure: ``type``, ``properties``, ``required``, ``additionalProperties``,
  ``items``, ``anyOf``, ``oneOf``, ``allOf``;
- values: ``const`` and ``enum`` whose strings need no escape in a grammar
  literal (llama-cpp-python's converter does not escape ``\\`` and emits a
  literal llama.cpp cannot parse for a ``"``);
- lengths: ``minLength``, ``minItems`` and ``maxItems`` up to
  :data:`REPETITION_LIMIT`, ``maxLength`` up to :data:`LENGTH_LIMIT` (each unit of
  a bound becomes a grammar rule; llama.cpp refuses the nesting of ``maxLength``
  past ~2000, and web.fetch allows 8192). Larger upper bounds are left to the
  executor; a small one is what keeps a choice short (one passage quoted), so it
  is kept.

One keyword is added: a list whose items are a choice (``enum``) holds at most as
many items as there are choices (``maxItems``, where it has none or a larger one). A
list of choices names each once, and a grammar cannot say "once": unbounded, a small
model wrote the same fact until its token limit ("blocked", "blocked", …), a reply
cut off with no call. The model's instructions show the schema as the capability
wrote it.

Everything else is dropped: ``pattern`` (its regex escapes are copied into
grammar literals), larger ``maxLength``/``maxItems``, ``format``, ``$ref`` (a remote one
makes llama-cpp-python fetch it), ``minimum``/``maximum``, ``description`` and
``title`` (the model reads those in its instructions, not in the grammar).
"""

from __future__ import annotations

import json
from typing import Any

REPETITION_LIMIT = 16
"""The largest ``minLength``/``minItems``/``maxItems`` kept, in characters or items."""
LENGTH_LIMIT = 200
"""The largest ``maxLength`` kept, in characters (a sentence, not a page)."""

_STRUCTURE = frozenset({"type", "required", "additionalProperties", "items", "properties"})
_COMBINATIONS = frozenset({"anyOf", "oneOf", "allOf"})
ANY_VALUE: dict[str, Any] = {
    "type": ["string", "number", "integer", "boolean", "object", "array", "null"]
}
"""What a schema that loses every keyword becomes: llama-cpp-python reads ``{}`` as
"an object", not "anything"."""


def grammar_schema(schema: Any) -> Any:
    """``schema`` reduced to what llama.cpp's schema-to-grammar converters compile safely.

    Args:
        schema: a JSON Schema (a dict; booleans and other values are returned as is).

    Returns:
        A new schema holding only the keywords listed in the module docstring, at
        every depth; the input is not changed. A subschema that had keywords but
        keeps none becomes :data:`ANY_VALUE`; an object with a property name that
        needs an escape becomes ``{"type": "object"}``.
    """
    if not isinstance(schema, dict):
        return schema
    if not all(literal_safe(name) for name in schema.get("properties") or {}):
        return {"type": "object"}  # a property name no grammar literal can spell: leave it open
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _STRUCTURE:
            kept[key] = _structure(key, value)
        elif key in _COMBINATIONS and isinstance(value, list):
            kept[key] = [grammar_schema(branch) for branch in value]
        elif _VALUE_CHECKS.get(key, _never)(value):
            kept[key] = value
    if schema and not kept:
        return dict(ANY_VALUE)
    return _choices_bounded(kept)


def _choices_bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``maxItems`` at most the number of its items' choices, when it is
    a list whose items are an ``enum``."""
    items = schema.get("items")
    if not isinstance(items, dict) or not isinstance(items.get("enum"), list):
        return schema
    bound = min(len(items["enum"]), schema.get("maxItems", len(items["enum"])))
    return {**schema, "maxItems": bound} if bound <= REPETITION_LIMIT else schema


def literal_safe(value: Any) -> bool:
    """True when ``value``'s JSON text can be a grammar literal in every converter.

    Numbers, booleans and null always can; a string only when JSON writes it
    without a backslash escape (no ``"``, ``\\`` or control characters).
    Objects and arrays are compared whole by the executor instead.
    """
    if isinstance(value, str):
        return "\\" not in json.dumps(value, ensure_ascii=False)
    return value is None or isinstance(value, (bool, int, float))


def _structure(key: str, value: Any) -> Any:
    if key == "properties" and isinstance(value, dict):
        return {name: grammar_schema(sub) for name, sub in value.items()}
    if key in ("items", "additionalProperties"):
        return grammar_schema(value)
    return value


def _small_count(value: Any) -> bool:
    return _count_up_to(value, REPETITION_LIMIT)


def _short_text(value: Any) -> bool:
    return _count_up_to(value, LENGTH_LIMIT)


def _count_up_to(value: Any, limit: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit


def _safe_enum(value: Any) -> bool:
    return isinstance(value, list) and all(map(literal_safe, value))


def _never(_value: Any) -> bool:
    return False


_VALUE_CHECKS = {
    "minLength": _small_count,
    "minItems": _small_count,
    "maxItems": _small_count,
    "maxLength": _short_text,
    "const": literal_safe,
    "enum": _safe_enum,
}
"""Keywords kept as they are when their value passes the check."""
