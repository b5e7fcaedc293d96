"""``sovereign chat`` prints the product's words around an answer as said in the answer's
language: the receipt (its label, headline and lines) and the sources' heading under the
answer, and the progress line's words while it waits; its own English only when the
service says none, or a receipt that disagrees with the receipts it was said from."""

from __future__ import annotations

from sovereign.conversation.progress import Progress
from sovereign.conversation.results import Citation, Receipt, TurnResult
from sovereign.terminal.display import MARK
from sovereign.terminal.progress import ProgressPrinter
from sovereign.terminal.session import Conversation, provenance_lines
from sovereign.terminal.words import Words

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
        f"{MARK}  Websuche: gesendet an die Suchmaschinen",
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
        f"{MARK}  Stato di questo apparecchio: eseguito su questo apparecchio",
    ]


def test_without_a_said_receipt_or_with_one_that_disagrees_the_terminal_says_its_own():
    wire = wire_in("de")
    own = [f"{MARK}Receipt: Left this device.", f"{MARK}  Websuche: sent outside this device"]
    assert provenance_lines([], wire["receipts"], 100) == own
    stayed = {**wire["receipt"], "stayed_local": True}  # something left: it says so
    assert provenance_lines([], wire["receipts"], 100, said=stayed) == own
    two_lines = {**wire["receipt"], "lines": ["a", "b"]}  # one line per receipt
    assert provenance_lines([], wire["receipts"], 100, said=two_lines) == own
    assert provenance_lines([], wire["receipts"], 100, said="Beleg") == own


def test_the_terminal_s_own_receipt_and_sources_are_in_the_language_it_is_given():
    mailed = Receipt("mail.send", "external", "refused", "POLICY_DISABLED")
    down = Receipt("web.search", "external", "failed", "EXECUTION_FAILED", sent=False)
    health = Receipt("system.health", "local", "executed")
    wire = wire_in("de", receipts=[SEARCHED, health, mailed])
    for citation in wire["citations"]:
        del citation["kind"], citation["heading"]  # a service that says none
    assert provenance_lines(wire["citations"], wire["receipts"], 100, words=Words("de")) == [
        f"{MARK}Quellen:",
        f"{MARK}  [1] Solarmodule (Suchergebnis)",
        f"{MARK}      https://solar.example/a",
        f"{MARK}      Module.",
        f"{MARK}Beleg: Hat dieses Gerät verlassen.",
        f"{MARK}  Websuche: außerhalb dieses Geräts gesendet",
        f"{MARK}  Zustand dieses Geräts: lief auf diesem Gerät",
        f"{MARK}  mail.send: abgewiesen (POLICY_DISABLED); nichts wurde gesendet",
    ]
    failed = wire_in("es", receipts=[down], citations=[])["receipts"]
    assert provenance_lines([], failed, 200, words=Words("es")) == [
        f"{MARK}Comprobante: Nada salió de este aparato: el servicio de búsqueda del aparato "
        "no está en marcha.",
        f"{MARK}  Búsqueda web: falló antes de que nada saliera de este aparato (el servicio de "
        f"búsqueda del aparato no está en marcha)",
    ]


async def test_a_turn_without_a_said_receipt_gets_the_terminal_s_own_in_its_language():
    class Shown:
        def __init__(self):
            self.lines: list[str] = []

        def say(self, text="", *, end="\n", dim=False):
            self.lines.append(text)

    terminal = Shown()
    wire = wire_in("it", receipts=[Receipt("system.health", "local", "executed")], citations=[])
    del wire["receipt"]  # a service that says none
    Conversation(None, terminal)._provenance(wire)
    assert terminal.lines == [
        f"{MARK}Resoconto: Tutto è rimasto su questo apparecchio.",
        f"{MARK}  Stato di questo apparecchio: eseguito su questo apparecchio",
    ]


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
    assert said == [  # the time waited in the turn's language too, by CLDR's units
        "  … Je cherche sur le web (0\u00a0seconde)",
        "  … Arrêt en cours (0\u00a0seconde)",
        "  … Writing the answer (0\u00a0seconde)",
    ]


def card_in(language: str, flags=(), words: bool = True) -> dict:
    """A search card as the service sends it, said in ``language``."""
    from sovereign.conversation.results import PendingConfirmation, pending_wire
    from sovereign.conversation.voice.catalogs import Voice

    arguments = {"query": "mail maya@example.com", "time_range": "day", "language": "auto",
                 "safesearch": 1}  # fmt: skip
    pending = PendingConfirmation("t", "web.search", 1, arguments, 95, flags=list(flags))
    wire = pending_wire(pending, Voice(language))
    if not words:
        wire.pop("words")
    return wire


EMAIL = {"argument": "query", "start": 5, "end": 21, "kind": "email_address",
         "reason": "looks like an e-mail address"}
PRIVATE = {**EMAIL, "kind": "private_word",
           "reason": "is on your household's list of private words"}
