"""Household prompts through the real turn loop and the embedded model: quality and latency.

Every prompt of ``bench/household_prompts.json`` is one new turn of the
production ``TurnLoop`` (``sovereign.service.app.build_turn_loop``, the
production capability registry, the real policy file and settings files), with
the verified embedded model at its production settings, against loopback fakes
(see ``bench/household_world.py``). Approval cards are granted or denied as the
prompt's scenario says, at once. Printed per class and for all prompts:

- ``tool``: tool-choice accuracy (the capabilities proposed in the turn are the
  expected set);
- ``args``: argument accuracy, among prompts whose expected tool was proposed;
- ``numbers``: turns whose answer holds only numbers found in an executed tool
  result or in the question, among turns that proposed a call (its failures are
  the invented numbers);
- ``claims``: turns that state no fact as found when every call was denied,
  refused, expired or failed, or when what the question needs cannot run;
- ``derail``: ``no_tool`` questions answered rather than derailed;
- ``leak``: answers free of the turn loop's instructions and of third-person talk
  of the household;
- ``answer``: answers that are prose and pass the prompt's text checks;
- ``named``: answers with no figure under the wrong name: a figure whose sentence names
  the concept of another result field than its own (bench/household_concepts.json, per
  language), such as the free disk said as free memory;
- ``topic``: answers whose every figure is the value of a result field the question asks
  about (``expect.figures``): nothing stated beyond the question;
- ``invent``: answers whose every figure is the value of some result field or the
  question's (no invented figure), among turns that read a household capability;
- ``stated``: answers that state a figure the question asks for (``answer.figures``);
- ``lang``: answers in the question's language (``lang``), among those long enough to tell;
- latency in seconds, median and p90: to the approval card (turns with one), to
  the first answer token and to the end of the turn, from the message (cards
  are answered instantly, so no human time is included).

The web groups (``web_search``, ``web_fetch``, ``web_injected``: approved searches and
page reads answered from the canned content of ``bench/web/``, in six languages) get a
table of their own, per class, language and half (bench/household_web.py): the fact
asked for stated, contradictions of the content, decoys stated, injected instructions
followed, words added to search queries (and those the card leaves unmarked), and the
seconds from the approved result (when the web capability returned it) to the
passages found on screen (``to_found``: the progress event that carries them, sent
before the model chooses which one to quote), to the first quoted passage on screen
(``to_quote``) and to the end of the turn.

The prompts fall into two fixed halves (:func:`half`): ``tune`` and ``holdout``, as a
prompt's ``half`` says, else by a hash of its id (about one in four held out). Tune on
``--split tune``; report both. ``--show`` prints held-out turns only with
``--reveal-holdout``.

``--override web_search=false`` sets a scenario key for every prompt;
``--offer-switched-off`` measures the alternative to withholding switched-off
capabilities (offering them, refused at the policy stage).

Records, tables and the one-line view of a turn are in bench/household_report.py.

Usage: .venv/bin/python bench/household.py [--class NAME ...] [--limit N] [--id ID ...]
       [--split tune|holdout|all] [--override KEY=VALUE ...] [--offer-switched-off]
       [--first-decision] [--greedy] [--model PATH] [--threads N] [--json FILE]
       [--compare OLD.json] [--show]
       [--reveal-holdout] [--rescore OLD.json]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the fakes live in tests/

import household_world  # noqa: E402
from household_report import (  # noqa: E402
    TurnRecord,
    report,
    report_web,
    show,
    summarise,
    summarise_web,
)
from household_score import (  # noqa: E402
    bind_figures,
    executed_results,
    result_numbers,
    score_answer,
    score_arguments,
    score_claims,
    score_derail,
    score_invented,
    score_language,
    score_leak,
    score_named,
    score_on_topic,
    score_stated,
    score_tools,
    unrun_sentences,
    unsupported_numbers,
    wrongly_named,
)
from household_web import quotes_shown, score_web, web_findings  # noqa: E402
from household_world import DecisionMade, Scenario, World  # noqa: E402

from sovereign.capabilities import pihole, system  # noqa: E402
from sovereign.capabilities.home_assistant_facts import GET_STATE_FACTS, LIST_FACTS  # noqa: E402
from sovereign.conversation import ModelUnavailable, ToolCatalog, TurnResult  # noqa: E402
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling  # noqa: E402
from sovereign.conversation.offer.same_thing import SAME_THING  # noqa: E402
from sovereign.conversation.sources import QUOTE  # noqa: E402
from sovereign.service.wiring import embedded_load_options  # noqa: E402

PROMPTS = Path(__file__).with_name("household_prompts.json")
MAX_CARDS = 4
"""Approval cards answered per turn before the benchmark gives up on it."""


async def run_turn(
    world: World, prompt: dict[str, Any], override: dict[str, Any] | None = None
) -> TurnRecord:
    """One prompt as one new turn; cards answered as its scenario (with ``override``) says."""
    scenario = Scenario.from_data({**prompt.get("scenario", {}), **(override or {})})
    record = TurnRecord(prompt["id"], prompt["class"], scenario.label(), half(prompt))
    record.lang = prompt.get("lang", "en")
    loop, policy = world.loop(scenario)
    world.backend.calls.clear()
    world.returned.clear()
    world.web_results.clear()
    clock = TurnClock(returned=world.returned)
    started, decision_only = clock.started, False
    sinks = {"on_token": clock.on_token, "on_progress": clock.on_progress}
    messages = [*prompt.get("history", []), {"role": "user", "content": prompt["prompt"]}]
    try:
        result = await loop.process_turn(messages, policy=policy, owner="bench", **sinks)
        result = await _answer_cards(world, scenario, result, record, started, sinks)
    except ModelUnavailable as error:
        record.error = str(error)
        result = TurnResult(text="")
    except DecisionMade:
        result, decision_only = TurnResult(text=""), True
    ended = time.perf_counter()
    record.answer = result.text
    record.receipts = [r.to_wire() for r in result.receipts]
    record.facts = [fact.result for fact in result.facts]
    record.seconds = {
        "card": record.cards[0]["seconds"] if record.cards else None,
        **clock.seconds(ended),
    }
    _score(world, prompt, record)
    if decision_only:  # no answer was written: only the choice itself is scored
        kept = ("tool", "arguments")
        record.scores = {k: v if k in kept else None for k, v in record.scores.items()}
    return record


@dataclass
class TurnClock:
    """When a turn's moments came, from its sinks: the first answer token, each stage
    the turn reported, the passages found on screen (the first progress event carrying
    them) and the first quoted passage on screen; and, from the world, when each web
    call's result came back (all ``perf_counter``)."""

    started: float = field(default_factory=time.perf_counter)
    first_token: float | None = None
    first_found: float | None = None
    first_quote: float | None = None
    stages: list[tuple[float, str]] = field(default_factory=list)
    streamed: str = ""
    returned: list[float] = field(default_factory=list)
    """When each web capability returned its result (:attr:`World.returned`)."""

    async def on_token(self, piece: str) -> None:
        """The turn's ``on_token`` sink."""
        now = time.perf_counter()
        self.first_token = self.first_token or now
        self.streamed += piece
        if self.first_quote is None and quotes_shown(self.streamed):
            self.first_quote = now

    async def on_progress(self, event: Any) -> None:
        """The turn's ``on_progress`` sink."""
        now = time.perf_counter()
        self.stages.append((now, event.stage))
        if self.first_found is None and getattr(event, "found", None) is not None:
            self.first_found = now

    def results(self) -> list[float]:
        """When each call's result came: when its web capability returned it, else (no
        such time recorded) the stage the turn reported after ``checking``."""
        if self.returned:
            return sorted(self.returned)
        return [
            self.stages[i + 1][0]
            for i, (_, stage) in enumerate(self.stages[:-1])
            if stage == "checking"
        ]

    def seconds(self, ended: float) -> dict[str, float | None]:
        """``first_token`` and ``end`` from the message; ``to_found``, ``to_quote`` and
        ``result_to_end`` from the last result before the passages found, the first
        quote (or the end)."""

        def result_before(moment: float) -> float | None:
            return max((t for t in self.results() if t <= moment), default=None)

        def since_result(moment: float | None) -> float | None:
            result = None if moment is None else result_before(moment)
            return None if result is None or moment is None else moment - result

        last = result_before(self.first_quote or ended)
        return {
            "first_token": None if self.first_token is None else self.first_token - self.started,
            "end": ended - self.started,
            "to_found": since_result(self.first_found),
            "to_quote": since_result(self.first_quote),
            "result_to_end": None if last is None else ended - last,
        }


