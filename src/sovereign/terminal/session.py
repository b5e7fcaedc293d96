"""A conversation with the running service, in a terminal (``sovereign chat --url``).

Like the Console: the answer streams in; a request that needs approval is shown as
a card with the literal capability name and arguments, answered y/n (with an
optional reason on a denial); every answer ends with its sources and its receipt,
also when the turn failed after a call ran. Everything the service, a result or the
model wrote is drawn by :mod:`.display`: the answer in gutter rows, result text on
one line with every control character and newline made visible, and the sources
and receipt in rows marked with a character no result can print. So an answer can
never move the cursor, rewrite the card, hide text or pass for a receipt.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from sovereign.egress import describe_search

from .api import ServiceClient, ServiceFailure
from .display import MARK, AnswerWriter, one_line, rows
from .progress import ProgressPrinter
from .words import Words

HISTORY_ENTRIES, HISTORY_CHARS, HISTORY_BYTES = 100, 32_000, 200 * 1024
"""What the service accepts as ``history`` (the Console cuts it the same way)."""
MAX_REASON_CHARS = 500
MAX_MESSAGE_CHARS = 8000
"""The longest message the service accepts (characters); a longer one is refused here,
never cut."""
RECOVERY_WAITS_SECONDS = (0.5, 1.5, 4.0)
"""After an approval whose answer broke off, ask again this long after each try:
the service keeps what ran for the session, so nothing runs twice."""


class Terminal(Protocol):
    """Where the conversation is shown and answered."""

    async def ask(self, prompt: str) -> str | None:
        """One line typed after ``prompt``; ``None`` at end of input."""

    def say(self, text: str = "", *, end: str = "\n", dim: bool = False) -> None:
        """Show ``text`` (already made safe)."""


def literal(value: Any) -> str:
    """An argument exactly as it will be sent: JSON (strings quoted, so edge spaces
    show), with anything not printable written as ``\\uXXXX``."""
    text = json.dumps(value, ensure_ascii=False)
    return one_line("".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text))


def history_to_send(history: list[dict[str, str]]) -> list[dict[str, str]]:
    """The newest history the service accepts (see :data:`HISTORY_ENTRIES`)."""
    capped = [
        {"role": entry["role"], "content": entry["content"][:HISTORY_CHARS]}
        for entry in history[-HISTORY_ENTRIES:]
    ]
    while capped and len(json.dumps(capped, ensure_ascii=False).encode()) > HISTORY_BYTES:
        capped.pop(0)
    return capped


class Conversation:
    """One signed-in conversation: the history lives here, in this process only.

    Its own prompts and notices are said in the household's language (``words``); a
    card's prompts in the turn's, as its card is.

    Args:
        client: a :class:`ServiceClient`, signed in (or anything with its ``converse``
            and ``stop``, such as the ``--in-process`` mode's).
        terminal: where to show and ask.
        words: the chat's own sentences in the household's language (default English).
        before: the household's words for the moment before the service says anything
            of a turn (``{"language", "sending", "stopping"}``; see :class:`ProgressPrinter`).
    """

    def __init__(
        self,
        client: ServiceClient,
        terminal: Terminal,
        words: Words | None = None,
        before: dict[str, str] | None = None,
    ) -> None:
        self.client, self.terminal = client, terminal
        self.words, self.before = words or Words(), before
        self._turn_words = self.words
        self.history: list[dict[str, str]] = []
        self.turn_id: str | None = None
        self._printer: ProgressPrinter | None = None
        self._spaces_shown: str | None = None

    async def stop_current(self) -> None:
        """Ask the service to stop the answer being written (Ctrl-C); nothing when none is."""
        if self.turn_id is None:
            return
        if self._printer is not None:
            self._printer.stopping()
        await self.client.stop(self.turn_id)

    async def run(self) -> None:
        """Read messages until end of input or "quit" (or the household language's word for
        it, :meth:`Words.leaves`); each is one turn."""
        while (line := await self.terminal.ask(self.words.prompt("you"))) is not None:
            if self.words.leaves(line):
                return
            if line.strip() and self._fits(line.strip()):
                await self.turn(line.strip())

    def _fits(self, message: str) -> bool:
        """Whether ``message`` goes now: not over the length limit (said, never cut), and
        no address in it that goes on after a space, unless it is sent again as typed."""
        found = spaced_address(message)
        if found is not None and self._spaces_shown != message:
            self._spaces_shown = message
            self.terminal.say(self.words.say("spaced_address", address=one_line(found[1])))
            return False
        if len(message) <= MAX_MESSAGE_CHARS:
            return True
        over, number = len(message) - MAX_MESSAGE_CHARS, self.words.number
        self.terminal.say(self.words.say_count(
            "too_long", over, length=number(len(message)), limit=number(MAX_MESSAGE_CHARS),
            over=number(over),
        ))  # fmt: skip
        return False

    async def turn(self, message: str) -> None:
        """Send ``message``, answer each card, show the answer, its sources and receipt.

        Raises:
            ServiceFailure: 401: the session ended (the caller signs in again).
        """
        payload: dict[str, Any] = {"message": message, "history": history_to_send(self.history)}
        texts: list[str] = []
        while payload:
            result = await self._exchange(payload)
            if result is None:
                break
            texts.append(result.get("text", ""))
            pending = result.get("pending_confirmation")
            if pending is None:
                self._provenance(result)
                break
            payload = await self._decide(pending)
        self.history.append({"role": "user", "content": message})
        answer = "\n\n".join(text for text in texts if text)
        if answer:
            self.history.append({"role": "assistant", "content": answer})

    async def _exchange(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """One request: the result, or ``None`` after showing why the turn failed."""
        writer = AnswerWriter()
        streamed: list[str] = []
        printer = self._printer = ProgressPrinter(
            lambda line: self.terminal.say(line, dim=True), before=self.before
        )
        assistant = self.words.prompt("assistant")

        def on_token(piece: str) -> None:
            if not streamed:
                printer.quiet()
                self.terminal.say(assistant)
            streamed.append(piece)
            self.terminal.say(writer.feed(piece), end="")

        def on_event(kind: str, data: Any) -> None:
            if kind == "turn" and isinstance(data, dict):
                self.turn_id = str(data.get("id", "")) or None
            printer.event(kind, data)

        printer.start()
        try:
            result = await self._send(payload, on_token, on_event)
        except ServiceFailure as failure:
            if failure.status == 401:
                raise
            printer.quiet()
            self.terminal.say(writer.end() if streamed else assistant + "\n", end="")
            sentence = failure_sentence(failure, self.words, getattr(self.client, "target", None))
            self._say_rows(rows(sentence, self.words.say("error_prefix")))
            self._provenance(failure.body)
            return None
        finally:
            printer.quiet()
            self.turn_id, self._printer = None, None
        if not streamed:
            self.terminal.say(assistant)
        self._turn_words = Words(result.get("language", self.words.language))
        text = "" if streamed else str(result.get("text", ""))
        self.terminal.say(writer.feed(text) + writer.end(), end="")
        return result

    async def _send(
        self, payload: dict[str, Any], on_token: Callable[[str], None], on_event: Any
    ) -> Any:
        approved = bool(payload.get("confirmation", {}).get("approve"))
        waits = RECOVERY_WAITS_SECONDS if approved else ()
        for wait in (*waits, None):
            try:
                return await self.client.converse(payload, on_token, on_event)
            except ServiceFailure as failure:
                if failure.status != 0 or wait is None:
                    raise
                self.terminal.say(self.words.say("broke_off"), dim=True)
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _decide(self, pending: dict[str, Any]) -> dict[str, Any] | None:
        """Show the card, ask y/n; the confirmation to send, or ``None`` when unanswered.

        The card is printed in the words the service said in the turn's language
        (``pending_confirmation.words``, :func:`said_card_lines`), else in English as before;
        its prompt offers the turn's language's key for yes (``[j]`` in German), and that
        key and word, the household's and English's y/yes each approve.
        """
        say = self.terminal.say
        say()
        capability, arguments = str(pending["capability"]), pending["arguments"]
        said = said_card(pending)
        if said is not None:
            for line in said_card_lines(pending, said):
                say(line)
            words = self._turn_words
            prompts = (words.say("approve_prompt", approve=one_line(said["approve"]),
                                 yes=words.say("yes_key"), deny=one_line(said["deny"])),
                       f"{one_line(said['reason_label'])}: ")  # fmt: skip
        else:
            say("Approve this request?")
            version = one_line(pending["version"])
            self._say_rows(rows(f"{capability} (version {version})", "  capability: "))
            for name, value in arguments.items():
                self._say_rows(rows(literal(value), f"  {one_line(name)}: ", "    "))
            for line in flag_lines(arguments, pending.get("flags") or []):
                self._say_rows(rows(line, "", "    "))
            self._say_rows(rows(card_sentence(capability, arguments), "  "))
            say(f"  It expires in {int(pending.get('expires_in_seconds', 0))} seconds.")
            prompts = ("Approve? [y/N] ", "Reason (optional): ")
        answer = await self.terminal.ask(prompts[0])
        if answer is None:
            say(self._turn_words.say("not_answered"))
            return None
        confirmation: dict[str, Any] = {"token": pending["token"]}
        if self._turn_words.approves(answer) or self.words.approves(answer):
            return {"confirmation": {**confirmation, "approve": True}}
        reason = ((await self.terminal.ask(prompts[1])) or "").strip()
        confirmation["approve"] = False
        if reason:
            confirmation["reason"] = reason[:MAX_REASON_CHARS]
        return {"confirmation": confirmation}

    def _provenance(self, body: dict[str, Any]) -> None:
        citations, receipts = body.get("citations") or [], body.get("receipts") or []
        words = Words(body.get("language", self.words.language))
        for line in provenance_lines(citations, receipts, said=body.get("receipt"), words=words):
            self.terminal.say(line, dim=True)

    def _say_rows(self, lines: list[str]) -> None:
        for line in lines:
            self.terminal.say(line)


OWN_FAILURES = {
    "STREAM_ENDED": "failure_stream_ended",
    "GARBLED_STREAM": "failure_garbled",
}
"""The failures this client meets itself, by code, and the key of the sentence for each."""


def failure_sentence(failure: ServiceFailure, words: Words, target: Any = None) -> str:
    """What to show for a failed request: the service's own sentence as it said it (in the
    turn's language where the service says it so), or, for a failure this client met
    itself (unreachable, an answer cut short or garbled, an error without a sentence),
    ``words``' sentence for it; ``target`` names the service (its ``url``)."""
    said = failure.body.get("error") if isinstance(failure.body, dict) else None
    if isinstance(said, dict) and _text(said.get("message")):
        return failure.message
    if failure.code == "UNREACHABLE" and target is not None:
        return words.say("failure_unreachable", url=target.url)
    if failure.code in OWN_FAILURES:
        return words.say(OWN_FAILURES[failure.code])
    if failure.code == f"HTTP_{failure.status}":
        return words.say("failure_http", status=failure.status)
    return failure.message


_ADDRESS = re.compile(r"https?://\S+", re.IGNORECASE)
_NEXT_WORD = re.compile(r" (\S+)")
_LOOKS_LIKE_PATH = re.compile(r"/|\.[A-Za-z0-9]{1,5}$")


def spaced_address(text: str) -> tuple[str, str] | None:
    """``(typed, encoded)`` for an address in ``text`` that seems to go on after a space
    (a word holding "/" or ending like a file name), the spaces as %20; else ``None``.
    The Console's ``spacedAddress`` does the same (docs/decisions/console-household-words.md).
    """
    for match in _ADDRESS.finditer(text):
        typed, end = match.group(), match.end()
        while (word := _NEXT_WORD.match(text, end)) and _LOOKS_LIKE_PATH.search(word.group(1)):
            typed, end = typed + word.group(), word.end()
        if typed != match.group():
            return typed, typed.replace(" ", "%20")
    return None


FROM_A_RESULT = "from_a_result"
"""The kind of flag that marks words a result of the turn wrote (conversation.dictated)."""
ADDED_BY_ASSISTANT = "added_by_assistant"
"""The kind of flag that marks words the household never wrote, left in by the assistant
(conversation.approval.added_words)."""
_WORD_ORIGINS = {
    FROM_A_RESULT: "  ! Check the marked parts: a page or search result wrote them, not you.",
    ADDED_BY_ASSISTANT: "  ! Check the marked parts: the assistant added them; you did not "
    "write them.",
}


def flag_lines(arguments: dict[str, Any], flags: list[dict[str, Any]]) -> list[str]:
    """The card's flags, one line each: the flagged text, where it is, and why (it
    looks private, a result wrote it, or the assistant added it), then what to check
    (DESIGN §4; the Console's card says the same)."""
    lines = []
    for flag in flags:
        name, start, end = str(flag.get("argument", "")), flag.get("start", 0), flag.get("end", 0)
        value = arguments.get(name)
        span = value[start:end] if isinstance(value, str) else ""
        where = one_line(f"{name}[{start}:{end}]")
        lines.append(f"  ! {where} {literal(span)}: {one_line(flag.get('reason', ''))}")
    kinds = {flag.get("kind") for flag in flags}
    if kinds - set(_WORD_ORIGINS):
        lines.append("  ! Check the marked parts: they look like details of your household.")
    lines.extend(line for kind, line in _WORD_ORIGINS.items() if kind in kinds)
    return lines


_SAID_TEXT = ("title", "heading", "sentence", "capability", "expires", "approve", "deny",
              "reason_label", "flag_note", "quote")  # fmt: skip
_SAID_MAPS = ("labels", "windows", "flag_titles", "flag_reasons", "list")


def said_card(pending: dict[str, Any]) -> dict[str, Any] | None:
    """The card's words as the service said them (``pending_confirmation.words``), or
    ``None`` when it said none or not every word this client prints (the card is then
    printed in English as before). Maps that are not maps count as empty."""
    words = pending.get("words")
    if not isinstance(words, dict) or not all(_text(words.get(key)) for key in _SAID_TEXT):
        return None
    said = {key: words[key] for key in _SAID_TEXT}
    for key in _SAID_MAPS:
        value = words.get(key)
        said[key] = {k: v for k, v in value.items() if _text(v)} if isinstance(value, dict) else {}
    said["settings"] = words.get("settings") if _text(words.get("settings")) else None
    return said


def _fill(template: str, **values: str) -> str:
    """``template`` with each ``{name}`` of ``values`` put in once (a value is never read
    again for placeholders); other braces stay as written."""
    return re.sub(
        r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template
    )


def listed(items: list[str], patterns: dict[str, str]) -> str:
    """``items`` joined by the language's list patterns (CLDR's, as the card's ``list``
    says them: ``2``, ``start``, ``middle``, ``end``), ", " and " and " when one is missing."""
    english = {"2": "{0} and {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0} and {1}"}
    pattern = {**english, **patterns}
    if len(items) < 2:
        return "".join(items)
    if len(items) == 2:
        return _fill(pattern["2"], **{"0": items[0], "1": items[1]})
    joined = _fill(pattern["end"], **{"0": items[-2], "1": items[-1]})
    for item in reversed(items[1:-2]):
        joined = _fill(pattern["middle"], **{"0": item, "1": joined})
    return _fill(pattern["start"], **{"0": items[0], "1": joined})


def said_card_lines(
    pending: dict[str, Any], said: dict[str, Any], columns: int | None = None
) -> list[str]:
    """The card as rows, in the words the service said (:func:`said_card`): its title,
    what it asks, each argument by its label with its literal value (a time window also
    said as a window), the flags (each flagged text with its reasons, then what to
    check), what approving sends and where to, the search settings, the capability and
    its version, and the time left. Arguments are printed as sent (:func:`literal`)."""
    capability, arguments = str(pending["capability"]), pending.get("arguments") or {}
    lines = rows(said["title"], "", None, columns)
    lines += rows(f"{said['heading']}:", "  ", None, columns)
    for name, value in arguments.items():
        label = one_line(said["labels"].get(name, name))
        shown = literal(value)
        if name == "time_range" and isinstance(value, str) and value in said["windows"]:
            shown = f"{said['windows'][value]} ({shown})"
        lines += rows(shown, f"    {label}: ", "      ", columns)
    flags = [f for f in pending.get("flags") or [] if isinstance(f, dict)]
    spans: dict[tuple[str, Any, Any], list[str]] = {}
    for flag in flags:  # one line per flagged span, with each of its reasons once
        reason = str(said["flag_reasons"].get(str(flag.get("kind")), flag.get("reason", "")))
        key = (str(flag.get("argument", "")), flag.get("start", 0), flag.get("end", 0))
        if reason not in spans.setdefault(key, []):
            spans[key].append(reason)
    for (name, start, end), reasons in spans.items():
        value = arguments.get(name)
        fits = isinstance(value, str) and isinstance(start, int) and isinstance(end, int)
        span = value[start:end] if fits else ""
        quoted = _fill(said["quote"], value=literal(span)[1:-1])
        note = _fill(said["flag_note"], flagged=quoted, reasons=listed(reasons, said["list"]))
        lines += rows(f"{one_line(f'{name}[{start}:{end}]')} {note}", "  ! ", "    ", columns)
    kinds = {flag.get("kind") for flag in flags}
    groups = (["household"] if kinds - set(_WORD_ORIGINS) else []) + [
        kind for kind in _WORD_ORIGINS if kind in kinds
    ]
    for group in groups:
        if group in said["flag_titles"]:
            lines += rows(said["flag_titles"][group], "  ! ", "    ", columns)
    host = urlsplit(str(arguments.get("url", ""))).hostname or str(arguments.get("url", ""))
    lines += rows(_fill(said["sentence"], host=host, capability=capability), "  ", None, columns)
    if said["settings"]:
        lines += rows(said["settings"], "  ", None, columns)
    version = one_line(pending.get("version"))
    lines += rows(_fill(said["capability"], capability=capability, version=version), "  ",
                  None, columns)  # fmt: skip
    left = pending.get("expires_in_seconds")
    seconds = max(0, int(left)) if isinstance(left, (int, float)) and left == left else 0
    time = f"{seconds // 60}:{seconds % 60:02d}"
    lines += rows(_fill(said["expires"], time=time), "  ", None, columns)
    return lines


def card_sentence(capability: str, arguments: dict[str, Any]) -> str:
    """What approving does, in one sentence (the Console's card says the same)."""
    if capability == "web.search":
        sentence = "Approving sends this exact query outside this device, to the search engines"
        language, level = arguments.get("language"), arguments.get("safesearch")
        if isinstance(language, str) and isinstance(level, int):
            return f"{sentence}, {describe_search(language, level)}."
        return f"{sentence}."
    if capability == "web.fetch":
        host = urlsplit(str(arguments.get("url", ""))).hostname or "a web server"
        return f"Approving connects outside this device, to {host}, and reads this exact address."
    return "Approving runs this exact request."


def provenance_lines(
    citations: list[dict[str, Any]],
    receipts: list[dict[str, Any]],
    columns: int | None = None,
    said: Any = None,
    words: Words | None = None,
) -> list[str]:
    """The sources (numbered) and the receipt, as rows to show under an answer.

    Every row starts with :data:`~.display.MARK`, which no result text can hold; a
    source's title, address and snippet are each put on one line (newlines and
    controls escaped) and wrapped under it. The receipt is the one the product said in
    the answer's language (``said``, the wire's ``receipt``: its label, headline and
    lines) when it agrees with ``receipts`` (:func:`said_receipt`), else composed here
    in ``words``' language (English by default), each line starting with the
    capability's name as the service gave it (:func:`receipt_line`); the sources are
    headed as the citations' ``heading`` says, else in ``words``' language, and each
    source's kind is the citation's ``kind`` as said, else in ``words``' language.
    """
    words = words or Words()
    lines = []
    if citations:
        heading = next((c["heading"] for c in citations if _text(c.get("heading"))),
                       words.say("sources"))  # fmt: skip
        lines.append(f"{MARK}{one_line(heading)}:")
    for number, citation in enumerate(citations, 1):
        kind = one_line(citation["kind"]) if _text(citation.get("kind")) else words.say(
            "source_page" if citation.get("capability") == "web.fetch" else "source_result"
        )
        title = one_line(citation.get("title") or citation.get("url") or "")
        indent = f"{MARK}      "
        lines += rows(f"{title} ({kind})", f"{MARK}  [{number}] ", indent, columns)
        lines += rows(citation.get("url", ""), indent, indent, columns)
        snippet = citation.get("snippet", "")
        if snippet and citation.get("capability") != "web.fetch":
            lines += rows(snippet, indent, indent, columns)
    shown = said_receipt(said, receipts)
    if shown is None:
        lines.append(f"{MARK}{words.say('receipt_label')}: {receipt_headline(receipts, words)}")
        said_lines = [receipt_line(receipt, words) for receipt in receipts]
    else:
        lines += rows(f"{shown['label']}: {shown['headline']}", MARK, f"{MARK}  ", columns)
        said_lines = shown["lines"]
    for line in said_lines:
        lines += rows(line, f"{MARK}  ", f"{MARK}    ", columns)
    return lines


def said_receipt(said: Any, receipts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The receipt the product said (``{"label", "headline", "lines"}``, the label
    "Receipt" when it names none), or ``None`` when ``said`` is not a well-formed
    receipt that agrees with ``receipts``: one line per receipt, and the same verdict on
    whether anything left this device (as the Console checks it)."""
    if not isinstance(said, dict) or not _text(said.get("headline")):
        return None
    lines, stayed = said.get("lines"), said.get("stayed_local")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        return None
    tried = [r for r in receipts if r.get("locality") == "external"]
    left = any(
        r.get("outcome") == "executed"
        or (r.get("outcome") == "failed" and r.get("sent") is not False)
        for r in tried
    )
    if not isinstance(stayed, bool) or stayed == left or len(lines) != len(receipts):
        return None
    label = said.get("label") if _text(said.get("label")) else "Receipt"
    return {"label": label, "headline": said["headline"], "lines": lines}


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def receipt_headline(receipts: list[dict[str, Any]], words: Words | None = None) -> str:
    """The receipt's first line: left, may have left (only failures), or stayed on this
    device; in ``words``' language (English by default)."""
    words = words or Words()
    external = [r for r in receipts if r.get("locality") == "external"]
    outcomes = [r.get("outcome") for r in external if r.get("sent") is not False]
    if "executed" in outcomes:
        return words.say("receipt_left")
    if "failed" in outcomes:
        return words.say("receipt_may_have_left")
    if any(r.get("outcome") == "failed" for r in external):
        return words.say("receipt_nothing_left", why=_not_sent_why(external, words))
    return words.say("receipt_stayed")


NOT_SENT_WHY = {"web.search": "why_search_service"}
"""Why a call failed before anything left (receipt ``sent: false``), by capability: the
key of its sentence; any other says ``why_connection``."""


def _not_sent_why(receipts: list[dict[str, Any]], words: Words) -> str:
    failed = next(r for r in receipts if r.get("outcome") == "failed")
    return words.say(NOT_SENT_WHY.get(str(failed.get("capability")), "why_connection"))


RECEIPT_OUTCOMES = {
    "executed": "receipt_executed",
    "failed": "receipt_failed",
    "denied": "receipt_denied",
    "expired": "receipt_expired",
    "refused": "receipt_refused",
}
"""An external call's line, by its outcome: the key of its sentence."""


def receipt_line(receipt: dict[str, Any], words: Words | None = None) -> str:
    """One receipt in words, e.g. ``Web search: sent outside this device``, in ``words``'
    language (English by default): the line starts with the capability's household name
    as the service gave it (the receipt's ``name``), else with its identifier (a
    capability the product has no name for); an outcome it has no sentence for is
    written as its code."""
    words = words or Words()
    capability = one_line(receipt.get("capability", "?"))
    name = one_line(receipt["name"]) if _text(receipt.get("name")) else capability
    outcome, code = one_line(receipt.get("outcome", "?")), one_line(receipt.get("error_code"))
    if receipt.get("locality") != "external":
        if outcome == "executed":
            return words.say("receipt_ran_here", name=name)
        return f"{name}: {outcome}"
    if outcome == "failed" and receipt.get("sent") is False:
        why = words.say(NOT_SENT_WHY.get(capability, "why_connection"))
        return words.say("receipt_not_sent", name=name, why=why)
    if outcome in RECEIPT_OUTCOMES:
        return words.say(RECEIPT_OUTCOMES[outcome], name=name, code=code)
    return f"{name}: {outcome}"
