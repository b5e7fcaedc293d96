"""The service's settings: where it keeps data, where it listens, which model it asks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sovereign.paths import data_dir as default_data_dir

from .hosts import CONSOLE_HOST, DEFAULT_PORTS, LOOPBACK_NAMES, HostPin, canonical_name, parse_pin

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8092
BACKENDS = ("embedded", "openai", "scripted")
TOOL_MODES = ("auto", "native", "schema")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})  # noqa: S104 - names, not a bind


@dataclass(frozen=True)
class Settings:
    """Everything ``create_app`` needs; built from CLI options and the environment.

    Attributes:
        data_dir: the data directory (policy, audit log, password, settings files).
        host / port: where ``sovereign serve`` listens (default 127.0.0.1:8092).
        allowed_hosts: further names the service answers to (DESIGN §5), each
            ``name`` (at ``port``) or ``name:port``: the appliance's LAN name or
            address. The loopback names (:data:`~.hosts.LOOPBACK_NAMES`) and a
            specific ``host`` are always allowed.
        backend: ``embedded`` (default), ``openai`` (any OpenAI-compatible server,
            e.g. llama-server) or ``scripted`` (a fixed reply, for trying the API).
        openai_base_url / openai_model: the OpenAI-compatible server and model name.
        tool_mode: how the model chooses tools: ``schema`` (a JSON-schema-constrained
            decision; better for small models), ``native`` (the model's own tool
            calls) or ``auto`` (the default: schema for the embedded model; for
            openai, what the server showed it supports, see ``sovereign doctor``).
        model_path: a GGUF file for the embedded backend instead of the verified
            default model (``sovereign model install``).
        searxng_url: SearXNG's base URL for ``web.search`` (loopback port 8093).
        unsafe_web_fetch_options: keyword options passed to ``web_fetch.register``
            (a resolver and address policy for tests against 127.0.0.1). Tests only:
            it can weaken the SSRF guard, hence the name.
    """

    data_dir: Path = field(default_factory=default_data_dir)
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allowed_hosts: tuple[str, ...] = ()
    backend: str = "embedded"
    openai_base_url: str = "http://127.0.0.1:8081/v1"
    openai_model: str = "local"
    tool_mode: str | None = None
    model_path: Path | None = None
    searxng_url: str = "http://127.0.0.1:8093"
    unsafe_web_fetch_options: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}")
        if self.tool_mode not in (None, *TOOL_MODES):
            raise ValueError(f"tool_mode must be one of {', '.join(TOOL_MODES)}")
        if not 0 < self.port < 65536:
            raise ValueError("port must be between 1 and 65535")
        for entry in self.allowed_hosts:
            parse_pin(entry, self.port)  # raises ValueError with the entry named

    @property
    def host_pins(self) -> frozenset[HostPin]:
        """Every ``(name, port)`` a request's ``Host`` may name (DESIGN §5)."""
        pins = {(name, self.port) for name in LOOPBACK_NAMES}
        if self.host not in WILDCARD_HOSTS:
            pins.add((canonical_name(self.host), self.port))
        pins.update(parse_pin(entry, self.port) for entry in self.allowed_hosts)
        return frozenset(pins)

    def console_url(self, scheme: str = "http") -> str:
        """Where the household opens the Console: its first LAN name when the service
        listens beyond this device and one is given, else ``sovereign.localhost``."""
        name, port = CONSOLE_HOST, self.port
        if self.allowed_hosts and not self.loopback_only:
            name, port = parse_pin(self.allowed_hosts[0], self.port)
        default = DEFAULT_PORTS.get(scheme)
        return f"{scheme}://{name}/" if port == default else f"{scheme}://{name}:{port}/"

    @property
    def loopback_only(self) -> bool:
        """True when the service listens on this device only."""
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")


def settings_from_environment(**overrides: Any) -> Settings:
    """Settings from ``SOVEREIGN_*`` variables, then ``overrides`` (``None`` values ignored).

    Reads ``SOVEREIGN_DATA_DIR`` (through :mod:`sovereign.paths`),
    ``SOVEREIGN_BACKEND``, ``SOVEREIGN_OPENAI_BASE_URL``, ``SOVEREIGN_OPENAI_MODEL``,
    ``SOVEREIGN_TOOL_MODE``, ``SOVEREIGN_MODEL_PATH``, ``SOVEREIGN_SEARXNG_URL`` and
    ``SOVEREIGN_ALLOWED_HOSTS`` (names separated by commas or spaces).

    Raises:
        ValueError: an unknown backend, a port out of range or a malformed allowed host.
    """
    values: dict[str, Any] = {}
    names = ("backend", "openai_base_url", "openai_model", "tool_mode", "model_path", "searxng_url")
    for name in names:
        configured = os.environ.get(f"SOVEREIGN_{name.upper()}")
        if configured:
            values[name] = configured
    hosts = os.environ.get("SOVEREIGN_ALLOWED_HOSTS", "").replace(",", " ").split()
    if hosts:
        values["allowed_hosts"] = tuple(hosts)
    values.update({key: value for key, value in overrides.items() if value is not None})
    values["allowed_hosts"] = tuple(values.get("allowed_hosts", ()))
    for name in ("data_dir", "model_path"):
        if name in values:
            values[name] = Path(values[name]).expanduser()
    return Settings(**values)
