"""Where the identifier check learns the household's words: every source, and what
happens when one is missing, unreadable or corrupt."""

from __future__ import annotations

import json
import os
from ipaddress import ip_interface

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import DoctorConfig, check_private_words
from sovereign.service.household_sources import HouseholdSources, SystemPaths
from sovereign.service.private_words import PrivateWordsStore
from tests.fakes.clock import FakeClock

PIHOLE_TOML = """
[dns]
hosts = ["192.168.50.10 nas.okafor.family nas", "192.168.50.11 printer.lan"]
cnameRecords = ["media.okafor.family,nas.okafor.family"]
"""


@pytest.fixture
def device(tmp_path):
    etc = tmp_path / "etc"
    (etc / "pihole").mkdir(parents=True)
    (etc / "NetworkManager").mkdir()
    (etc / "hostname").write_text("sovereign-den\n")
    (etc / "resolv.conf").write_text(
        "# by dhcp\nsearch okafor.family lan\nnameserver 192.168.50.1\n"
    )
    (etc / "pihole" / "pihole.toml").write_text(PIHOLE_TOML)
    (etc / "custom.list").write_text("192.168.50.12 tv.okafor.family\n# comment\n")
    (etc / "cname.conf").write_text("cname=photos.okafor.family,nas.okafor.family\n")
    (etc / "wpa.conf").write_text('network={\n    ssid="Okafor Fibre 5G"\n    psk="secret"\n}\n')
    (etc / "NetworkManager" / "home.nmconnection").write_text("[wifi]\nssid=OkaforGuest\n")
    return SystemPaths(
        hostname=etc / "hostname",
        resolv_conf=etc / "resolv.conf",
        pihole_toml=etc / "pihole" / "pihole.toml",
        pihole_hosts=(etc / "custom.list", etc / "missing.list"),
        pihole_cnames=etc / "cname.conf",
        wifi_files=(etc / "wpa.conf",),
        wifi_dirs=(etc / "NetworkManager",),
    )


def interfaces():
    return [ip_interface("192.168.50.23/24"), ip_interface("2a02:8108:1c0:4e00::23/64")]


def sources(tmp_path, device, **options) -> HouseholdSources:
    return HouseholdSources(tmp_path / "data", paths=device, interfaces=interfaces, **options)


def kinds(sources: HouseholdSources, query: str) -> list[tuple[str, str]]:
    flags = sources.flag_check("web.search", {"query": query})
    return [(query[f["start"] : f["end"]], f["kind"]) for f in flags]


def test_every_device_source_is_read(tmp_path, device):
    facts = sources(tmp_path, device).device()
    assert "sovereign-den" in facts.names
    assert facts.domains == ("lan", "okafor.family")
    assert set(facts.pihole_names) == {
        "nas.okafor.family", "printer.lan", "media.okafor.family", "tv.okafor.family",
        "photos.okafor.family",
    }  # fmt: skip
    assert facts.wifi_names == ("Okafor Fibre 5G", "OkaforGuest")
    assert facts.addresses == ("192.168.50.23", "2a02:8108:1c0:4e00::23")


def test_the_sources_flag_what_they_name(tmp_path, device):
    household = sources(tmp_path, device)
    assert ("tv.okafor.family", "pihole_name") in kinds(household, "tv.okafor.family hdmi")
    assert kinds(household, "okaforguest password") == [("okaforguest", "wifi_name")]
    assert kinds(household, "ssh 192.168.50.23") == [("192.168.50.23", "device_address")]
    assert ("sovereign-den", "device_name") in kinds(household, "sovereign-den slow")


def test_only_arguments_that_leave_as_text_are_checked(tmp_path, device):
    household = sources(tmp_path, device)
    assert household.flag_check("web.fetch", {"url": "https://x.example/?ip=192.168.50.37"})
    assert household.flag_check("home_assistant.get_state", {"entity_id": "nas.okafor"}) == []
    assert household.flag_check("web.search", {"query": 5}) == []


def test_missing_and_unreadable_device_files_are_skipped(tmp_path):
    nothing = tmp_path / "nowhere"
    paths = SystemPaths(
        hostname=nothing / "h", resolv_conf=nothing / "r", pihole_toml=nothing / "p",
        pihole_hosts=(), pihole_cnames=nothing / "c", wifi_files=(), wifi_dirs=(nothing,),
    )  # fmt: skip
    household = HouseholdSources(tmp_path / "data", paths=paths, interfaces=list)
    assert household.device().pihole_names == () and household.device().wifi_names == ()
    assert kinds(household, "nas.local") == [("nas.local", "local_host_name")]


