"""web.fetch and ``sovereign doctor`` with the household's IPv6 prefix (home-network.json)."""

from __future__ import annotations

import functools
import json
from ipaddress import ip_interface
from pathlib import Path

import pytest

from sovereign import doctor
from sovereign.capabilities import web_fetch
from sovereign.executor import ErrorCode, Registry
from sovereign.net import AddressPolicy, StaticResolver, Verdict, read_home_prefixes
from tests.net.support import Recorder, invoke_fetch

DEVICE = [ip_interface("2a02:8109:1:5::7/128"), ip_interface("192.168.1.50/24")]


def _write(data_dir: Path, document: object) -> Path:
    path = data_dir / web_fetch.HOME_NETWORK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


async def _fetch(data_dir: Path, address: str, *, with_device: bool = True):
    recorder, registry = Recorder(), Registry()
    policy = AddressPolicy(
        local_interfaces=lambda: DEVICE if with_device else [],
        home_prefixes=functools.partial(read_home_prefixes, data_dir / web_fetch.HOME_NETWORK_FILE))
    web_fetch.register(registry, resolver=StaticResolver({"box.example": [address]}),
                       address_policy=policy, connector=recorder)
    return await invoke_fetch(registry, "http://box.example/"), recorder


@pytest.mark.parametrize(
    ("address", "verdict"),
    [("2a02:8109:1:5::1", Verdict.DEVICE_NETWORK),  # the router beside a DHCPv6 /128
     ("2a02:8109:1:20::1", Verdict.HOME_NETWORK),  # an IoT network of the assumed /56
     ("2a02:8109:0:7::1", Verdict.HOME_NETWORK)],  # in the configured /48 only
)
async def test_home_addresses_are_refused_before_any_connection(
        tmp_path: Path, address: str, verdict: Verdict) -> None:
    _write(tmp_path, {"home_ipv6_prefixes": ["2a02:8109::/48"]})
    outcome, recorder = await _fetch(tmp_path, address)
    assert outcome.error_code is ErrorCode.FETCH_TARGET_REJECTED
    assert outcome.reason == str(verdict)
    assert recorder.attempts == []


async def test_a_broken_setting_refuses_ipv6_pages_and_says_why(tmp_path: Path) -> None:
    _write(tmp_path, "{not json")
    outcome, recorder = await _fetch(tmp_path, "2606:4700::1111")
    assert outcome.reason == str(Verdict.HOME_PREFIXES_UNKNOWN)
    assert recorder.attempts == []
    outcome, recorder = await _fetch(tmp_path, "93.184.215.14")
    assert outcome.error_code is ErrorCode.FETCH_FAILED  # allowed; the recorder refuses
    assert recorder.attempts == [("93.184.215.14", 80)]


async def test_register_reads_the_setting_from_the_data_directory(tmp_path: Path) -> None:
    _write(tmp_path, {"home_ipv6_prefixes": ["2a02:8109::/48"]})
    recorder, registry = Recorder(), Registry()
    web_fetch.register(registry, resolver=StaticResolver({"box.example": ["2a02:8109:0:7::1"]}),
                       connector=recorder, data_dir=tmp_path)
    outcome = await invoke_fetch(registry, "http://box.example/")
    assert outcome.reason == str(Verdict.HOME_NETWORK)
    assert recorder.attempts == []


def _home_network(tmp_path: Path) -> tuple[bool, str]:
    ok, key, values = web_fetch.check_home_network(tmp_path, lambda: DEVICE)
    return ok, web_fetch.HOME_NETWORK[key].format(**values)


def test_doctor_names_what_is_refused_as_the_home_network(tmp_path: Path) -> None:
    ok, detail = _home_network(tmp_path)
    assert ok and "2a02:8109:1:5::/64" in detail and "2a02:8109:1::/56" in detail
    assert "assumed" in detail
    _write(tmp_path, {"home_ipv6_prefixes": ["2a02:8109::/48"]})
    ok, detail = _home_network(tmp_path)
    assert ok and "2a02:8109::/48" in detail and "set in" in detail


async def test_doctor_says_the_home_network_in_the_terminal_s_language(tmp_path: Path) -> None:
    from sovereign.cli_words import CliWords

    _write(tmp_path, {"home_ipv6_prefixes": ["2a02:8109::/48"]})
    config = doctor.DoctorConfig(data_dir=tmp_path, words=CliWords("de"))
    [finding] = await doctor.check_home_ipv6(config)
    assert finding.ok and finding.detail.startswith("als Heimnetz abgewiesen: ")
    assert finding.detail.endswith(f"(festgelegt in {tmp_path / web_fetch.HOME_NETWORK_FILE})")
    _write(tmp_path, {"home_ipv6_prefixes": ["10.0.0.0/8"]})
    config = doctor.DoctorConfig(data_dir=tmp_path, words=CliWords("es"))
    [broken] = await doctor.check_home_ipv6(config)
    assert not broken.ok and "no se puede usar" in broken.detail


async def test_doctor_fails_on_a_broken_setting_with_a_fix(tmp_path: Path) -> None:
    _write(tmp_path, {"home_ipv6_prefixes": ["10.0.0.0/8"]})
    [finding] = await doctor.check_home_ipv6(doctor.DoctorConfig(data_dir=tmp_path))
    assert not finding.ok and "entry 1" in finding.detail and finding.fix
    assert doctor.check_home_ipv6 in doctor.CHECKS
