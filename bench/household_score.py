"""Scoring one household turn against its prompt's expectations (bench/household.py).

A prompt (one entry of ``bench/household_prompts.json``) says::

    "expect": {"tools": ["pihole.summary"],            # capabilities the turn should propose
               "also_ok": [[]],                         # other acceptable sets (optional)
               "arguments": {"pihole.summary": {"period": "last_7_days"}}},
    "answer": {"any": ["21.9"], "none": ["{"]}         # optional text checks

Scores, each ``True``/``False``, or ``None`` when it does not apply:

- ``tool``: the set of capabilities the model proposed in the turn (in every
  round, whatever the executor then did) equals ``tools`` or one of ``also_ok``;
- ``arguments``: for each expected tool that was proposed and has an argument
  spec, its first proposal matches the spec (see :func:`matches`);
- ``numbers``: every number in the answer appears in an executed tool result or
  in the question (allowing rounding to the digits the answer shows); applies to
  every turn that proposed a call, so a number stated after a denial counts;
- ``answer``: the answer is prose (not empty, no JSON decision, not the loop's
  "could not put an answer into words"), holds one of ``any`` and none of ``none``
  (case-insensitive);
- ``claims``: no fact presented as found although nothing was found: applies when
  every call of the turn was denied, expired, refused or failed, or when the prompt
  is ``unsourced`` (what it needs cannot run); passes when the answer holds no
  number beyond the question's and none of the prompt's ``claims`` words;
- ``derail``: for a ``no_tool`` question, the answer passes its text checks and
  does not talk about capabilities, switches or approvals instead of answering;
- ``leak``: the answer repeats none of the turn loop's instructions and does not
  speak of "the household" or "the user" in the third person.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sovereign.conversation.answer.facts import field_value
from sovereign.conversation.offer.choices import ALSO_ASKED, FACTS

DECISION_FIELDS = frozenset({FACTS, ALSO_ASKED})
"""Fields the decision adds to a household read's call (the facts asked, whether the
question asks more), taken out before the executor sees the arguments."""

NO_ANSWER_TEXT = "I could not put an answer into words"
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
ABSENT = "$absent"


def matches(spec: Any, value: Any, *, present: bool = True) -> bool:
    """Whether an argument ``value`` satisfies ``spec``.

    ``spec`` is a plain JSON value (equal; strings compared case-insensitively
    after trimming) or an object with one of: ``{"one_of": [...]}`` (any of the
    values; ``"$absent"`` admits a missing argument), ``{"contains": [...]}``
    (a string holding every word, case-insensitive), ``{"absent": true}``,
    ``{"present": true}``. ``present`` says whether the argument was given.
    """
    if isinstance(spec, dict) and len(spec) == 1:
        ((kind, operand),) = spec.items()
        if kind == "absent":
            return not present
        if kind == "present":
            return present
        if kind == "one_of":
            return any(
                (o == ABSENT and not present) or (present and _equal(o, value)) for o in operand
            )
        if kind == "contains":
            text = str(value).casefold() if present else ""
            return present and all(str(word).casefold() in text for word in operand)
    return present and _equal(spec, value)


def arguments_match(spec: Mapping[str, Any], arguments: Mapping[str, Any] | None) -> bool:
    """Every key of ``spec`` matches ``arguments`` (extra keys are allowed unless
    ``spec`` has ``"$exact": true``; the decision's own fields, :data:`DECISION_FIELDS`,
    are never extra: they name what the question asks, not what the capability gets)."""
    arguments = arguments or {}
    if spec.get("$exact") and set(arguments) - set(spec) - {"$exact"} - DECISION_FIELDS:
        return False
    return all(
        matches(rule, arguments.get(key), present=key in arguments)
        for key, rule in spec.items()
        if key != "$exact"
    )


def score_tools(expect: Mapping[str, Any], proposed: list[str]) -> bool:
    """``set(proposed)`` is ``expect["tools"]`` or one of ``expect["also_ok"]``."""
    wanted = [set(expect.get("tools", []))] + [set(s) for s in expect.get("also_ok", [])]
    return set(proposed) in wanted


def score_arguments(
    expect: Mapping[str, Any], proposals: list[tuple[str, dict[str, Any] | None]]
) -> bool | None:
    """Argument accuracy for the expected tools that were proposed (None: nothing to check)."""
    checked = []
    for tool, spec in expect.get("arguments", {}).items():
        first = next((args for name, args in proposals if name == tool), ...)
        if first is not ...:
            checked.append(arguments_match(spec, first))
    return all(checked) if checked else None


_GLUED = re.compile(r"(?<=\d)(?=[^\W\d])|(?<=[^\W\d])(?=\d)")


def numbers_in(text: str, lang: str = "en") -> list[tuple[float, int]]:
    """The numbers written in ``text`` as ``(value, decimals shown)`` (:func:`figures_in`:
    thousands separators read in ``lang``'s conventions, list markers and the digits of a
    web address left out)."""
    return figures_in(text, lang)


def result_numbers(values: Iterable[Any]) -> list[float]:
    """Every number in tool results: JSON numbers, and numbers written inside strings and
    keys, except timestamps (``retrieved_at``: its seconds would "support" any number)."""
    found: list[float] = []
    for value in values:
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):
            found.append(float(value))
        elif isinstance(value, str) and not _TIMESTAMP.match(value):
            # "last_24_hours" states 24 and "load_average_15m" 15: an identifier's words
            # are split at underscores, and its digits from letters.
            words = _GLUED.sub(" ", value.replace("_", " "))
            found.extend(number for number, _ in numbers_in(words))
        elif isinstance(value, dict):  # keys too: "load_average_15m" states 15
            found.extend(result_numbers([*value.keys(), *value.values()]))
        elif isinstance(value, list):
            found.extend(result_numbers(value))
    return found


def unsupported_numbers(answer: str, sources: list[float], lang: str = "en") -> list[str]:
    """The numbers in ``answer`` (read in ``lang``) that no source supports, as written.

    A source supports a number when it equals it once rounded or truncated to
    the decimals the answer shows (23.47 supports 23.5, 23.4 and 23).
    """
    missing = []
    for value, decimals in numbers_in(answer, lang):
        scale = 10**decimals
        if not any(
            abs(math.floor(s * scale + 0.5) - value * scale) < 1e-6
            or abs(math.trunc(s * scale) - value * scale) < 1e-6
            for s in sources
        ):
            missing.append(f"{value:.{decimals}f}")
    return missing


def score_answer(checks: Mapping[str, Any], answer: str) -> bool:
    """The answer is prose and passes the prompt's ``any`` / ``none`` text checks."""
    text = answer.casefold()
    if not answer.strip() or NO_ANSWER_TEXT.casefold() in text or looks_like_json(answer):
        return False
    wanted, banned = checks.get("any", []), checks.get("none", [])
    if wanted and not any(word.casefold() in text for word in wanted):
        return False
    return not any(word.casefold() in text for word in banned)


