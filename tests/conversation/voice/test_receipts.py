"""The receipt under an answer, said by the product in the answer's language (voice.receipts).

Every distinction the receipt makes about what left the device is kept in every
language: sent, may have left (a failure after trying), nothing left (a failure before
sending, with why), refused (with why), denied or expired; capability names and hosts
are shown as they are.
"""

from __future__ import annotations

import pytest

from sovereign.conversation.results import Receipt
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice
from sovereign.conversation.voice.receipts import (
    capability_name,
    host_of,
    receipts_wire,
    say_receipt,
)

HEALTH = Receipt("system.health", "local", "executed")
SEARCH = Receipt("web.search", "external", "executed")
FETCH = Receipt("web.fetch", "external", "executed", host="news.example:8443")
SEARCH_DOWN = Receipt("web.search", "external", "failed", "EXECUTION_FAILED", sent=False)
FETCH_BROKEN = Receipt("web.fetch", "external", "failed", "FETCH_FAILED", host="a.example")
SWITCHED_OFF = Receipt("web.search", "external", "refused", "POLICY_DISABLED")


def said(receipts, language):
    """The receipt's wire in ``language`` without its ``label`` (tested on its own)."""
    wire = say_receipt(receipts, Voice(language)).to_wire()
    del wire["label"]
    return wire


@pytest.mark.parametrize(
    ("language", "label"),
    [("en", "Receipt"), ("de", "Beleg"), ("fr", "Récapitulatif"), ("es", "Comprobante"),
     ("nl", "Overzicht"), ("it", "Resoconto")],
)  # fmt: skip
def test_the_receipt_is_named_in_the_answer_s_language(language, label):
    for receipts in ([], [HEALTH], [SEARCH, FETCH_BROKEN]):
        assert say_receipt(receipts, Voice(language)).to_wire()["label"] == label


@pytest.mark.parametrize(
    ("language", "headline", "line"),
    [
        ("en", "Stayed on this device.", "This device's health: ran on this device"),
        ("de", "Alles ist auf diesem Gerät geblieben.",
         "Zustand dieses Geräts: lief auf diesem Gerät"),
        ("it", "Tutto è rimasto su questo apparecchio.",
         "Stato di questo apparecchio: eseguito su questo apparecchio"),
    ],
)  # fmt: skip
def test_a_local_read_stayed_on_this_device(language, headline, line):
    assert said([HEALTH], language) == {"headline": headline, "lines": [line], "stayed_local": True}


def test_an_answer_with_no_call_stayed_on_this_device_in_its_language():
    assert said([], "fr") == {
        "headline": "Tout est resté sur cet appareil.",
        "lines": [],
        "stayed_local": True,
    }


@pytest.mark.parametrize(
    ("language", "headline", "lines"),
    [
        ("en", "Left this device: the search engines, news.example:8443.",
         ["Web search: sent to the search engines",
          "Reading a web page: sent to news.example:8443"]),
        ("de", "Von diesem Gerät gesendet an: die Suchmaschinen, news.example:8443.",
         ["Websuche: gesendet an die Suchmaschinen",
          "Webseite lesen: gesendet an news.example:8443"]),
        ("it", "Uscito da questo apparecchio verso: i motori di ricerca, news.example:8443.",
         ["Ricerca sul web: inviato verso i motori di ricerca",
          "Lettura di una pagina web: inviato verso news.example:8443"]),
    ],
)  # fmt: skip
def test_what_was_sent_names_its_destinations_once_each(language, headline, lines):
    assert said([SEARCH, FETCH, SEARCH], language) == {
        "headline": headline,
        "lines": [lines[0], lines[1], lines[0]],
        "stayed_local": False,
    }


@pytest.mark.parametrize(
    ("language", "headline", "line"),
    [
        ("en", "Nothing left this device: the device's search service is not running.",
         "Web search: failed before anything left this device "
         "(the device's search service is not running)"),
        ("de", "Nichts hat dieses Gerät verlassen: der Suchdienst des Geräts läuft nicht.",
         "Websuche: fehlgeschlagen, bevor etwas dieses Gerät verlassen hat "
         "(der Suchdienst des Geräts läuft nicht)"),
        ("it", "Niente è uscito da questo apparecchio: il servizio di ricerca dell'apparecchio "
         "non è in funzione.",
         "Ricerca sul web: non riuscito prima che uscisse qualcosa da questo apparecchio "
         "(il servizio di ricerca dell'apparecchio non è in funzione)"),
    ],
)  # fmt: skip
def test_a_failure_before_sending_says_nothing_left_and_why(language, headline, line):
    assert said([SEARCH_DOWN], language) == {
        "headline": headline,
        "lines": [line],
        "stayed_local": True,
    }


@pytest.mark.parametrize(
    ("language", "headline", "line"),
    [
        ("en", "May have left this device: a.example.",
         "Reading a web page: tried to reach a.example and failed"),
        ("de", "Möglicherweise von diesem Gerät gesendet an: a.example.",
         "Webseite lesen: hat versucht, a.example zu erreichen, und ist fehlgeschlagen"),
        ("it", "Potrebbe essere uscito da questo apparecchio verso: a.example.",
         "Lettura di una pagina web: ha provato a raggiungere a.example senza riuscirci"),
    ],
)  # fmt: skip
def test_a_failure_after_trying_may_have_left_even_beside_one_that_sent_nothing(
    language, headline, line
):
    wire = said([SEARCH_DOWN, FETCH_BROKEN], language)
    assert wire["headline"] == headline and wire["lines"][1] == line
    assert wire["stayed_local"] is False


