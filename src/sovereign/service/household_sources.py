"""Where the household-identifier check learns this household's words (DESIGN §4).

The check itself (:mod:`sovereign.egress`) reads no file; this module gathers its
sources and compiles them into an :class:`~sovereign.egress.Household`:

- the private words (``<data>/private-words.json``, :mod:`.private_words`);
- Home Assistant's allowlisted entity ids (``<data>/home-assistant.json``) and the
  friendly names Home Assistant reported for them in approved calls
  (``<data>/home-assistant-names.json``, mode 0600, kept by :class:`EntityNames`);
- Pi-hole's local DNS names, where this service may read them (Pi-hole v6
  ``pihole.toml``: ``dns.hosts``, ``dns.cnameRecords``; v5 ``custom.list`` and its
  CNAME file);
- this device's host name and DNS domain (``/etc/hostname``, the ``search`` and
  ``domain`` lines of ``/etc/resolv.conf``) and its interface addresses;
- the Wi-Fi network's name when the device knows it (``ssid=`` in readable
  wpa_supplicant and NetworkManager files).

Files that do not exist or cannot be read are skipped (the service runs
sandboxed and may not see ``/etc/pihole``). The private words and Home Assistant
names are read for every card; the device's own sources once a minute.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sovereign.capabilities._settings import SettingsError
from sovereign.capabilities.home_assistant import load_settings as load_home_assistant
from sovereign.egress import Household, check_arguments
from sovereign.net import device_interfaces

from .private_words import PrivateWordsStore
from .settings_store import SettingsFile, SettingsKind, SettingsUnreadable

logger = logging.getLogger(__name__)

CHECKED_ARGUMENTS: dict[str, tuple[str, ...]] = {"web.search": ("query",), "web.fetch": ("url",)}
"""The arguments of each capability that leave the device as text: the ones checked."""
DEVICE_REFRESH_SECONDS = 60.0
NAMES_FILENAME = "home-assistant-names.json"
MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SystemPaths:
    """The device files read for names (tests point these at a temporary tree)."""

    hostname: Path = Path("/etc/hostname")
    resolv_conf: Path = Path("/etc/resolv.conf")
    pihole_toml: Path = Path("/etc/pihole/pihole.toml")
    pihole_hosts: tuple[Path, ...] = (
        Path("/etc/pihole/custom.list"),
        Path("/etc/pihole/hosts/custom.list"),
    )
    pihole_cnames: Path = Path("/etc/dnsmasq.d/05-pihole-custom-cname.conf")
    wifi_files: tuple[Path, ...] = (
        Path("/etc/wpa_supplicant/wpa_supplicant.conf"),
        Path("/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"),
    )
    wifi_dirs: tuple[Path, ...] = (Path("/etc/NetworkManager/system-connections"),)


@dataclass(frozen=True)
class DeviceFacts:
    """What the device knows about itself, re-read every :data:`DEVICE_REFRESH_SECONDS`."""

    names: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    pihole_names: tuple[str, ...] = ()
    wifi_names: tuple[str, ...] = ()
    addresses: tuple[str, ...] = ()
    networks: tuple[str, ...] = ()


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def device_names(paths: SystemPaths) -> tuple[list[str], list[str]]:
    """This device's host names and DNS domains (``search``/``domain`` of resolv.conf)."""
    names = {socket.gethostname().strip()}
    names.add((_read(paths.hostname) or "").strip())
    domains: set[str] = set()
    for line in (_read(paths.resolv_conf) or "").splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0] in ("search", "domain"):
            domains.update(words[1:])
    return sorted(n for n in names if n), sorted(domains)


def pihole_names(paths: SystemPaths) -> list[str]:
    """Pi-hole's local DNS records and CNAMEs, from whichever of its files is readable."""
    names: set[str] = set()
    text = _read(paths.pihole_toml)
    if text is not None:
        try:
            dns = tomllib.loads(text).get("dns", {})
        except tomllib.TOMLDecodeError:
            dns = {}
        for entry in dns.get("hosts", []) or []:
            names.update(str(entry).split()[1:])
        for entry in dns.get("cnameRecords", []) or []:
            names.update(str(entry).split(",")[:2])
    for path in paths.pihole_hosts:
        for line in (_read(path) or "").splitlines():
            names.update(line.split("#", 1)[0].split()[1:])
    for line in (_read(paths.pihole_cnames) or "").splitlines():
        if line.startswith("cname="):
            names.update(line.removeprefix("cname=").split(",")[:2])
    return sorted(name.strip() for name in names if "." in name.strip())


_SSID = re.compile(r'^\s*ssid\s*=\s*(?:"([^"\n]{1,32})"|([^\s"]{1,64}))\s*$', re.MULTILINE)


def wifi_names(paths: SystemPaths) -> list[str]:
    """The SSIDs in readable wpa_supplicant and NetworkManager files."""
    files = list(paths.wifi_files)
    for directory in paths.wifi_dirs:
        try:
            files.extend(sorted(directory.glob("*.nmconnection")))
        except OSError:
            continue
    found: set[str] = set()
    for path in files:
        for quoted, bare in _SSID.findall(_read(path) or ""):
            found.add(quoted or bare)
    return sorted(found)


