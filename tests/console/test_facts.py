"""The facts panel: what a household capability returned, shown as it came back (facts.js)."""

from __future__ import annotations

import re

from tests.console.conftest import MODULE_ORIGIN

KITCHEN = {
    "entity": {
        "entity_id": "sensor.kitchen_temperature",
        "state": "21.4",
        "friendly_name": "Kitchen temperature",
        "unit_of_measurement": "°C",
        "last_changed": "2024-01-05T07:12:03+00:00",
    },
    "retrieved_at": "2026-12-01T10:00:00+00:00",
}


def lines(js, fact):
    return js("facts.js", "factLines", fact)


def test_the_panel_shows_the_products_own_sentences_as_they_came(js):
    said = ["Kitchen temperature: 21,4 °C.", "Haustür: verriegelt."]
    fact = {"capability": "home_assistant.get_state", "result": KITCHEN, "lines": said}
    assert lines(js, fact) == said


def test_a_capability_without_sentences_shows_its_plain_fields_and_junk_shows_nothing(js):
    fact = {"capability": "weather.now", "result": {"wind_kmh": 12.5, "sky": "clear", "n": {}}}
    assert lines(js, fact) == ["wind kmh: 12.5", "sky: clear"]
    assert lines(js, {"capability": "system.health"}) is None
    assert lines(js, None) is None
    assert lines(js, {"capability": "x", "result": {}, "lines": [1, None]}) is None


def test_the_panel_shows_values_as_text_never_as_markup(module_page):
    hostile = {
        "entity": {
            "entity_id": "sensor.x",
            "state": "<img src=x onerror=alert(1)>",
            "friendly_name": "<b>bold</b>",
            "unit_of_measurement": None,
            "last_changed": None,
        }
    }
    html = module_page.evaluate(
        """async ([origin, facts]) => {
            const { factPanel } = await import(origin + "/facts.js");
            const panel = factPanel(facts);
            return { html: panel.innerHTML, text: panel.textContent,
                     images: panel.querySelectorAll("img, b").length };
        }""",
        [
            MODULE_ORIGIN,
            [
                {"capability": "home_assistant.get_state", "result": hostile},
                {"capability": "x.y", "result": {}, "lines": ["<img src=x onerror=alert(1)>"]},
            ],
        ],
    )
    assert html["images"] == 0
    assert "<img src=x onerror=alert(1)>" in html["text"]
    assert "&lt;img" in html["html"]


def test_the_panel_s_heading_is_the_one_the_product_said_else_english(js):
    italian = {"capability": "system.health", "result": {}, "lines": ["La CPU è a 48 °C."],
               "heading": "Cosa ha riportato l'apparecchio"}  # fmt: skip
    assert js("facts.js", "factHeading", [italian]) == "Cosa ha riportato l'apparecchio"
    older = {key: value for key, value in italian.items() if key != "heading"}
    assert js("facts.js", "factHeading", [older]) == "What the device reported"
    for junk in ([{**older, "heading": "  "}], [{**older, "heading": 7}], [None], None):
        assert js("facts.js", "factHeading", junk) == "What the device reported"
    assert js("facts.js", "factHeading", [older, italian]) == "Cosa ha riportato l'apparecchio"


def test_the_panel_is_headed_and_named_in_the_language_of_its_lines(module_page):
    def panel(facts):
        return module_page.evaluate(
            """async ([origin, facts]) => {
                const { factPanel } = await import(origin + "/facts.js");
                const panel = factPanel(facts);
                return [panel.querySelector("h4").textContent, panel.getAttribute("aria-label")];
            }""",
            [MODULE_ORIGIN, facts],
        )

    german = {"capability": "system.health", "result": {}, "lines": ["Die CPU hat 48 °C."],
              "heading": "Was das Gerät gemeldet hat"}  # fmt: skip
    assert panel([german]) == ["Was das Gerät gemeldet hat"] * 2
    older = {"capability": "system.health", "result": {}, "lines": ["The CPU is at 48 °C."]}
    assert panel([older]) == ["What the device reported"] * 2
    hostile = {**german, "heading": "<img src=x onerror=alert(1)>"}
    assert panel([hostile])[0] == "<img src=x onerror=alert(1)>"  # as text, never markup


def test_no_facts_no_panel(module_page):
    empty = module_page.evaluate(
        """async (origin) => {
            const { factPanel } = await import(origin + "/facts.js");
            return [factPanel([]), factPanel(undefined), factPanel([{capability: "x"}])];
        }""",
        MODULE_ORIGIN,
    )
    assert empty == [None, None, None]


def test_a_health_answer_shows_the_device_s_figures_under_it(page, service):
    from playwright.sync_api import expect

    from .console_steps import first_run, send

    first_run(page, service)
    send(page, "how hot is my device?")
    answer = page.locator(".message.assistant").last
    # The product states the device's facts; the demo model adds nothing after them.
    expect(answer.locator(".prose")).to_contain_text("of memory is free")
    facts = answer.locator(".facts")
    expect(facts.locator("h4")).to_have_text("What the device reported")
    expect(facts.locator("li")).to_contain_text(
        [re.compile("temperature sensor|The CPU is at"), re.compile("The CPU is"),
         re.compile("of memory is free"), re.compile("system disk")]
    )  # fmt: skip
    expect(answer.locator(".receipt-headline")).to_have_text("Stayed on this device.")