def test_one_call_that_ran_makes_the_headline_certain_beside_a_failure():
    assert said([SEARCH, FETCH_BROKEN], "de")["headline"] == (
        "Von diesem Gerät gesendet an: die Suchmaschinen, a.example."
    )


@pytest.mark.parametrize(
    ("language", "lines"),
    [
        ("en", ["Web search: refused (switched off in the web search setting); nothing was sent",
                "Web search: refused; nothing was sent",
                "Web search: denied by you; nothing was sent",
                "Reading a web page: approval expired; nothing was sent"]),
        ("de", ["Websuche: abgewiesen (in der Einstellung der Websuche ausgeschaltet); "
                "nichts wurde gesendet",
                "Websuche: abgewiesen; nichts wurde gesendet",
                "Websuche: von Ihnen abgelehnt; nichts wurde gesendet",
                "Webseite lesen: Freigabe abgelaufen; nichts wurde gesendet"]),
        ("it", ["Ricerca sul web: respinto (disattivato nell'impostazione della ricerca web); "
                "non è stato inviato nulla",
                "Ricerca sul web: respinto; non è stato inviato nulla",
                "Ricerca sul web: rifiutato da te; non è stato inviato nulla",
                "Lettura di una pagina web: approvazione scaduta; non è stato inviato nulla"]),
    ],
)  # fmt: skip
def test_calls_that_never_ran_sent_nothing_and_a_refusal_says_why(language, lines):
    unrun = [
        SWITCHED_OFF,
        Receipt("web.search", "external", "refused", "SOMETHING_NEW"),
        Receipt("web.search", "external", "denied"),
        Receipt("web.fetch", "external", "expired"),
    ]
    headline = said([], language)["headline"]
    assert said(unrun, language) == {"headline": headline, "lines": lines, "stayed_local": True}


def test_a_fetch_whose_host_is_unknown_went_to_a_web_server_and_another_service_outside():
    other = Receipt("mail.send", "external", "executed")
    assert said([Receipt("web.fetch", "external", "executed"), other], "it")["lines"] == [
        "Lettura di una pagina web: inviato verso un server web",
        "mail.send: inviato verso un servizio fuori da questo apparecchio",
    ]


@pytest.mark.parametrize("outcome", ["failed", "denied", "expired", "refused"])
def test_a_local_call_that_did_not_run_says_its_outcome_in_every_language(outcome):
    receipt = Receipt("system.health", "local", outcome, "X" if outcome == "failed" else None)
    assert said([receipt], "en")["lines"] == [f"This device's health: {outcome}"]
    for language in LANGUAGES[1:]:
        (line,) = said([receipt], language)["lines"]
        assert not line.startswith("system.health") and outcome not in line
        assert line.startswith(capability_name("system.health", Voice(language)))


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://news.example/a?b", "news.example"),
        ("https://News.Example:8443/a", "news.example:8443"),
        ("http://a.example:80/", "a.example"),
        ("https://[2001:db8::1]:444/", "[2001:db8::1]:444"),
        ("ftp://a.example/", None),
        ("https://a.example:99999/", None),
        ("not a url", None),
        (None, None),
    ],
)
def test_the_host_of_an_address_is_the_one_a_browser_names(url, host):
    assert host_of(url) == host


@pytest.mark.parametrize(
    ("language", "lines"),
    [
        ("de", ["Werbeblocker (Pi-hole): lief auf diesem Gerät",
                "Geräteliste (Home Assistant): lief auf diesem Gerät",
                "Gerätezustand (Home Assistant): lief auf diesem Gerät"]),
        ("fr", ["Bloqueur de publicités (Pi-hole) : exécuté sur cet appareil",
                "Liste des appareils (Home Assistant) : exécuté sur cet appareil",
                "État d'un appareil (Home Assistant) : exécuté sur cet appareil"]),
    ],
)  # fmt: skip
def test_every_line_starts_with_the_capability_s_household_name(language, lines):
    receipts = [
        Receipt(name, "local", "executed", None)
        for name in ("pihole.summary", "home_assistant.list_entities", "home_assistant.get_state")
    ]
    assert said(receipts, language)["lines"] == lines


def test_each_receipt_on_the_wire_carries_its_household_name_in_the_answer_s_language():
    receipts = [SEARCH, Receipt("mail.send", "external", "failed", "X", sent=False)]
    assert receipts_wire(receipts, Voice("de")) == [
        {"capability": "web.search", "locality": "external", "outcome": "executed",
         "name": "Websuche"},
        {"capability": "mail.send", "locality": "external", "outcome": "failed",
         "error_code": "X", "sent": False},  # no name: none is given
    ]  # fmt: skip
    for language in LANGUAGES:
        (wire,) = receipts_wire([HEALTH], Voice(language))
        assert wire["name"] == capability_name("system.health", Voice(language))
        assert (wire["name"] == "This device's health") == (language == "en")