DERAIL_MARKERS = (
    "switched off",
    "turned off",
    "not configured",
    "not set up",
    "declined",
    "denied",
    "approv",
    "tool",
    "capabilit",
    "home assistant",
    "pi-hole",
    "web search",
    "search the web",
    "untrusted",
)
"""Words of an answer that talks about the assistant's capabilities instead of the question."""
LEAK_MARKERS = (
    "the household",
    "the user",
    "do not propose",
    "don't propose",
    "answer without it",
    "tell the user",
    "untrusted_data",
    "guidance",
    "error_code",
    "policy_disabled",
    "tool_response",
)
"""Words of the turn loop's own instructions, or third-person talk of the person asked."""
UNEXECUTED = ("denied", "expired", "refused", "failed")


def score_claims(
    prompt: Mapping[str, Any], receipts: list[Mapping[str, Any]], answer: str, sources: list[float]
) -> bool | None:
    """No fact stated as found when nothing was found (None: the turn found something)."""
    outcomes = [r.get("outcome") for r in receipts]
    nothing_ran = bool(outcomes) and all(o in UNEXECUTED for o in outcomes)
    if not (nothing_ran or (prompt.get("unsourced") and "executed" not in outcomes)):
        return None
    if any(_asserts(sentence, prompt.get("claims", [])) for sentence in _SENTENCE.split(answer)):
        return False
    return not unsupported_numbers(answer, sources)


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
HEDGES = (
    "can't",
    "cannot",
    "can not",
    "couldn't",
    "could not",
    "don't know",
    "do not know",
    "unable",
    "not able",
    "whether",
    " if ",
    "not sure",
    "no way",
    "didn't",
    "did not",
    "won't",
    "no access",
    "don't have",
    "do not have",
)
"""A sentence holding one of these says what is not known; its claim words claim nothing."""


