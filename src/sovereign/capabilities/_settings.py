"""Reading the household's per-service settings files (pihole.json, home-assistant.json).

These files hold secrets (an app password, an access token), so they are read
only when private to their owner (mode 0600 or stricter), and nothing read from
them is ever put into an error message. What is wrong with a file's content is a
keyed refusal (:func:`content_refused`), so the commands and the Console can say it
in their language, as they say the other settings files' (context ``refused_<key>``).
"""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sovereign.egress import SettingRefused
from sovereign.file_problems import FileProblem
from sovereign.strict_json import StrictJSONError, loads_strict

MAX_SETTINGS_BYTES = 65536
"""Largest settings file read, in bytes; a bigger one is reported as corrupt."""

BASE_URL_REFUSALS = {
    "base_url_not_a_url": "base_url must be a URL such as http://127.0.0.1:8080.",
    "base_url_invalid": "base_url is not a valid URL.",
    "base_url_scheme": "base_url must start with http:// or https:// and name a host.",
    "base_url_credentials": "base_url must not carry a user name or password.",
    "base_url_query": "base_url must not have a query or fragment.",
    "base_url_not_local": "base_url must point at this device (127.0.0.1, ::1 or localhost).",
}
"""Why a settings file's ``base_url`` is refused, by key, in English (said from the
``console`` catalog, context ``refused_<key>``)."""


class SettingsError(Exception):
    """A settings file is unreadable, too open, corrupt or invalid.

    The message is one sentence naming the file and the fix; it never quotes the
    file's contents. ``problem`` is that sentence as given: a
    :class:`~sovereign.file_problems.FileProblem` when the file itself is at fault.
    """

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def content_refused(
    path: Path, refusals: Mapping[str, str], key: str, /, **values: object
) -> SettingsError:
    """What is wrong with the content of the settings file ``path``: the refusal ``key``
    of ``refusals`` (its English), filled with ``values``, kept as the file's
    ``content`` problem (its English: ``"<path>: <sentence>"``).

    Raises:
        KeyError: ``key`` is not one of ``refusals``.
    """
    problem = SettingRefused(key, refusals[key], **values)
    return SettingsError(FileProblem("content", path=path, problem=problem))


def read_private_json(path: Path) -> dict[str, Any] | None:
    """Read a JSON object from a settings file that only its owner may read.

    Args:
        path: the settings file.

    Returns:
        The parsed object, or ``None`` when the file does not exist.

    Raises:
        SettingsError: the file is readable or writable by the group or others
            (fix: ``chmod 600``), unreadable, over :data:`MAX_SETTINGS_BYTES`,
            not UTF-8 JSON, or not a JSON object.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problem = FileProblem("unreadable", path=path, reason=exc.strerror, errno=exc.errno)
        raise SettingsError(problem) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SettingsError(FileProblem("not_regular", path=path))
        if info.st_mode & 0o077:
            mode = f"{stat.S_IMODE(info.st_mode):04o}"
            raise SettingsError(FileProblem("secret_open", path=path, mode=mode))
        raw = handle.read(MAX_SETTINGS_BYTES + 1)
    if len(raw) > MAX_SETTINGS_BYTES:
        raise SettingsError(FileProblem("too_large", path=path, limit=MAX_SETTINGS_BYTES))
    try:
        value = loads_strict(raw)
    except StrictJSONError as exc:
        raise SettingsError(FileProblem(f"json_{exc.why}", path=path, **exc.values)) from exc
    if not isinstance(value, dict):
        raise SettingsError(FileProblem("not_object", path=path))
    return value


def check_base_url(value: Any, *, path: Path, loopback_only: bool) -> str:
    """Validate a service's base URL from a settings file.

    Args:
        value: the configured ``base_url``.
        path: the settings file, named in the error.
        loopback_only: require a loopback host (127.0.0.0/8, ``::1``, ``localhost``),
            for services classified as local to this device.

    Returns:
        The URL without a trailing slash, e.g. ``http://127.0.0.1:8080``.

    Raises:
        SettingsError: not an http(s) URL with a host; carries a user name or
            password, a query or a fragment; or not loopback when required.
    """
    if not isinstance(value, str) or not value:
        raise _refused(path, "base_url_not_a_url")
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise _refused(path, "base_url_invalid") from exc
    if parts.scheme not in ("http", "https") or not host:
        raise _refused(path, "base_url_scheme")
    if parts.username is not None or parts.password is not None:
        raise _refused(path, "base_url_credentials")
    if parts.query or parts.fragment:
        raise _refused(path, "base_url_query")
    if loopback_only and not is_loopback_host(host):
        raise _refused(path, "base_url_not_local")
    return value.rstrip("/")


def _refused(path: Path, key: str) -> SettingsError:
    return content_refused(path, BASE_URL_REFUSALS, key)


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and for loopback IP literals (127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
