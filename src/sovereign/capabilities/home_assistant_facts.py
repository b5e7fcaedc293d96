"""How Home Assistant's readings are said, and what is said when they are not (DESIGN §4).

An entity's state is said by its domain: a lock is locked or unlocked, a light on or
off, a door sensor open or closed (by its ``device_class``), a reading is its number
with the unit Home Assistant gave, and a state that is not a value (``unavailable``,
``unknown``) is said as such, never with a unit and never as a number. The words for
each state live in this family's catalogs (``locale/<language>/LC_MESSAGES/
home_assistant.po``) under the context of its domain.
"""

from __future__ import annotations

from pathlib import Path

from sovereign.executor import (
    ABSENT,
    NUMBER,
    FactSheet,
    Kind,
    Phrases,
    Statement,
    Topic,
    read_subjects,
    read_word_groups,
)

CATALOG = Path(__file__).resolve().parent / "locale"
DOMAIN = "home_assistant"
NOT_A_VALUE = ("unavailable", "unknown")
"""States Home Assistant gives when it has no reading."""
SWITCHES = ("light", "switch", "fan", "input_boolean", "automation", "siren", "remote")
"""Domains whose state is on or off."""
SAID_BY_DOMAIN = ("lock", "binary_sensor", "cover", "climate", "valve", *SWITCHES)


def entity_statements(at: str = "", each: str | None = None) -> tuple[Statement, ...]:
    """The sentences for one entity whose fields are under ``at`` (``"entity."``), or for
    each entity of the list ``each`` names."""

    def path(name: str) -> str:
        return f"{at}{name}"

    def state(text: str, states: str, **conditions: object) -> Statement:
        return Statement(
            text=text,
            values={"name": path("name"), "state": path("state")},
            when={path(k): v for k, v in conditions.items()},
            unless={path("state"): (*NOT_A_VALUE, None)},
            states=states,
            each=each,
        )

    sensor_words = "binary_sensor:{" + path("device_class") + "}"  # door: open or closed
    return (
        Statement(
            text="{name} is unavailable right now.",
            values={"name": path("name")},
            when={path("state"): "unavailable"},
            each=each,
        ),
        Statement(
            text="{name} has no known state right now.",
            values={"name": path("name")},
            when={path("state"): ("unknown", ABSENT)},
            each=each,
        ),
        Statement(
            text="{name} is {value}.",
            values={"name": path("name"), "value": path("state")},
            when={path("state"): NUMBER},
            unless={path("domain"): SAID_BY_DOMAIN},
            kinds={"value": "reading"},
            each=each,
        ),
        state("{name} is {state}.", "lock", domain="lock"),
        state("{name} is {state}.", "switch", domain=SWITCHES),
        state("{name} is {state}.", "cover", domain=("cover", "valve")),
        state("{name} is {state}.", sensor_words, domain="binary_sensor"),
        state("{name} is set to {state}.", "climate", domain="climate"),
        Statement(
            text="{name}: {state}.",
            values={"name": path("name"), "state": path("state")},
            unless={path("domain"): SAID_BY_DOMAIN, path("state"): (*NOT_A_VALUE, None, NUMBER)},
            each=each,
        ),
    )


