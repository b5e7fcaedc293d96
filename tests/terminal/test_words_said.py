"""``sovereign chat`` prints the product's words around an answer as said in the answer's
language: the receipt (its label, headline and lines) and the sources' heading under the
answer, and the progress line's words while it waits; its own English only when the
service says none, or a receipt that disagrees with the receipts it was said from."""

from __future__ import annotations

from sovereign.conversation.progress import Progress
from sovereign.conversation.results import Citation, Receipt, TurnResult
from sovereign.terminal.display import MARK
from sovereign.terminal.progress import ProgressPrinter
from sovereign.terminal.session import provenance_lines

SEARCHED = Receipt("web.search", "external", "executed")
CITED = Citation("web.search", "Solarmodule", "https://solar.example/a", "Module.", "2026-12-04")


def wire_in(language: str, receipts=(SEARCHED,), citations=(CITED,)) -> dict:
    """A turn's answer as the service sends it, said in ``language``."""
    result = TurnResult("…", citations=list(citations), receipts=list(receipts), language=language)
    return result.to_wire()


def printed(wire: dict) -> list[str]:
    return provenance_lines(wire["citations"], wire["receipts"], 100, said=wire["receipt"])


def test_a_german_answer_s_receipt_and_sources_are_printed_as_said():
    lines = printed(wire_in("de"))
    assert lines[0] == f"{MARK}Quellen:"
    assert lines[-2:] == [
        f"{MARK}Beleg: Von diesem Gerät gesendet an: die Suchmaschinen.",
        f"{MARK}  web.search: gesendet an die Suchmaschinen",
    ]


def test_each_source_s_kind_is_printed_as_said_else_in_english():
    assert f"{MARK}  [1] Solarmodule (Auszug aus einem Suchergebnis)" in printed(wire_in("de"))
    english = wire_in("de")
    for citation in english["citations"]:
        del citation["kind"]  # a service that says none
    assert f"{MARK}  [1] Solarmodule (search result)" in printed(english)


def test_an_italian_local_read_is_printed_in_italian():
    wire = wire_in("it", receipts=[Receipt("system.health", "local", "executed")], citations=[])
    assert printed(wire) == [
        f"{MARK}Resoconto: Tutto è rimasto su questo apparecchio.",
        f"{MARK}  system.health: eseguito su questo apparecchio",
    ]


def test_without_a_said_receipt_or_with_one_that_disagrees_the_terminal_says_its_own():
    wire = wire_in("de")
    own = [f"{MARK}Receipt: Left this device.", f"{MARK}  web.search: sent outside this device"]
    assert provenance_lines([], wire["receipts"], 100) == own
    stayed = {**wire["receipt"], "stayed_local": True}  # something left: it says so
    assert provenance_lines([], wire["receipts"], 100, said=stayed) == own
    two_lines = {**wire["receipt"], "lines": ["a", "b"]}  # one line per receipt
    assert provenance_lines([], wire["receipts"], 100, said=two_lines) == own
    assert provenance_lines([], wire["receipts"], 100, said="Beleg") == own


def test_a_said_receipt_is_printed_on_marked_lines_with_nothing_unsafe():
    wire = wire_in("en")
    said = {**wire["receipt"], "label": "Beleg\n\x1b[2J", "lines": ["web.search:\rsent"]}
    lines = provenance_lines([], wire["receipts"], 100, said=said)
    assert all(line.startswith(MARK) for line in lines)
    assert lines[0].startswith(f"{MARK}Beleg\\x0a\\x1b[2J: Left this device")
    assert lines[1] == f"{MARK}  web.search:\\x0dsent"


def test_the_progress_lines_are_printed_as_said_and_ctrl_c_in_the_turn_s_language():
    said: list[str] = []
    printer = ProgressPrinter(said.append, clock=lambda: 0.0)
    printer.event("progress", Progress("checking", "web.search", "fr").to_wire())
    printer.stopping()
    printer.event("progress", {"stage": "writing", "capability": None})  # a service saying none
    assert said == [
        "  … Je cherche sur le web (0 seconds)",
        "  … Arrêt en cours (0 seconds)",
        "  … Writing the answer (0 seconds)",
    ]
