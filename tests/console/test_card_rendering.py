"""The card's arguments in a real Chromium: two different values never look the same.

Each pair below is rendered on a real confirmation card (card.js, console.css); the
pair's rendered text and its pixels must differ. The split functions of argument.js
are checked against Python's own readings (punycode, the URL's text).
"""

from __future__ import annotations

import pytest

from .conftest import MODULE_ORIGIN

LOOK_ALIKES = [
    ("a b", "a  b"),  # a double space
    ("abc", "abc "),  # a trailing space
    ("abc", " abc"),  # a leading space
    ("ab", "a\u200bb"),  # an invisible character (refused by the service; marked here)
    ("a b", "a\u00a0b"),  # a no-break space
    ("reportexe.png", "report\u202egnp.exe"),  # a right-to-left override
    ("m", "rn"),
    ("l1", "1l"),
    ("O0", "0O"),
    ("a b", "a\tb"),
    ("line", "line\n"),
    ("a\u2423b", "a b"),  # the space mark itself is a character a value may hold
    ("https://example.com/a", "https://example.com.evil.net/a"),
    ("https://paypal.com/", "https://xn--pypal-4ve.com/"),  # a Cyrillic letter in the host
    ("https://example.com/a", "https://example.com/a?"),
    ("https://example.com/%41", "https://example.com/A"),
]

RENDER = """async ([origin, args]) => {
  const { ConfirmationCard } = await import(origin + "/card.js");
  const card = new ConfirmationCard(
    { token: "t", capability: "example.echo", version: 1, arguments: args,
      expires_in_seconds: 120 },
    { onDecide() {}, onExpire() {} });
  card.stop();
  const holder = document.getElementById("cards");
  holder.replaceChildren(card.element);
  const list = card.element.querySelector(".card-arguments");
  return list.innerText;
}"""


@pytest.fixture(scope="module")
def card_page(module_page):
    module_page.evaluate(
        """(origin) => {
      document.body.innerHTML = '<main><div id="cards" style="width: 360px"></div></main>';
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = origin + "/console.css";
      document.head.append(link);
      return new Promise((done) => { link.onload = done; });
    }""",
        MODULE_ORIGIN,
    )
    return module_page


def rendered(page, value):
    text = page.evaluate(RENDER, [MODULE_ORIGIN, {"value": value}])
    pixels = page.locator("#cards .card-arguments").screenshot()
    return text, pixels


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKES, ids=repr)
def test_look_alike_arguments_render_distinctly(card_page, first, second):
    text_one, pixels_one = rendered(card_page, first)
    text_two, pixels_two = rendered(card_page, second)
    assert text_one != text_two
    assert pixels_one != pixels_two


def test_the_same_value_renders_the_same(card_page):
    assert rendered(card_page, "same words") == rendered(card_page, "same words")


def test_a_long_url_wraps_inside_the_card_and_nothing_is_cut(card_page):
    url = "https://example.org/" + "segment/" * 60 + "?q=" + "x" * 300
    card_page.evaluate(RENDER, [MODULE_ORIGIN, {"url": url}])
    value = card_page.locator("#cards .argument-value")
    assert value.text_content() == url
    box = value.evaluate("(e) => [e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight]")
    assert box[0] <= box[1] and box[2] <= box[3]  # wrapped, not clipped or scrolled away


def test_the_host_is_emphasised_and_an_idn_host_is_shown_in_both_forms(card_page):
    card_page.evaluate(RENDER, [MODULE_ORIGIN, {"url": "https://xn--bcher-kva.example/b?c"}])
    card = card_page.locator("#cards")
    assert card.locator(".url-host").text_content() == "xn--bcher-kva.example"
    weight = card.locator(".url-host").evaluate("(e) => getComputedStyle(e).fontWeight")
    assert int(weight) >= 700
    assert card.locator(".url-idn").text_content() == (
        "Host in Unicode: bücher.example (as sent: xn--bcher-kva.example)"
    )
    family = card.locator(".argument-value").evaluate("(e) => getComputedStyle(e).fontFamily")
    assert "mono" in family.lower()


@pytest.mark.parametrize(
    "label",
    [
        "bcher-kva",
        "pypal-4ve",
        "wgv71a119e",
        "mgbh0fb",
        "80akhbyknj4f",
        "n3h",
        "ls8h",
        "d1acj3b",
        "caf-dma",
    ],
)
def test_punycode_decoding_agrees_with_python(js, label):
    assert js("argument.js", "decodePunycode", label) == label.encode().decode("punycode")


def test_spaces_and_invisible_characters_become_marked_runs(js):
    assert js("argument.js", "visibleRuns", " a  b\u200bc ") == [
        {"kind": "space", "text": " "},
        {"kind": "text", "text": "a"},
        {"kind": "space", "text": "  "},
        {"kind": "text", "text": "b"},
        {"kind": "invisible", "text": "\u200b"},
        {"kind": "text", "text": "c"},
        {"kind": "space", "text": " "},
    ]


def test_a_url_is_split_around_its_host_without_re_encoding(js):
    parts = js("argument.js", "urlParts", "http://[::1]:8080/%7e?x#y")
    assert parts == {
        "before": "http://",
        "host": "[::1]",
        "after": ":8080/%7e?x#y",
        "unicodeHost": None,
    }
    assert js("argument.js", "urlParts", "not a url") is None
