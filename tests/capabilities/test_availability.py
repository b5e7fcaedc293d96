"""A capability family that is not set up is not offered: Pi-hole and Home Assistant say
whether they can run from their settings files, read fresh every time."""

from __future__ import annotations

import json
import os

import pytest

from sovereign.capabilities import home_assistant, pihole, system
from sovereign.conversation import ToolCatalog
from sovereign.executor import Registry


def write(path, content, mode=0o600):
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    os.chmod(path, mode)


@pytest.fixture
def registry(tmp_path):
    registry = Registry()
    system.register(registry, data_path=tmp_path)
    pihole.register(registry, data_dir=tmp_path)
    home_assistant.register(registry, data_dir=tmp_path)
    return registry


def offered(registry, policy=None):
    return [t["function"]["name"] for t in ToolCatalog.for_turn(registry, policy or {}).tools()]


HA = {"enabled": True, "base_url": "http://ha.test:8123", "token": "t", "allowlist": []}


def test_without_settings_files_only_the_device_itself_is_offered(registry):
    assert offered(registry, {"home_assistant_enabled": True}) == ["system_health"]


@pytest.mark.parametrize(
    ("content", "mode", "usable"),
    [
        ({"password": "app-password"}, 0o600, True),
        ({"password": "app-password"}, 0o644, False),  # readable by others: refused
        ("{not json", 0o600, False),
        ({"password": 12}, 0o600, False),
        ({"password": "x", "base_url": "http://192.168.1.2"}, 0o600, False),  # not this device
    ],
)
def test_pihole_is_offered_exactly_when_its_settings_file_is_usable(
    registry, tmp_path, content, mode, usable
):
    write(tmp_path / "pihole.json", content, mode)
    assert pihole.is_configured(tmp_path) is usable
    assert ("pihole_summary" in offered(registry)) is usable


@pytest.mark.parametrize(
    ("content", "mode", "usable"),
    [
        (HA, 0o600, True),
        ({**HA, "enabled": False}, 0o600, False),
        (HA, 0o640, False),
        ("[]", 0o600, False),
    ],
)
def test_home_assistant_is_offered_exactly_when_set_up_and_enabled(
    registry, tmp_path, content, mode, usable
):
    write(tmp_path / "home-assistant.json", content, mode)
    policy = home_assistant.home_assistant_policy(tmp_path)
    names = offered(registry, policy)
    assert ("home_assistant_get_state" in names) is usable
    assert ("home_assistant_list_entities" in names) is usable


def test_availability_is_read_fresh_for_every_turn(registry, tmp_path):
    assert "pihole_summary" not in offered(registry)
    write(tmp_path / "pihole.json", {"password": "p"})
    assert "pihole_summary" in offered(registry)
    (tmp_path / "pihole.json").unlink()
    assert "pihole_summary" not in offered(registry)