def device_facts(paths: SystemPaths, interfaces: Callable[[], Sequence[Any]]) -> DeviceFacts:
    """Every device source, read now; a source that fails is left out (and logged)."""
    names, domains = device_names(paths)
    try:
        local = list(interfaces())
    except OSError as exc:
        logger.warning("this device's addresses could not be read: %s", exc)
        local = []
    return DeviceFacts(
        names=tuple(names),
        domains=tuple(domains),
        pihole_names=tuple(pihole_names(paths)),
        wifi_names=tuple(wifi_names(paths)),
        addresses=tuple(str(interface.ip) for interface in local),
        networks=tuple(str(interface.network) for interface in local),
    )


def _parse_names(value: Any) -> dict[str, str]:
    names = value.get("names") if isinstance(value, dict) else None
    if not isinstance(names, dict):
        raise ValueError('must hold {"names": {entity_id: name, …}}.')
    return {k: v for k, v in names.items() if isinstance(k, str) and isinstance(v, str)}


NAMES_FILE = SettingsKind(
    relative_path=NAMES_FILENAME,
    default={},
    parse=_parse_names,
    dump=lambda names: {"names": names},
    log_prefix="Home Assistant names ignored",
    private=True,
)
"""``home-assistant-names.json``: names Home Assistant reported (private to the owner)."""


class EntityNames:
    """Friendly names Home Assistant reported, kept in ``<data>/home-assistant-names.json``.

    Kept by the one settings store (atomic, mode 0600, one writer at a time), written
    only when a name changed; only entity ids on the allowlist at the time are kept.
    A file that cannot be used is replaced by the names learned next (it is a cache).
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._file = SettingsFile(self.data_dir, NAMES_FILE)
        self.path = self._file.path

    def read(self) -> dict[str, str]:
        """``{entity_id: friendly_name}``; empty when absent or unusable."""
        return self._file.read().value

    def remember(self, entities: Iterable[tuple[str, str | None]]) -> None:
        """Keep the names of allowlisted ``entities``; never raises (logged instead)."""
        allowed = _allowlist(self.data_dir)
        wanted = {e: n for e, n in entities if n and e in allowed}
        if not wanted or all(self.read().get(e) == n for e, n in wanted.items()):
            return
        try:
            try:
                self._file.update(lambda names: {**names, **wanted})
            except SettingsUnreadable:
                self._file.replace(wanted)
        except OSError as exc:
            logger.warning("Home Assistant names not kept: %s", exc)


def _allowlist(data_dir: Path) -> frozenset[str]:
    try:
        settings = load_home_assistant(data_dir)
    except SettingsError:
        return frozenset()
    return settings.allowlist if settings is not None else frozenset()


class HouseholdSources:
    """Gathers the sources and compiles them; :meth:`flag_check` is the executor's hook.

    Args:
        data_dir: the service's data directory.
        paths: the device files read for names.
        interfaces: this device's interface addresses (default: ``net.device_interfaces``).
        clock: monotonic seconds, for the device sources' refresh.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        paths: SystemPaths | None = None,
        interfaces: Callable[[], Sequence[Any]] = device_interfaces,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.words = PrivateWordsStore(data_dir)
        self.entity_names = EntityNames(data_dir)
        self._paths = paths or SystemPaths()
        self._interfaces, self._clock = interfaces, clock
        self._device: tuple[float, DeviceFacts] | None = None
        self._compiled: tuple[Any, Household] | None = None
        self._lock = threading.Lock()

    def device(self) -> DeviceFacts:
        """The device sources, re-read when older than :data:`DEVICE_REFRESH_SECONDS`."""
        now = self._clock()
        if self._device is None or now - self._device[0] >= DEVICE_REFRESH_SECONDS:
            self._device = (now, device_facts(self._paths, self._interfaces))
        return self._device[1]

    def home_assistant(self) -> list[tuple[str, str | None]]:
        """Allowlisted entity ids with the friendly name Home Assistant gave, if known."""
        names = self.entity_names.read()
        return [(entity, names.get(entity)) for entity in sorted(_allowlist(self.data_dir))]

    def household(self) -> Household:
        """Every source compiled (recompiled only when one of them changed)."""
        device = self.device()
        key = (self.words.read().words, tuple(self.home_assistant()), device)
        with self._lock:
            if self._compiled is None or self._compiled[0] != key:
                household = Household.build(
                    private_words=key[0],
                    home_assistant=key[1],
                    pihole_names=device.pihole_names,
                    device_names=device.names,
                    device_domains=device.domains,
                    wifi_names=device.wifi_names,
                    device_addresses=device.addresses,
                    device_networks=device.networks,
                )
                self._compiled = (key, household)
            return self._compiled[1]

    def flag_check(self, name: str, arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The executor's flag check: flags in the arguments of ``name`` that leave as text."""
        fields = CHECKED_ARGUMENTS.get(name)
        if not fields:
            return []
        return [flag.to_wire() for flag in check_arguments(arguments, fields, self.household())]

    def summary(self) -> dict[str, int]:
        """How many words each automatic source holds (for the Console's settings)."""
        device = self.device()
        return {
            "home_assistant": len(self.home_assistant()),
            "pihole": len(device.pihole_names),
            "device_names": len(device.names) + len(device.domains),
            "device_addresses": len(device.addresses),
            "wifi": len(device.wifi_names),
        }
