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
from sovereign.service.strict_json import StrictJSONError, loads_strict

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