ADDED = {"argument": "query", "start": 0, "end": 4, "kind": "added_by_assistant",
         "reason": "is not in what you wrote: the assistant added it"}  # fmt: skip


def test_a_german_card_is_printed_in_the_words_the_service_said():
    from sovereign.terminal.session import said_card, said_card_lines

    wire = card_in("de", [EMAIL, PRIVATE, ADDED])
    lines = said_card_lines(wire, said_card(wire), 200)
    assert lines == [
        "Diese Anfrage freigeben?",
        "  Im Web suchen nach:",
        '    Suchwörter: "mail maya@example.com"',
        '    Zeitraum: aus dem letzten Tag ("day")',
        '    language: "auto"',
        "    safesearch: 1",
        "  ! query[5:21] „maya@example.com“ sieht aus wie eine E-Mail-Adresse und steht auf der "
        "Liste privater Wörter Ihres Haushalts.",
        "  ! query[0:4] „mail“ steht nicht in dem, was Sie geschrieben haben: Der Assistent hat "
        "es hinzugefügt.",
        "  ! Bevor Sie freigeben: Das könnte den Suchmaschinen oder der Website etwas über Ihren "
        "Haushalt verraten.",
        "  ! Bevor Sie freigeben: Der Assistent hat die markierten Wörter hinzugefügt; Sie haben "
        "sie nicht geschrieben.",
        "  Wenn Sie freigeben, geht genau diese Suchanfrage aus diesem Gerät hinaus, an die "
        "Suchmaschinen.",
        "  Gesucht wird in beliebiger Sprache (der Suchdienst wählt), SafeSearch mittel (Ihre "
        "Sucheinstellungen).",
        "  Fähigkeit web.search, Version 1",
        "  Läuft ab in 1:35",
    ]


def test_a_card_without_words_or_with_unusable_ones_is_printed_in_english_as_before():
    from sovereign.terminal.session import said_card

    assert said_card(card_in("de", words=False)) is None
    broken = card_in("de")
    broken["words"]["title"] = 5
    assert said_card(broken) is None
    assert said_card({**broken, "words": "Diese Anfrage freigeben?"}) is None


def test_words_that_hold_controls_cannot_move_the_cursor():
    from sovereign.terminal.session import said_card, said_card_lines

    wire = card_in("fr", [EMAIL])
    wire["words"]["title"] = "Approuver\x1b[2J ?"
    wire["words"]["flag_reasons"]["email_address"] = "ressemble\r\x07 à une adresse"
    printed = "\n".join(said_card_lines(wire, said_card(wire), 200))
    assert "\x1b" not in printed and "\r" not in printed and "\x07" not in printed
    assert "Approuver\\x1b[2J ?" in printed
    assert "« maya@example.com » ressemble" in printed


async def test_the_terminal_asks_in_the_card_s_words():
    from sovereign.terminal.session import Conversation

    class Typed:
        def __init__(self, lines):
            self.lines, self.shown, self.prompts = list(lines), [], []

        async def ask(self, prompt):
            self.prompts.append(prompt)
            return self.lines.pop(0) if self.lines else None

        def say(self, text="", *, end="\n", dim=False):
            self.shown.append(text)

    terminal = Typed(["n", "zu privat"])
    answer = await Conversation(None, terminal)._decide(card_in("it"))
    assert terminal.prompts == ["Approva [y] / Rifiuta [N]: ", "Motivo del rifiuto (facoltativo): "]
    assert answer == {"confirmation": {"token": "t", "approve": False, "reason": "zu privat"}}
    assert terminal.shown[1] == "Approvi questa richiesta?"


def test_the_terminal_s_own_receipt_starts_each_line_with_the_name_the_service_gave():
    mailed = Receipt("mail.send", "external", "refused", "POLICY_DISABLED")
    health = Receipt("system.health", "local", "executed")
    wire = wire_in("fr", receipts=[SEARCHED, health, mailed], citations=[])
    assert [r.get("name") for r in wire["receipts"]] == [
        "Recherche web", "État de cet appareil", None  # a capability without a name
    ]
    assert provenance_lines([], wire["receipts"], 100) == [
        f"{MARK}Receipt: Left this device.",
        f"{MARK}  Recherche web: sent outside this device",
        f"{MARK}  État de cet appareil: ran on this device",
        f"{MARK}  mail.send: refused (POLICY_DISABLED); nothing was sent",
    ]


def test_a_receipt_the_service_named_nothing_keeps_its_identifier():
    wire = wire_in("de", receipts=[Receipt("web.search", "external", "failed", "X", sent=False)])
    for receipt in wire["receipts"]:
        del receipt["name"]  # a service that gives no names
    unnamed = [{**wire["receipts"][0], "name": "  "}]  # nor a blank one
    for receipts in (wire["receipts"], unnamed):
        assert provenance_lines([], receipts, 100)[1:] == [
            f"{MARK}  web.search: failed before anything left this device (the device's search "
            "service is not running)"
        ]