async def _answer_cards(
    world: World,
    scenario: Scenario,
    result: TurnResult,
    record: TurnRecord,
    started: float,
    sinks: dict[str, Any],
) -> TurnResult:
    while result.pending_confirmation is not None and len(record.cards) < MAX_CARDS:
        card = result.pending_confirmation
        record.cards.append(
            {
                "capability": card.capability,
                "arguments": card.arguments,
                "flags": card.flags,
                "seconds": time.perf_counter() - started,
            }
        )
        loop, policy = world.loop(scenario)  # the policy is read fresh, as the service does
        result = await loop.resume_turn(
            card.token, scenario.approve, policy=policy, owner="bench", **sinks
        )
    return result


def _score(world: World, prompt: dict[str, Any], record: TurnRecord) -> None:
    calls = world.backend.calls
    for number, call in enumerate(calls):
        # A first decision's search that the product replaced by a local read of the
        # family the question names was never proposed to the household: not the turn's.
        # So was a first decision's read of another household family than the one the
        # question names: the named family's read or stand-in came instead, and the
        # read the model chose never ran.
        first = call.reply.tool_calls
        replaced = number == 0 and (
            _read_instead(first, record.receipts, calls) or _never_ran(first, record, world)
        )
        for proposal in () if replaced else call.reply.tool_calls:
            if proposal.name == QUOTE:  # the passages chosen for a web answer
                record.quotes.append(proposal.arguments)
                continue
            if proposal.name == SAME_THING:  # whether the thing chosen is the one asked about
                continue
            if not world.is_tool(proposal.name):  # a stand-in: runs nothing (stand_ins.py)
                record.stand_ins.append(proposal.name)
                continue
            record.proposals.append((world.capability(proposal.name), proposal.arguments))
        record.model_calls.append(("decision" if call.with_tools else "answer", call.seconds))
        record.replies.append(_reply(call.reply) + (" (read locally instead)" if replaced else ""))
        if call.tools:
            names = [t["function"]["name"] for t in call.tools]
            record.offered.append([world.capability(n) for n in names if world.is_tool(n)])
    add_product_reads(record)
    results = [r for call in calls for r in executed_results(call.messages)]
    record.sources = result_numbers([*results, *world.web_results, *record.facts])
    said = dict.fromkeys(s for call in calls for s in unrun_sentences(call.messages))
    record.own_numbers = result_numbers(list(said))
    score(prompt, record)