def test_a_corrupt_pihole_toml_is_skipped(tmp_path, device):
    device.pihole_toml.write_text("[dns\nhosts = [")
    assert "media.okafor.family" not in sources(tmp_path, device).device().pihole_names


def test_device_sources_are_reread_after_a_minute(tmp_path, device):
    clock = FakeClock()
    household = sources(tmp_path, device, clock=clock)
    assert kinds(household, "okaforguest") == [("okaforguest", "wifi_name")]
    (device.wifi_dirs[0] / "home.nmconnection").unlink()
    assert kinds(household, "okaforguest") == [("okaforguest", "wifi_name")]
    clock.advance(61)
    assert kinds(household, "okaforguest") == []


def test_private_words_apply_to_the_next_check_without_a_restart(tmp_path, device):
    household = sources(tmp_path, device)
    assert kinds(household, "juniper lane bins") == []
    PrivateWordsStore(tmp_path / "data").add("Juniper Lane")
    assert kinds(household, "juniper lane bins") == [("juniper lane", "private_word")]


def write_home_assistant(data_dir, allowlist):
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "home-assistant.json"
    settings = {
        "enabled": True,
        "base_url": "http://ha.lan:8123",
        "token": "t",
        "allowlist": allowlist,
    }
    path.write_text(json.dumps(settings))
    path.chmod(0o600)


def test_home_assistant_ids_and_the_names_it_reported_are_flagged(tmp_path, device):
    data = tmp_path / "data"
    write_home_assistant(data, ["light.maya_bedroom", "sensor.kitchen_temperature"])
    household = sources(tmp_path, device)
    assert kinds(household, "light.maya_bedroom off") == [
        ("light.maya_bedroom", "home_assistant_name")
    ]
    assert kinds(household, "nursery for maya") == []
    household.entity_names.remember([("light.maya_bedroom", "Maya Nursery"), ("lock.x", "Secret")])
    assert kinds(household, "nursery for maya nursery") == [("maya nursery", "home_assistant_name")]
    stored = json.loads((data / "home-assistant-names.json").read_text())
    assert stored == {"names": {"light.maya_bedroom": "Maya Nursery"}}  # never off-allowlist
    assert os.stat(data / "home-assistant-names.json").st_mode & 0o777 == 0o600


def test_a_corrupt_words_file_leaves_the_grammars_working(tmp_path, device):
    data = tmp_path / "data"
    data.mkdir()
    (data / "private-words.json").write_text("not json")
    household = sources(tmp_path, device)
    assert kinds(household, "mail jane@example.com") == [("jane@example.com", "email_address")]


async def test_doctor_reports_a_corrupt_or_open_words_file(tmp_path):
    path = tmp_path / "private-words.json"
    [fine] = await check_private_words(DoctorConfig(data_dir=tmp_path))
    assert fine.ok
    path.write_text('{"words": 3}')
    [corrupt] = await check_private_words(DoctorConfig(data_dir=tmp_path))
    assert not corrupt.ok and "not valid" in corrupt.detail and corrupt.fix
    path.write_text('{"words": ["Maya"]}')
    path.chmod(0o644)
    [open_file] = await check_private_words(DoctorConfig(data_dir=tmp_path))
    assert not open_file.ok and "chmod 600" in open_file.detail


def test_the_cli_adds_lists_and_removes_words(tmp_path):
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path)]
    added = runner.invoke(main, ["private-words", "add", "Juniper Lane", "Maya Okafor", *data])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(main, ["private-words", "list", *data])
    assert listed.output.splitlines() == ["Juniper Lane", "Maya Okafor"]
    removed = runner.invoke(main, ["private-words", "remove", "maya okafor", *data])
    assert removed.exit_code == 0
    assert runner.invoke(main, ["private-words", "list", *data]).output.splitlines() == [
        "Juniper Lane"
    ]
    refused = runner.invoke(main, ["private-words", "add", "x", *data])
    assert refused.exit_code != 0 and "two letters" in refused.output


def test_the_cli_refuses_to_overwrite_a_corrupt_file(tmp_path):
    path = tmp_path / "private-words.json"
    path.write_text("[")
    result = CliRunner().invoke(main, ["private-words", "add", "Maya", "--data-dir", str(tmp_path)])
    assert result.exit_code != 0 and "Fix or remove it first" in result.output
    assert path.read_text() == "["
    listed = CliRunner().invoke(main, ["private-words", "list", "--data-dir", str(tmp_path)])
    assert listed.exit_code == 1
