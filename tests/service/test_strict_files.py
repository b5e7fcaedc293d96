"""The service's own files are read strictly: a policy file with a byte-order mark, a
repeated or unknown key, NaN or another encoding means off and is reported; a
password file like that lets nobody in."""

from __future__ import annotations

import codecs
import json

import pytest

from sovereign.doctor import DoctorConfig, check_policy
from sovereign.service.owner import OwnerAccount
from sovereign.service.policy import PolicyStore
from sovereign.strict_json import StrictJSONError, loads_strict

from .conftest import CHEAP_HASHER

ON = '{"web_search_enabled": true}'
CORRUPT = {
    "utf-8 bom": (codecs.BOM_UTF8 + ON.encode(), "byte-order mark"),
    "utf-16-le bom": (codecs.BOM_UTF16_LE + ON.encode("utf-16-le"), "byte-order mark"),
    "utf-16-be bom": (codecs.BOM_UTF16_BE + ON.encode("utf-16-be"), "byte-order mark"),
    "utf-32-le bom": (codecs.BOM_UTF32_LE + ON.encode("utf-32-le"), "byte-order mark"),
    "utf-16 without bom": (ON.encode("utf-16-le"), "not valid JSON"),
    "latin-1 byte": (b'{"web_search_enabled": true, "\xe9": 1}', "not UTF-8"),
    "repeated key, last true": (
        b'{"web_search_enabled": false, "web_search_enabled": true}',
        "repeats the key 'web_search_enabled'",
    ),
    "repeated key, same value": (
        b'{"web_search_enabled": true, "web_search_enabled": true}',
        "repeats the key",
    ),
    "repeated key, nested": (b'{"web_search_enabled": true, "x": {"a": 1, "a": 2}}', "repeats"),
    "unknown key": (b'{"web_search_enabled": true, "web_search_enabled ": false}', "exactly"),
    "NaN": (b'{"web_search_enabled": true, "x": NaN}', "NaN"),
    "Infinity": (b'{"web_search_enabled": true, "x": -Infinity}', "-Infinity"),
    "two documents": (ON.encode() + b" " + ON.encode(), "not valid JSON"),
    "a bare true": (b"true", "exactly"),
    "a string": (b'"true"', "exactly"),
}


def write_policy(tmp_path, raw: bytes) -> None:
    path = tmp_path / "capabilities" / "policy.json"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(raw)


@pytest.mark.parametrize(("raw", "reason"), CORRUPT.values(), ids=CORRUPT.keys())
async def test_a_policy_file_with_more_than_one_meaning_is_off_and_reported(tmp_path, raw, reason):
    write_policy(tmp_path, raw)
    store = PolicyStore(tmp_path)
    reading = store.read(log=False)
    assert reading.web_search_enabled is False
    assert reason in reading.problem
    assert store.turn_policy() == {"external_enabled": False}
    [finding] = await check_policy(DoctorConfig(data_dir=tmp_path))
    assert not finding.ok and reason in finding.detail and finding.fix


@pytest.mark.parametrize("raw", [ON.encode(), b'\n{ "web_search_enabled" : true }\n'])
def test_the_file_the_service_writes_still_reads_as_on(tmp_path, raw):
    write_policy(tmp_path, raw)
    assert PolicyStore(tmp_path).read(log=False).web_search_enabled is True


def test_strict_reading_keeps_what_plain_json_keeps():
    assert loads_strict(b'{"a": [1, 2.5, "\\u00e9", null]}') == {"a": [1, 2.5, "é", None]}
    with pytest.raises(StrictJSONError):
        loads_strict(b'{"a": 1, "a": 1}')


@pytest.mark.parametrize("name", ["utf-8 bom", "repeated key, last true"])
def test_a_password_file_with_more_than_one_meaning_lets_nobody_in(tmp_path, name):
    owner = OwnerAccount(tmp_path, CHEAP_HASHER)
    owner.set_password("the real password")
    good = owner.path.read_bytes()
    if name == "utf-8 bom":
        owner.path.write_bytes(codecs.BOM_UTF8 + good)
    else:
        other = CHEAP_HASHER.hash("an attacker's password").encode()
        body = good.rstrip()
        assert body.endswith(b"}")
        owner.path.write_bytes(body[:-1] + b', "password_hash": "' + other + b'"}')
        assert json.loads(owner.path.read_bytes())["password_hash"] == other.decode()
    assert owner.is_set_up()  # setup cannot overwrite it either
    assert not owner.verify("the real password")
    assert not owner.verify("an attacker's password")


# Files the household edits by hand, and the other stores: one meaning or none.
REPEATED = {
    "home-assistant.json": (
        b'{"enabled": false, "base_url": "http://127.0.0.1:8123", "token": "t", '
        b'"allowlist": [], "enabled": true}'
    ),
    "private-words.json": b'{"words": ["maya"], "words": []}',
    "capabilities/sites.json": b'{"mode": "block", "allow": [], "block": ["a.example"], '
    b'"mode": "off"}',
    "capabilities/search.json": b'{"language": "de", "safesearch": 2, "safesearch": 0}',
}


def _write(tmp_path, name: str, raw: bytes) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    path.chmod(0o600)


def test_home_assistant_settings_with_a_repeated_key_mean_off(tmp_path):
    from sovereign.capabilities.home_assistant import home_assistant_policy

    _write(tmp_path, "home-assistant.json", REPEATED["home-assistant.json"])
    assert home_assistant_policy(tmp_path) == {"home_assistant_enabled": False}


def test_a_repeated_key_in_a_settings_file_is_named(tmp_path):
    from sovereign.capabilities._settings import SettingsError, read_private_json

    _write(tmp_path, "pihole.json", b'{"password": "a", "password": "b"}')
    with pytest.raises(SettingsError, match="repeats the key 'password'"):
        read_private_json(tmp_path / "pihole.json")


def test_private_words_with_a_repeated_key_are_reported_as_corrupt(tmp_path):
    from sovereign.service.private_words import PrivateWordsStore

    _write(tmp_path, "private-words.json", REPEATED["private-words.json"])
    reading = PrivateWordsStore(tmp_path).read(log=False)
    assert reading.problem


@pytest.mark.parametrize("name", ["capabilities/sites.json", "capabilities/search.json"])
def test_egress_settings_with_a_repeated_key_are_reported_and_use_defaults(tmp_path, name):
    from sovereign.service.egress_settings import SearchSettingsStore, SiteListStore

    _write(tmp_path, name, REPEATED[name])
    store = SiteListStore(tmp_path) if "sites" in name else SearchSettingsStore(tmp_path)
    reading = store.read()
    assert reading.problem and "repeats the key" in reading.problem