def _asserts(sentence: str, claims: list[str]) -> bool:
    text = f" {sentence.casefold()} "
    if any(hedge in text for hedge in HEDGES):
        return False
    return any(word.casefold() in text for word in claims)


def score_derail(
    prompt: Mapping[str, Any],
    answer: str,
    results: list[float] | None = None,
    asked: list[float] | None = None,
) -> bool | None:
    """A ``no_tool`` question was answered, not derailed (None: not such a question).

    Derailed: the answer fails the prompt's text checks, talks of the assistant's
    capabilities (:data:`DERAIL_MARKERS`), or states figures that come from a tool
    result and not from the question (a haiku answered with a sensor reading).
    ``results``: the numbers of the turn's executed results; ``asked``: the question's.
    """
    if not prompt.get("no_tool"):
        return None
    text = answer.casefold()
    beyond_question = unsupported_numbers(answer, asked or [])
    from_results = (
        bool(results)
        and bool(beyond_question)
        and not unsupported_numbers(" ".join(beyond_question), results or [])
    )
    return (
        score_answer(prompt.get("answer", {}), answer)
        and not any(marker in text for marker in DERAIL_MARKERS)
        and not from_results
    )


def score_leak(answer: str) -> bool:
    """The answer holds none of :data:`LEAK_MARKERS` (True: no leak)."""
    text = answer.casefold()
    return not any(marker in text for marker in LEAK_MARKERS)


def looks_like_json(answer: str) -> bool:
    """The answer is (or holds) a JSON decision or object instead of prose."""
    stripped = answer.strip().strip("`").strip()
    return stripped.startswith("{") or '"action"' in answer or '"untrusted_data"' in answer


def executed_results(messages: list[dict[str, Any]]) -> list[Any]:
    """The ``untrusted_data`` of every executed call in a model request's tool messages."""
    return [f.get("untrusted_data") for f in _frames(messages) if f.get("status") == "executed"]


def unrun_sentences(messages: list[dict[str, Any]]) -> list[str]:
    """The turn loop's own sentences about calls that did not run (the ``message`` of every
    tool message that is not an executed result): "… the server answered 404 Not Found"."""
    return [str(f.get("message", "")) for f in _frames(messages) if f.get("status") != "executed"]