DURATIONS = frozenset(
    path
    for sheet in (system.FACTS, pihole.FACTS, GET_STATE_FACTS, LIST_FACTS)
    for path, kind in sheet.kinds.items()
    if kind == "hours"
)
"""The result fields that hold a duration in hours (``uptime_hours``)."""


def durations_said(facts: list[dict[str, Any]]) -> list[float]:
    """The numbers a duration in hours is also said with: minutes (0.9 hours are 54
    minutes), and whole days and the hours left (50 hours are 2 days and 2 hours)."""
    found: list[float] = []
    for fact in facts:
        for path in DURATIONS:
            value = fact.get(path)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                days, rest = divmod(round(value), 24)
                found += [float(round(value * 60)), float(days), float(rest)]
    return found


def _reply(reply: Any) -> str:
    """A model reply in one short line: ``calls: name {arguments}`` or ``prose: …``."""
    if reply.tool_calls:
        calls = "; ".join(
            f"{c.name} {json.dumps(c.arguments, ensure_ascii=False)}" for c in reply.tool_calls
        )
        return f"calls: {calls}"[:300]
    return (
        f"prose: {' '.join(reply.content.split())[:200]}" if reply.content else "no call, no text"
    )


def score(prompt: dict[str, Any], record: TurnRecord) -> None:
    """Fill ``record.scores`` (and ``unsupported``) from what the turn did."""
    expect = prompt["expect"]
    lang = prompt.get("lang", "en")
    proposed = list(dict.fromkeys(name for name, _ in record.proposals))
    asked = [prompt["prompt"], *(m["content"] for m in prompt.get("history", []))]
    record.figures = bind_figures(record.answer, record.facts, lang, asked)
    record.wrong_names = wrongly_named(record.answer, record.facts, lang, asked)
    read = bool(record.facts)
    sources = [
        *(record.sources or []),
        *durations_said(record.facts),
        *result_numbers(asked),
        *record.own_numbers,
    ]
    if record.sources is not None:
        record.unsupported = unsupported_numbers(record.answer, sources, lang) if proposed else []
    numbers = (
        record.scores.get("numbers")
        if record.sources is None
        else (not record.unsupported if proposed else None)
    )
    record.scores = {
        "tool": score_tools(expect, proposed),
        "arguments": score_arguments(expect, record.proposals),
        "numbers": numbers,
        "claims": score_claims(
            prompt, record.receipts, record.answer, [*result_numbers(asked), *record.own_numbers]
        ),
        "derail": score_derail(prompt, record.answer, record.sources, result_numbers(asked)),
        "leak": score_leak(record.answer),
        "answer": score_answer(prompt.get("answer", {}), record.answer),
        "named": score_named(record.wrong_names, record.figures) if read else None,
        "on_topic": score_on_topic(prompt, record.figures) if read else None,
        "invented": score_invented(record.figures) if read else None,
        "stated": score_stated(prompt, record.figures, record.facts) if read else None,
        "lang": score_language(prompt, record.answer),
        **score_web(prompt, record.answer, record.cards),
    }
    record.findings = web_findings(prompt, record.answer, record.cards)


