"""The facts panel: what a household capability returned, shown as it came back (facts.js)."""

from __future__ import annotations

import re

from tests.console.conftest import MODULE_ORIGIN

HEALTH = {
    "cpu_temperature_celsius": None,
    "cpu_temperature_note": "This device exposes no CPU temperature sensor.",
    "load_average_1m": 0.31,
    "load_average_5m": 0.25,
    "load_average_15m": 0.2,
    "cpu_count": 4,
    "memory_total_gb": 8.0,
    "memory_used_gb": 3.2,
    "memory_used_percent": 40.1,
    "disk_total_gb": 62.3,
    "disk_used_gb": 10.4,
    "disk_used_percent": 16.7,
    "data_disk_total_gb": 62.3,
    "data_disk_used_gb": 10.4,
    "data_disk_free_gb": 51.9,
    "data_disk_used_percent": 16.7,
    "uptime_hours": 49.2,
}
PIHOLE = {
    "period": "last_7_days",
    "queries_total": 29160,
    "queries_blocked": 6379,
    "percent_blocked": 21.9,
    "domains_on_blocklist": 104756,
    "blocking_status": "enabled",
    "retrieved_at": "2026-12-01T10:00:00+00:00",
}
KITCHEN = {
    "entity": {
        "entity_id": "sensor.kitchen_temperature",
        "state": "21.4",
        "friendly_name": "Kitchen temperature",
        "unit_of_measurement": "°C",
        "last_changed": "2024-01-05T07:12:03+00:00",
        "last_updated": "2024-01-05T07:12:03+00:00",
        "attributes": {"device_class": "temperature"},
    },
    "retrieved_at": "2026-12-01T10:00:00+00:00",
}


def rows(js, capability, result):
    return js("facts.js", "factRows", {"capability": capability, "result": result})


def test_device_health_shows_every_figure_and_says_when_there_is_no_sensor(js):
    shown = rows(js, "system.health", HEALTH)
    assert shown["title"] == "Device health"
    assert shown["rows"] == [
        ["CPU temperature", "unknown (no sensor)"],
        ["Load (1 / 5 / 15 min)", "0.31 / 0.25 / 0.2 on 4 CPUs"],
        ["Memory", "3.2 of 8 GB used (40.1 %)"],
        ["Disk", "10.4 of 62.3 GB used (16.7 %)"],
        ["Data disk", "10.4 of 62.3 GB used (16.7 %)"],
        ["Running for", "49.2 hours"],
    ]


def test_pihole_totals_are_shown_for_their_period(js):
    shown = rows(js, "pihole.summary", PIHOLE)
    assert shown == {
        "title": "Pi-hole, last 7 days",
        "rows": [
            ["Queries", "29,160"],
            ["Blocked", "6,379 (21.9 %)"],
            ["Domains on the blocklist", "104,756"],
            ["Blocking", "enabled"],
        ],
    }


def test_a_home_assistant_state_is_shown_with_its_unit(js):
    shown = rows(js, "home_assistant.get_state", KITCHEN)
    assert shown["rows"][0] == ["Kitchen temperature (sensor.kitchen_temperature)", "21.4 °C"]


def test_a_home_assistant_list_names_what_was_not_reported(js):
    result = {
        "entities": [KITCHEN["entity"] | {"attributes": None}],
        "entity_count": 1,
        "missing_entity_ids": ["light.attic"],
        "retrieved_at": "2026-12-01T10:00:00+00:00",
    }
    shown = rows(js, "home_assistant.list_entities", result)
    assert shown["rows"][-1] == ["Not reported", "light.attic"]


def test_an_unknown_capability_shows_its_plain_fields_and_junk_shows_nothing(js):
    shown = rows(js, "weather.now", {"wind_kmh": 12.5, "sky": "clear", "nested": {"a": 1}})
    assert shown == {"title": "weather.now", "rows": [["wind kmh", "12.5"], ["sky", "clear"]]}
    assert js("facts.js", "factRows", {"capability": "system.health"}) is None
    assert js("facts.js", "factRows", None) is None


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
        [MODULE_ORIGIN, [{"capability": "home_assistant.get_state", "result": hostile}]],
    )
    assert html["images"] == 0
    assert "<img src=x onerror=alert(1)>" in html["text"]
    assert "&lt;img" in html["html"]


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
    # On a device with no temperature sensor the turn says it could not read one.
    unread = r"( Nothing I checked reads a temperature, so I can't tell you\.)?"
    expect(answer.locator(".prose")).to_have_text(re.compile(rf"^Your device is fine\.{unread}$"))
    facts = answer.locator(".facts")
    expect(facts.locator(".fact-title")).to_have_text("Device health")
    expect(facts.locator("dt")).to_contain_text(["CPU temperature", "Memory", "Running for"])
    expect(answer.locator(".receipt-headline")).to_have_text("Stayed on this device.")