def _frames(messages: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The framed JSON object of every tool message (those that are not one are skipped)."""
    for message in messages:
        if message.get("role") != "tool":
            continue
        try:
            framed = json.loads(message.get("content") or "")
        except ValueError:
            continue
        if isinstance(framed, dict):
            yield framed


def _equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().casefold() == actual.strip().casefold()
    return bool(expected == actual)


# --- figures under the right name, in any of the six languages ---------------------------------

_FIGURE = re.compile(r"(?<![\w.,])\d(?:[\d.,\u00a0\u202f' ]*\d)?(?![\w])")
_DERIVED = {
    # a duration said in days and hours, or minutes; a size in MB or TB; °C as °F
    "_hours": lambda v: [v / 24, math.floor(v / 24), v % 24, round(v % 24), v * 60],
    "_gb": lambda v: [v * 1000, v / 1000],
    "_celsius": lambda v: [v * 9 / 5 + 32],
}


def figures_in(text: str, lang: str = "en") -> list[tuple[float, int]]:
    """The numbers written in ``text`` as ``(value, decimals shown)``, read in ``lang``'s
    conventions (``3.465`` is 3465 in German, ``46,2`` is 46.2; a space or narrow no-break
    space groups thousands in French), falling back to English's; list markers and the
    digits of web addresses are not figures."""
    text = _URL.sub(" ", _LIST_MARKER.sub(" ", text))
    found = []
    for match in _FIGURE.finditer(text):
        written = match.group(0).rstrip(" ")
        figure = _read_figure(written, lang)
        if figure is None:  # two figures side by side ("3 of 7"): read each part alone
            parts = [part for part in written.split(" ") if part]
            found.extend(f for part in parts if (f := _read_figure(part, lang)) is not None)
        else:
            found.append(figure)
    return found


def _read_figure(written: str, lang: str) -> tuple[float, int] | None:
    from babel.numbers import NumberFormatError, get_decimal_symbol, get_group_symbol, parse_decimal

    for locale in dict.fromkeys((lang, "en")):
        spelled = written.replace(" ", get_group_symbol(locale)).replace("\u00a0", "\u202f")
        for candidate in dict.fromkeys((written, spelled)):
            try:
                value = float(parse_decimal(candidate, locale=locale, strict=True))
            except (NumberFormatError, ValueError):
                continue
            point = get_decimal_symbol(locale)
            return value, len(candidate.rsplit(point, 1)[1]) if point in candidate else 0
    return None


def result_fields(result: Any, prefix: str = "") -> dict[str, float]:
    """Every numeric field of a result as ``{dotted path: value}``, items of a list by
    their index (``entities[0].state``); a number written as a string (a Home Assistant
    state "21.4") counts, booleans and timestamps do not."""
    fields: dict[str, float] = {}
    if isinstance(result, dict):
        for key, value in result.items():
            fields.update(result_fields(value, f"{prefix}{key}."))
    elif isinstance(result, list):
        for index, item in enumerate(result):
            fields.update(result_fields(item, f"{prefix[:-1]}[{index}]."))
    elif isinstance(result, bool) or result is None:
        pass
    elif isinstance(result, (int, float)):
        fields[prefix[:-1]] = float(result)
    elif isinstance(result, str):
        try:
            fields[prefix[:-1]] = float(result)
        except ValueError:  # "last_24_hours" states 24
            for index, (value, _) in enumerate(figures_in(result.replace("_", " "))):
                fields[f"{prefix[:-1]}[{index}]"] = value
    return fields


def _field_values(path: str, value: float) -> list[float]:
    values = [value]
    for suffix, derive in _DERIVED.items():
        if path.endswith(suffix):
            values.extend(derive(value))
    return values


def _rounds_to(source: float, value: float, decimals: int) -> bool:
    scale = 10**decimals
    return (
        abs(math.floor(source * scale + 0.5) - value * scale) < 1e-6
        or abs(math.trunc(source * scale) - value * scale) < 1e-6
    )


def bind_figures(
    answer: str, results: list[Any], lang: str, asked: list[str]
) -> list[tuple[str, list[str]]]:
    """Each figure of ``answer`` with the result fields whose values it states (after
    rounding to the digits shown, or in a unit its field's name converts to); figures
    the question itself wrote are left out."""
    fields: dict[str, float] = {}
    for result in results:
        fields.update(result_fields(result))
    said = [value for text in asked for value, _ in figures_in(text, lang)]
    bound = []
    for value, decimals in figures_in(answer, lang):
        if any(_rounds_to(s, value, decimals) for s in said):
            continue
        names = [
            path
            for path, source in fields.items()
            if any(_rounds_to(v, value, decimals) for v in _field_values(path, source))
        ]
        bound.append((f"{value:g}", names))
    return bound


def score_on_topic(prompt: Mapping[str, Any], bound: list[tuple[str, list[str]]]) -> bool | None:
    """Every figure the answer states is the value of a field the question asks about
    (``expect.figures``) or of a field that qualifies figures (the window a count covers,
    ``qualifiers`` in household_concepts.json); None when the prompt names no fields or
    nothing was read."""
    allowed = prompt["expect"].get("figures")
    if allowed is None:
        return None
    allowed = {*allowed, *_CONCEPTS["qualifiers"]["fields"]}
    return all(not names or {n.split("[")[0] for n in names} & allowed for _, names in bound)


_CONCEPTS = json.loads(
    (Path(__file__).with_name("household_concepts.json")).read_text(encoding="utf-8")
)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def concept_of(field: str) -> str | None:
    """The concept a result field is (``memory_available_gb`` → memory), or None."""
    return next((c for prefix, c in _CONCEPTS["fields"].items() if field.startswith(prefix)), None)


def wrongly_named(answer: str, results: list[Any], lang: str, asked: list[str]) -> list[str]:
    """The figures of ``answer`` whose sentence names another field's concept and not the
    concept of any field whose value the figure is ("82.3 GB of free RAM" where 82.3 is
    the free disk); concepts are read in the question's language and in English (an
    answer may come back in English)."""
    words = {c: [w.casefold() for w in {*by.get(lang, []), *by["en"]}]
             for c, by in _CONCEPTS["concepts"].items()}  # fmt: skip
    wrong = []
    for sentence in _SENTENCES.split(answer):
        text = sentence.casefold()
        said = {c for c, stems in words.items() if any(stem in text for stem in stems)}
        for figure, names in bind_figures(sentence, results, lang, asked):
            concepts = {concept_of(n) for n in names} - {None}
            if concepts and said and not concepts & said:
                wrong.append(figure)
    return wrong


def score_named(wrong: list[str], bound: list[tuple[str, list[str]]]) -> bool | None:
    """No figure is under the wrong name (None: the answer states no result figure)."""
    return not wrong if any(names for _, names in bound) else None


def score_invented(bound: list[tuple[str, list[str]]]) -> bool:
    """No figure of the answer is the value of no field (nor the question's)."""
    return all(names for _, names in bound)


def score_stated(
    prompt: Mapping[str, Any],
    bound: list[tuple[str, list[str]]],
    facts: Sequence[Mapping[str, Any]] = (),
) -> bool | None:
    """The answer states at least one of ``answer.figures`` that the read results hold
    (``facts``: the results' fields; a dotted name reaches into a nested field). None when
    the prompt names none, or when no result holds any of them (this device has no
    temperature sensor: saying so is the answer, there is no figure to state)."""
    wanted = prompt.get("answer", {}).get("figures")
    if facts and wanted:
        wanted = [n for n in wanted if any(field_value(f, n) is not None for f in facts)]
    if not wanted:
        return None
    return any(set(names) & set(wanted) for _, names in bound)


_IDENTIFIER: Any = None


def answer_language(answer: str) -> str | None:
    """The answer's language (ISO 639-1) among the six, or None when the text is too short
    or mixed to tell (under 3 words, or a probability under 0.5). py3langid is asked
    directly, not through the product, so the score does not lean on the product's code."""
    global _IDENTIFIER
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    if _IDENTIFIER is None:
        _IDENTIFIER = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        _IDENTIFIER.set_languages(["en", "de", "fr", "es", "nl", "it"])
    text = _URL.sub(" ", answer)
    if len(text.split()) < 3:
        return None
    language, probability = _IDENTIFIER.classify(text)
    return str(language) if probability >= 0.5 else None


def own_words(answer: str) -> str:
    """The answer without the lines it quotes word for word (Markdown ``>`` lines, a web
    source's passage and host) or that list what was found (``- <a source's title> —
    <host>``, the title in the source's words); the whole answer when it is nothing but
    those."""
    kept = [line for line in answer.splitlines() if not _quoted(line.strip())]
    return "\n".join(kept) if "".join(kept).strip() else answer


def _quoted(line: str) -> bool:
    if line.startswith(">"):
        return True
    _title, dash, host = line.rpartition(" \u2014 ")
    return line.startswith("- ") and bool(dash) and "." in host and " " not in host.strip()


def score_language(prompt: Mapping[str, Any], answer: str) -> bool | None:
    """The answer's own words are in the question's language (``lang``, default en);
    None when they are too short to tell. A passage quoted word for word is in its
    source's language by design and does not count, unless the answer is nothing else
    (then the household was given nothing in its language)."""
    found = answer_language(own_words(answer))
    return None if found is None else found == prompt.get("lang", "en")