def _read_instead(first: Any, receipts: list[dict[str, Any]], calls: Any) -> bool:
    """Whether the turn's first decision (``first``: its tool calls) was replaced by a
    local read (the loop's read-first rule): the decision only reached off the device
    (its calls all web capabilities), and the turn's first receipt is a local read that
    either no decision of the model's proposed (the product filled it) or the model
    filled in a request admitting that read alone (the next request, its tool forced)."""
    if not first or not all(c.name.startswith("web_") for c in first) or not receipts:
        return False
    local = receipts[0]
    if local["locality"] != "local":
        return False
    name = local["capability"].replace(".", "_")
    forced = len(calls) > 1 and calls[1].tool_choice != "auto"
    proposed = {c.name for call in calls for c in call.reply.tool_calls}
    return forced or name not in proposed


def _never_ran(first: Any, record: TurnRecord, world: World) -> bool:
    """Whether every call of the turn's first decision (``first``) names a capability
    of which the turn has no receipt and no card: the product put something else in
    their place (stand-ins, which run nothing, aside)."""
    tools = [c for c in first if world.is_tool(c.name) and c.name != QUOTE]
    if not tools:
        return False
    ran = {r["capability"] for r in record.receipts} | {c["capability"] for c in record.cards}
    return all(world.capability(c.name) not in ran for c in tools)


def add_product_reads(record: TurnRecord) -> None:
    """Count a read the product proposed itself as the turn's choice: the family a
    question names, read when the model chose to answer without a call, is in the
    receipts but in no reply (its arguments are a general check, none of its own)."""
    chosen = {name for name, _ in record.proposals}
    for receipt in record.receipts:
        if receipt["capability"] not in chosen:
            record.proposals.append((receipt["capability"], {}))
            chosen.add(receipt["capability"])


def rescore(path: Path, prompts: list[dict[str, Any]]) -> list[TurnRecord]:
    """The turns of an earlier ``--json``, scored again with today's scorer and prompts
    (a run without recorded sources keeps its ``numbers`` score)."""
    by_id = {p["id"]: p for p in prompts}
    records = []
    for turn in json.loads(path.read_text(encoding="utf-8"))["turns"]:
        if turn["id"] not in by_id:
            continue
        fields = {k: v for k, v in turn.items() if k in TurnRecord.__dataclass_fields__}
        record = TurnRecord(**fields)
        record.half, record.lang = half(by_id[record.id]), by_id[record.id].get("lang", "en")
        add_product_reads(record)
        score(by_id[record.id], record)
        records.append(record)
    return records


def half(prompt: dict[str, Any]) -> str:
    """The prompt's ``half`` when it gives one, else ``"holdout"`` for about one prompt in
    four (by the SHA-256 of its id) and ``"tune"`` for the rest."""
    if prompt.get("half") in ("tune", "holdout"):
        return str(prompt["half"])
    return "holdout" if hashlib.sha256(prompt["id"].encode()).digest()[0] % 4 == 0 else "tune"


def select(prompts: list[dict[str, Any]], options: argparse.Namespace) -> list[dict[str, Any]]:
    """The prompts chosen by ``--split``, ``--class``, ``--id`` and ``--limit`` (per class),
    in file order."""
    chosen = [p for p in prompts if options.split in ("all", half(p))]
    chosen = [p for p in chosen if not options.klass or p["class"] in options.klass]
    chosen = [p for p in chosen if not options.id or p["id"] in options.id]
    if options.limit:
        counts: dict[str, int] = {}
        kept = []
        for prompt in chosen:
            counts[prompt["class"]] = counts.get(prompt["class"], 0) + 1
            if counts[prompt["class"]] <= options.limit:
                kept.append(prompt)
        chosen = kept
    return chosen


def _backend(options: argparse.Namespace) -> EmbeddedBackend:
    sampling = Sampling(answer_temperature=0.0) if options.greedy else Sampling()
    load = embedded_load_options(options.model, n_threads=options.threads)
    return EmbeddedBackend(load=load, sampling=sampling)


