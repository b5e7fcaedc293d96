"""Home Assistant, read-only: ``home_assistant.list_entities`` and ``home_assistant.get_state``.

RFC-0018; DESIGN §2 and §4. Both read Home Assistant's REST API (``GET /api/states``,
``GET /api/states/<entity_id>``) with a long-lived access token, and only for the
entity ids on the household's allowlist. Settings live in
``<data>/home-assistant.json`` (mode 0600), apart from ``policy.json``::

    {"enabled": true,
     "base_url": "http://homeassistant.local:8123",
     "token": "<long-lived access token>",
     "allowlist": ["sensor.kitchen_temperature", "lock.front_door"]}

Both capabilities sit behind their own policy key, ``home_assistant_enabled``
(see :func:`home_assistant_policy`), so switching web search on never switches
Home Assistant on. The base URL is the household's choice and may be on the
LAN, but redirects are never followed and the token is never put in a result,
a message or the audit log. Attributes that commonly carry credentials
(``access_token``, ``entity_picture`` with its signed URL, …) are dropped.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from sovereign.executor import (
    ArgumentRefused,
    Capability,
    CapabilityError,
    Choice,
    Effect,
    Locality,
    Registry,
)

from ._household_http import make_client, request_json
from ._refusals import require_visible_argument
from ._settings import (
    BASE_URL_REFUSALS,
    SettingsError,
    check_base_url,
    content_refused,
    read_private_json,
)
from .home_assistant_facts import GET_STATE_FACTS, LIST_FACTS, PHRASES

logger = logging.getLogger(__name__)

SETTINGS_FILENAME = "home-assistant.json"
POLICY_KEY = "home_assistant_enabled"
SERVICE = "Home Assistant"
TIMEOUT_SECONDS = 10.0
"""Deadline of one invocation, in seconds."""
MAX_STATES_BYTES = 8 * 1024 * 1024
"""Cap on the ``/api/states`` body, in bytes (a large home is a few MiB)."""
MAX_STATE_BYTES = 1024 * 1024
"""Cap on one ``/api/states/<entity_id>`` body, in bytes."""
MAX_ALLOWLIST = 200
MAX_TEXT = 200
"""Longest string kept from Home Assistant (state, names, attribute values), in characters."""
MAX_ATTRIBUTES = 40

ENTITY_ID_PATTERN = r"^[a-z0-9_]+\.[a-z0-9_]+$"
"""Home Assistant's ``<domain>.<object_id>`` form; nothing else reaches a URL path."""
_ENTITY_ID = re.compile(r"[a-z0-9_]+\.[a-z0-9_]+")
_TOKEN = re.compile(r"[\x21-\x7e]+")
_SECRET_ATTRIBUTE = re.compile(
    r"token|password|passwd|secret|api_?key|credential|entity_picture|access|auth", re.I
)

SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["enabled", "base_url", "token", "allowlist"],
    "properties": {
        "enabled": {"type": "boolean"},
        "base_url": {"type": "string"},
        # Visible ASCII only: the token goes into an HTTP header.
        "token": {"type": "string", "pattern": r"^[\x21-\x7e]+$", "maxLength": 4096},
        "allowlist": {
            "type": "array",
            "items": {"type": "string", "pattern": ENTITY_ID_PATTERN, "maxLength": 255},
            "maxItems": MAX_ALLOWLIST,
            "uniqueItems": True,
        },
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class HomeAssistantSettings:
    """The parsed ``home-assistant.json``; the token is hidden from repr."""

    enabled: bool
    base_url: str
    token: str = field(repr=False)
    allowlist: frozenset[str]


REFUSALS = {
    "home_assistant_missing": "the setting {setting} is missing.",
    "home_assistant_unknown": "unknown setting {setting}.",
    "home_assistant_enabled": "enabled must be true or false.",
    "home_assistant_token": "token must be visible ASCII without spaces.",
    "home_assistant_token_too_long": "token is longer than {limit} characters.",
    "home_assistant_allowlist": "allowlist must be a list of entity ids.",
    "home_assistant_allowlist_too_long": "allowlist holds more than {limit} entity ids.",
    "home_assistant_allowlist_repeated": "allowlist names an entity id more than once.",
    "home_assistant_entity_id": "allowlist entries must be entity ids like sensor.x.",
}
"""Why ``home-assistant.json``'s content is refused, by key, in English (said from the
``console`` catalog, context ``refused_<key>``; a ``base_url`` is refused as
:data:`._settings.BASE_URL_REFUSALS` says). None quotes a value, which may be the token."""

FIELD_REFUSALS: dict[str, dict[str | None, str]] = {
    "enabled": {None: "home_assistant_enabled"},
    "base_url": {None: "base_url_not_a_url"},
    "token": {"maxLength": "home_assistant_token_too_long", None: "home_assistant_token"},
    "allowlist": {
        "maxItems": "home_assistant_allowlist_too_long",
        "uniqueItems": "home_assistant_allowlist_repeated",
        None: "home_assistant_allowlist",
    },
}
"""Each field of :data:`SETTINGS_SCHEMA` → the refusal of each JSON Schema keyword it
fails (``None``: any other); an allowlist entry that fails is ``home_assistant_entity_id``."""


def load_settings(data_dir: Path) -> HomeAssistantSettings | None:
    """Read ``<data_dir>/home-assistant.json``.

    Returns:
        The settings, or ``None`` when the file does not exist.

    Raises:
        SettingsError: the file is readable by others, corrupt, or does not match
            :data:`SETTINGS_SCHEMA` (a keyed refusal naming the field, never its value).
    """
    path = Path(data_dir) / SETTINGS_FILENAME
    raw = read_private_json(path)
    if raw is None:
        return None
    error = best_match(Draft202012Validator(SETTINGS_SCHEMA).iter_errors(raw))
    if error is not None:
        raise _schema_refusal(path, error)
    # JSON Schema's "$" lets one trailing newline through; these must match whole.
    if not _TOKEN.fullmatch(raw["token"]):
        raise _refused(path, "home_assistant_token")
    if not all(_ENTITY_ID.fullmatch(entity_id) for entity_id in raw["allowlist"]):
        raise _refused(path, "home_assistant_entity_id")
    return HomeAssistantSettings(
        enabled=raw["enabled"],
        base_url=check_base_url(raw["base_url"], path=path, loopback_only=False),
        token=raw["token"],
        allowlist=frozenset(raw["allowlist"]),
    )


def _schema_refusal(path: Path, error: Any) -> SettingsError:
    """The refusal for the JSON Schema ``error`` (:data:`FIELD_REFUSALS`); it names a
    field or a limit, never a value, which may be the token."""
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return _refused(path, "home_assistant_missing", setting=missing[0])
    if error.validator == "additionalProperties":
        unknown = sorted(set(error.instance) - set(SETTINGS_SCHEMA["properties"]))
        return _refused(path, "home_assistant_unknown", setting=repr(unknown[0][:40]))
    field, *inside = error.absolute_path
    if field == "allowlist" and inside:
        return _refused(path, "home_assistant_entity_id")
    by_keyword = FIELD_REFUSALS[field]
    key = by_keyword.get(error.validator, by_keyword[None])
    limits = {"limit": error.validator_value} if error.validator.startswith("max") else {}
    return content_refused(path, REFUSALS | BASE_URL_REFUSALS, key, **limits)


def _refused(path: Path, key: str, /, **values: object) -> SettingsError:
    return content_refused(path, REFUSALS, key, **values)


def settings_problem(data_dir: Path) -> str | None:
    """Why ``home-assistant.json`` is unusable, as one sentence (a
    :class:`~sovereign.file_problems.FileProblem` when the file itself is at fault), or
    None when usable or absent."""
    try:
        load_settings(data_dir)
    except SettingsError as exc:
        return exc.problem
    return None


def home_assistant_policy(data_dir: Path) -> dict[str, bool]:
    """The per-request policy entry for Home Assistant, read fresh from its settings file.

    Returns:
        ``{"home_assistant_enabled": bool}``: true only when ``home-assistant.json``
        exists, is valid and says ``"enabled": true``. A corrupt or too-open file
        counts as disabled and is reported through the log. The service merges
        this into the mapping it passes to ``Executor.invoke``; it never touches
        ``external_enabled``.
    """
    try:
        settings = load_settings(data_dir)
    except SettingsError as exc:
        logger.warning("Home Assistant is switched off: %s", exc)
        return {POLICY_KEY: False}
    return {POLICY_KEY: settings is not None and settings.enabled}


def is_set_up(data_dir: Path) -> bool:
    """Whether ``<data_dir>/home-assistant.json`` exists and is usable (private, valid),
    whatever its ``enabled`` says; read fresh on every call, never raises.

    This is the capabilities' availability check (DESIGN §2): a file that says
    ``"enabled": false`` is set up and switched off, and the switch is the policy key
    (:func:`home_assistant_policy`), so a turn can say which of the two it is.
    """
    try:
        return load_settings(data_dir) is not None
    except SettingsError:
        return False


def _usable_settings(data_dir: Path) -> HomeAssistantSettings:
    try:
        settings = load_settings(data_dir)
    except SettingsError as exc:
        raise CapabilityError(f"Home Assistant settings are unusable: {exc}") from exc
    path = Path(data_dir) / SETTINGS_FILENAME
    if settings is None:
        raise CapabilityError(f"Home Assistant is not configured: create {path} (mode 0600).")
    if not settings.enabled:
        raise CapabilityError(f"Home Assistant is switched off in {path}.")
    return settings


def _check_allowlisted(settings: HomeAssistantSettings, entity_id: str) -> None:
    if entity_id not in settings.allowlist:
        raise CapabilityError(f"{entity_id} is not on the household's Home Assistant allowlist.")


async def _get(settings: HomeAssistantSettings, path: str, max_bytes: int) -> Any:
    async with make_client(settings.base_url, timeout_seconds=TIMEOUT_SECONDS - 1) as client:
        reply = await request_json(
            client,
            "GET",
            path,
            service=SERVICE,
            max_bytes=max_bytes,
            headers={"Authorization": f"Bearer {settings.token}"},
        )
    if reply.status in (401, 403):
        raise CapabilityError(
            "Home Assistant rejected the token in home-assistant.json; create a new "
            "long-lived access token on your Home Assistant profile page."
        )
    if reply.status == 404:
        return None
    if reply.status != 200 or reply.body is None:
        raise CapabilityError(f"Home Assistant answered HTTP {reply.status}.")
    return reply.body


def shape_entity(state: dict[str, Any], *, with_attributes: bool) -> dict[str, Any]:
    """One Home Assistant state object → our result entry.

    Args:
        state: ``{"entity_id", "state", "attributes", "last_changed", "last_updated"}``
            as ``/api/states`` returns it.
        with_attributes: include the filtered ``attributes`` and ``last_updated``.

    Returns:
        ``{"entity_id", "domain", "name", "state", "friendly_name",
        "unit_of_measurement", "device_class", "last_changed"}`` (strings or null, each
        at most :data:`MAX_TEXT` chars; ``domain`` is the id's part before the dot,
        ``name`` the friendly name or else the id's words), plus ``attributes`` and
        ``last_updated`` when asked.
    """
    attributes = state.get("attributes")
    attributes = attributes if isinstance(attributes, dict) else {}
    entity_id = state["entity_id"]
    friendly = _text(attributes.get("friendly_name"))
    entry = {
        "entity_id": entity_id,
        "domain": entity_id.split(".", 1)[0],
        "name": " ".join((friendly or "").split()) or id_words(entity_id),
        "state": reading(state.get("state")),
        "friendly_name": friendly,
        "unit_of_measurement": _text(attributes.get("unit_of_measurement")),
        "device_class": _text(attributes.get("device_class")),
        "last_changed": _text(state.get("last_changed")),
    }
    if with_attributes:
        entry["last_updated"] = _text(state.get("last_updated"))
        entry["attributes"] = safe_attributes(attributes)
    return entry


def reading(state: Any) -> str | None:
    """An entity's state as Home Assistant gave it, except that no state at all (null,
    empty, blank) becomes ``"unknown"``, Home Assistant's own word for it, and a number
    that is no number (NaN, infinity) becomes ``"unavailable"``: never a figure."""
    text = _text(state)
    if text is None or not text.strip():
        return "unknown"
    try:
        number = float(text)
    except ValueError:
        return text
    return text if math.isfinite(number) else "unavailable"


def id_words(entity_id: str) -> str:
    """An entity id's object part as words: ``lock.back_door`` → "back door"."""
    return entity_id.split(".", 1)[-1].replace("_", " ")


def safe_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Attributes fit to show: scalars and short lists of scalars, no credential-like keys.

    Drops keys matching token/password/secret/api key/credential/entity_picture/
    access/auth, nested objects, and the two already shown at the top level;
    keeps at most :data:`MAX_ATTRIBUTES`, strings cut to :data:`MAX_TEXT` chars.
    """
    kept: dict[str, Any] = {}
    for key, value in attributes.items():
        if len(kept) >= MAX_ATTRIBUTES:
            break
        if key in ("friendly_name", "unit_of_measurement") or _SECRET_ATTRIBUTE.search(key):
            continue
        if isinstance(value, list) and len(value) <= 20 and all(map(_is_scalar, value)):
            kept[key[:MAX_TEXT]] = [_clip(item) for item in value]
        elif _is_scalar(value):
            kept[key[:MAX_TEXT]] = _clip(value)
    return kept


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _clip(value: Any) -> Any:
    return value[:MAX_TEXT] if isinstance(value, str) else value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:MAX_TEXT]


def _is_state(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("entity_id"), str)


async def list_entities(settings: HomeAssistantSettings, domain: str | None) -> dict[str, Any]:
    """The allowlisted entities Home Assistant knows, optionally of one domain.

    Returns:
        ``{"entities": [...] sorted by entity_id, "entity_count", "missing_entity_ids",
        "retrieved_at"}``; ``missing_entity_ids`` are allowlisted ids Home Assistant
        does not report.

    Raises:
        CapabilityError: Home Assistant unreachable, token rejected, or a body
            that is not a list of state objects.
    """
    states = await _get(settings, "/api/states", MAX_STATES_BYTES)
    if not isinstance(states, list):
        raise CapabilityError("Home Assistant's /api/states answer was not a list of states.")
    wanted = {e for e in settings.allowlist if domain is None or e.startswith(domain + ".")}
    found = {s["entity_id"]: s for s in states if _is_state(s) and s["entity_id"] in wanted}
    entities = [shape_entity(found[e], with_attributes=False) for e in sorted(found)]
    return {
        "entities": entities,
        "entity_count": len(entities),
        "missing_entity_ids": sorted(wanted - set(found)),
        "retrieved_at": _now(),
    }


async def get_state(settings: HomeAssistantSettings, entity_id: str) -> dict[str, Any]:
    """One allowlisted entity's state with its safe attributes.

    Raises:
        CapabilityError: not allowlisted (Home Assistant is not contacted), unknown
            to Home Assistant, unreachable, token rejected, or a malformed body.
    """
    _check_allowlisted(settings, entity_id)
    state = await _get(settings, "/api/states/" + quote(entity_id, safe="._"), MAX_STATE_BYTES)
    if state is None:
        raise CapabilityError(f"Home Assistant has no entity {entity_id}.")
    if not _is_state(state) or state["entity_id"] != entity_id:
        raise CapabilityError(f"Home Assistant's answer for {entity_id} was not its state.")
    return {"entity": shape_entity(state, with_attributes=True), "retrieved_at": _now()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_NULLABLE_TEXT = {"type": ["string", "null"], "maxLength": MAX_TEXT}
_ENTITY_PROPERTIES = {
    "entity_id": {"type": "string", "pattern": ENTITY_ID_PATTERN},
    "domain": {"type": "string", "pattern": r"^[a-z0-9_]+$"},
    "name": {"type": "string", "maxLength": MAX_TEXT},
    "state": _NULLABLE_TEXT,
    "friendly_name": _NULLABLE_TEXT,
    "unit_of_measurement": _NULLABLE_TEXT,
    "device_class": _NULLABLE_TEXT,
    "last_changed": _NULLABLE_TEXT,
}
_ENTITY_SCHEMA = {
    "type": "object",
    "required": list(_ENTITY_PROPERTIES),
    "properties": _ENTITY_PROPERTIES,
    "additionalProperties": False,
}
_ENTITY_WITH_ATTRIBUTES_SCHEMA = {
    "type": "object",
    "required": [*_ENTITY_PROPERTIES, "last_updated", "attributes"],
    "properties": {
        **_ENTITY_PROPERTIES,
        "last_updated": _NULLABLE_TEXT,
        "attributes": {"type": "object", "maxProperties": MAX_ATTRIBUTES},
    },
    "additionalProperties": False,
}

LIST_ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "domain": {
            "type": "string",
            "pattern": r"^[a-z0-9_]+$",
            "maxLength": 64,
            "description": "Only entities of this domain, e.g. sensor, light, lock.",
        }
    },
    "additionalProperties": False,
}
LIST_RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["entities", "entity_count", "missing_entity_ids", "retrieved_at"],
    "properties": {
        "entities": {"type": "array", "items": _ENTITY_SCHEMA, "maxItems": MAX_ALLOWLIST},
        "entity_count": {"type": "integer", "minimum": 0},
        "missing_entity_ids": {"type": "array", "items": {"type": "string"}},
        "retrieved_at": {"type": "string"},
    },
    "additionalProperties": False,
}
GET_ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["entity_id"],
    "properties": {
        "entity_id": {
            "type": "string",
            "pattern": ENTITY_ID_PATTERN,
            "maxLength": 255,
            "description": "An allowlisted entity id, e.g. sensor.kitchen_temperature.",
        }
    },
    "additionalProperties": False,
}
GET_RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["entity", "retrieved_at"],
    "properties": {
        "entity": _ENTITY_WITH_ATTRIBUTES_SCHEMA,
        "retrieved_at": {"type": "string"},
    },
    "additionalProperties": False,
}


def register(
    registry: Registry,
    *,
    data_dir: Path,
    on_names: Callable[[list[tuple[str, str | None]]], None] | None = None,
) -> None:
    """Add ``home_assistant.list_entities`` v1 and ``home_assistant.get_state`` v1.

    Args:
        registry: where to register.
        data_dir: the service's data directory; ``home-assistant.json`` is read
            from it on every invocation (and by ``get_state``'s argument check).
        on_names: called with ``(entity_id, friendly_name)`` of every entity a call
            read, so the household-identifier check knows the names Home Assistant
            uses (DESIGN §4); never with anything not on the allowlist.

    Both are read_only and classified external, so each call needs the
    household's confirmation, and both need ``home_assistant_enabled`` in the
    per-request policy.
    """

    known: dict[str, str] = {}  # entity id → the friendly name Home Assistant last gave

    def learned(entities: list[dict[str, Any]]) -> None:
        known.update((e["entity_id"], e["friendly_name"]) for e in entities if e["friendly_name"])
        if on_names is not None and entities:
            on_names([(entity["entity_id"], entity.get("friendly_name")) for entity in entities])

    def choices() -> dict[str, list[Choice]]:
        """The allowlisted entities, each with the name Home Assistant gave it (or its id's
        words before any read): the only values ``entity_id`` can take."""
        try:
            settings = load_settings(data_dir)
        except SettingsError:
            return {}
        allowed = sorted(settings.allowlist) if settings is not None else []
        labels = {entity: known.get(entity) or id_words(entity) for entity in allowed}
        return {"entity_id": [Choice(value=e, label=label) for e, label in labels.items()]}

    async def execute_list(arguments: dict[str, Any]) -> dict[str, Any]:
        result = await list_entities(_usable_settings(data_dir), arguments.get("domain"))
        learned(result["entities"])
        return result

    async def execute_get(arguments: dict[str, Any]) -> dict[str, Any]:
        result = await get_state(_usable_settings(data_dir), arguments["entity_id"])
        learned([result["entity"]])
        return result

    def validate_list(arguments: dict[str, Any]) -> None:
        if "domain" in arguments:
            # JSON Schema's "$" lets "\n" by
            require_visible_argument(arguments["domain"], "domain", "domain")
            if not re.fullmatch(r"[a-z0-9_]+", arguments["domain"]):
                raise ArgumentRefused(
                    "domain must look like sensor or light.", "wrong_form", argument="domain"
                )

    def validate_get(arguments: dict[str, Any]) -> None:
        # Refuse a non-allowlisted id at stage 2, before the household is asked to
        # approve a call that could not run. Settings trouble is reported at execute.
        require_visible_argument(arguments["entity_id"], "entity_id", "entity id")
        if not _ENTITY_ID.fullmatch(arguments["entity_id"]):
            raise ArgumentRefused(
                "entity_id must look like sensor.kitchen_temperature.", "wrong_form",
                argument="entity_id",
            )  # fmt: skip
        try:
            settings = load_settings(data_dir)
        except SettingsError:
            return
        if settings is not None and arguments["entity_id"] not in settings.allowlist:
            raise ValueError(
                f"{arguments['entity_id']} is not on the household's Home Assistant allowlist."
            )

    common: dict[str, Any] = {
        "effect": Effect.READ_ONLY,
        # External although Home Assistant is usually on the LAN: the LAN is
        # outside this device, so every call needs the household's approval.
        "locality": Locality.EXTERNAL,
        "policy_key": POLICY_KEY,
        "timeout_seconds": TIMEOUT_SECONDS,
        # Set up while the settings file is usable; its "enabled" is the policy switch.
        "available": lambda: is_set_up(data_dir),
        "phrases": PHRASES,
    }
    registry.add(
        Capability(
            name="home_assistant.list_entities",
            version=1,
            description=(
                "List the Home Assistant entities the household has allowed (id, state, "
                "name, unit), optionally of one domain such as sensor or light."
            ),
            arguments_schema=LIST_ARGUMENTS_SCHEMA,
            result_schema=LIST_RESULT_SCHEMA,
            execute=execute_list,
            facts=LIST_FACTS,
            max_result_bytes=131072,
            validate_arguments=validate_list,
            **common,
        )
    )
    registry.add(
        Capability(
            name="home_assistant.get_state",
            version=1,
            description=(
                "Read one allowed Home Assistant entity's current state and attributes, "
                "e.g. sensor.kitchen_temperature."
            ),
            arguments_schema=GET_ARGUMENTS_SCHEMA,
            result_schema=GET_RESULT_SCHEMA,
            execute=execute_get,
            facts=GET_STATE_FACTS,
            choices=choices,
            max_invocations_per_turn=3,
            validate_arguments=validate_get,
            **common,
        )
    )