_ON_OFF = {"on": "on", "off": "off"}
_OPEN_CLOSED = {"on": "open", "off": "closed"}
_OPENINGS = [f"binary_sensor:{c}" for c in ("door", "garage_door", "window", "opening")]
_PRESENCE = [f"binary_sensor:{c}" for c in ("motion", "occupancy", "presence")]
WORDS: dict[str, dict[str, str]] = {
    "lock": {
        "locked": "locked",
        "unlocked": "unlocked",
        "locking": "locking",
        "unlocking": "unlocking",
        "jammed": "jammed",
        "open": "open",
        "opening": "opening",
    },
    "switch": _ON_OFF,
    "cover": {
        "open": "open",
        "closed": "closed",
        "opening": "opening",
        "closing": "closing",
        "stopped": "stopped part-way",
    },
    "climate": {
        "off": "off",
        "heat": "heat",
        "cool": "cool",
        "heat_cool": "heat or cool",
        "auto": "automatic",
        "dry": "dry",
        "fan_only": "fan only",
    },
    "binary_sensor:None": _ON_OFF,
    **dict.fromkeys(_OPENINGS, _OPEN_CLOSED),
    **{key: {"on": "detecting someone", "off": "clear"} for key in _PRESENCE},
    "binary_sensor:smoke": {"on": "detecting smoke", "off": "clear"},
    "binary_sensor:moisture": {"on": "wet", "off": "dry"},
    "binary_sensor:lock": {"on": "unlocked", "off": "locked"},
}
"""The words for Home Assistant's states, by domain (and a binary sensor's device class)."""


def _kinds(at: str) -> dict[str, Kind]:
    return {f"{at}name": "name", f"{at}state": "state"}


_CLIMATE = "entity.attributes."
GET_STATE_FACTS = FactSheet(
    kinds={
        **_kinds("entity."),
        _CLIMATE + "current_temperature": "number",
        _CLIMATE + "temperature": "number",
    },
    units={"entity.state": "entity.unit_of_measurement"},
    topics=(
        Topic(
            name="state",
            means="the entity's current state or reading",
            statements=(
                *entity_statements("entity."),
                Statement(
                    text="It is {current} degrees there.",
                    values={"current": _CLIMATE + "current_temperature"},
                    when={"entity.domain": "climate"},
                ),
                Statement(
                    text="Its target is {target} degrees.",
                    values={"target": _CLIMATE + "temperature"},
                    when={"entity.domain": "climate"},
                ),
            ),
        ),
    ),
    summary=("state",),
    words=WORDS,
    catalog=CATALOG,
    domain=DOMAIN,
)
"""How ``home_assistant.get_state`` is said."""

LIST_FACTS = FactSheet(
    kinds={**_kinds(""), "missing_entity_ids": "name"},
    units={"state": "unit_of_measurement"},
    topics=(
        Topic(
            name="entities",
            means="every allowed entity and its state",
            statements=(
                *entity_statements("", each="entities"),
                Statement(
                    text="Home Assistant does not know {missing}.",
                    values={"missing": "missing_entity_ids"},
                    unless={"missing_entity_ids": ([], None)},
                ),
            ),
        ),
    ),
    summary=("entities",),
    words=WORDS,
    catalog=CATALOG,
    domain=DOMAIN,
)
"""How ``home_assistant.list_entities`` is said: each entity as :data:`GET_STATE_FACTS`
says one, and the allowlisted ids Home Assistant does not know."""

PHRASES = Phrases(
    denied="You declined the Home Assistant check, so I didn't check Home Assistant.",
    expired="The approval request for the Home Assistant check expired before you "
    "answered, so I didn't check Home Assistant.",
    failed="I tried to read Home Assistant, but it failed, so I have no reading from it.",
    not_asked="You declined an earlier request, so I didn't ask you about the Home Assistant "
    "check either.",
    unavailable="Home Assistant is not set up on this device, so I can't read your home's "
    "sensors, lights or locks.",
    switched_off="Home Assistant is switched off on this device, so I can't read your home's "
    "sensors, lights or locks.",
    stands_for="asks about the home itself: a room's temperature (the kitchen's, the "
    "bedroom's), its lights, locks, doors, sensors or thermostats",
    stand_in="smart_home",
    ask="Before I go on, I need your approval to read Home Assistant.",
    subjects=read_subjects(CATALOG.parent / "subjects" / "home_assistant.json"),
    places=read_subjects(CATALOG.parent / "subjects" / "home_assistant_places.json"),
    alike=read_word_groups(CATALOG.parent / "subjects" / "home_assistant_alike.json"),
    catalog=CATALOG,
    domain=DOMAIN,
)