async def main_async(options: argparse.Namespace) -> None:
    prompts = select(json.loads(options.prompts.read_text(encoding="utf-8"))["prompts"], options)
    if options.rescore:
        rescored = rescore(options.rescore, prompts)
        report(summarise(rescored), None)
        if web := summarise_web(rescored):
            report_web(web, None)
        return
    threads = options.threads or os.cpu_count()
    print(f"{len(prompts)} prompts, {threads} threads; load average before: {_load()}", flush=True)
    backend = _backend(options)
    records: list[TurnRecord] = []
    override = dict(_setting(item) for item in options.override or [])
    if options.offer_switched_off:
        offer_switched_off()
    chooses = options.model_chooses_passages or options.model is not None
    with World(backend, model_chooses_passages=chooses) as world:
        world.backend.stop_after_decision = options.first_decision
        for prompt in prompts:
            records.append(await run_turn(world, prompt, override))
            if options.show and (records[-1].half == "tune" or options.reveal_holdout):
                show(records[-1])
            if options.json:  # after every turn, so an interrupted run keeps what it did
                write_json(options, records)
    backend.close()
    print(f"load average after: {_load()}")
    old = json.loads(options.compare.read_text()) if options.compare else {}
    report(summarise(records), old.get("summary"))
    if web := summarise_web(records):
        report_web(web, old.get("web_summary"))


def write_json(options: argparse.Namespace, records: list[TurnRecord]) -> None:
    """The summary and every turn so far, to ``options.json``."""
    document = {
        "summary": summarise(records),
        "web_summary": summarise_web(records),
        "turns": [asdict(r) for r in records],
        "load_average": _load(),
        "greedy": options.greedy,
        "threads": options.threads or os.cpu_count(),
    }
    options.json.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def _setting(item: str) -> tuple[str, Any]:
    """``web_search=false`` → ``("web_search", False)`` (true/false, else the text)."""
    key, _, value = item.partition("=")
    return key, {"true": True, "false": False}.get(value.lower(), value)


def offer_switched_off() -> None:
    """Measurement variant: capabilities behind a switch that is off are offered anyway (and
    refused at the policy stage), as the turn loop did before it withheld them."""
    original = ToolCatalog.for_turn.__func__  # type: ignore[attr-defined]

    def for_turn(cls: type[ToolCatalog], registry: Any, policy: Any) -> ToolCatalog:
        keys = {c.policy_key for c in registry if c.policy_key and c.is_available()}
        return original(cls, registry, {**policy, **dict.fromkeys(keys, True)})

    ToolCatalog.for_turn = classmethod(for_turn)  # type: ignore[method-assign,assignment]


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--prompts",
        type=Path,
        default=PROMPTS,
        help="a prompts file of the same shape (default: household_prompts.json)",
    )
    parser.add_argument(
        "--web-content",
        type=Path,
        default=None,
        help="a folder of canned search results and pages of the same shape as bench/web "
        "(for a prompts file written apart)",
    )
    parser.add_argument("--class", dest="klass", action="append", help="only this class")
    parser.add_argument("--id", action="append", help="only this prompt id")
    parser.add_argument("--limit", type=int, default=0, help="at most N prompts per class")
    parser.add_argument("--split", choices=("tune", "holdout", "all"), default="all")
    parser.add_argument(
        "--override", action="append", metavar="KEY=VALUE", help="scenario setting for all"
    )
    parser.add_argument(
        "--offer-switched-off",
        action="store_true",
        help="variant: offer switched-off capabilities (refused by policy) instead of withholding",
    )
    parser.add_argument(
        "--first-decision",
        action="store_true",
        help="only each turn's first model request, no cards or answers: a quick look at "
        "tool choice (two-part questions cannot pass; answer scores are empty)",
    )
    parser.add_argument("--reveal-holdout", action="store_true", help="--show held-out turns")
    parser.add_argument(
        "--model-chooses-passages",
        action="store_true",
        help="the model chooses the passage a web answer quotes, as with a model of the "
        "household's own (default: as the verified default model, the first ranked)",
    )
    parser.add_argument("--greedy", action="store_true", help="answers at temperature 0")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default: verified)")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="inference threads (default: one per CPU, as in production)",
    )
    parser.add_argument("--json", type=Path, help="write every turn and the summary here")
    parser.add_argument("--compare", type=Path, help="an earlier --json, printed alongside")
    parser.add_argument("--show", action="store_true", help="print each turn as it ends")
    parser.add_argument("--rescore", type=Path, help="score an earlier --json again; no model")
    args = parser.parse_args()
    if args.web_content is not None:
        household_world.WEB_CONTENT = args.web_content.resolve()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
