"""Every case of tests/fixtures/ssrf/corpus.jsonl, through the executor with web.fetch v1.

The resolver is mocked from ``resolves_to``; the socket layer is a :class:`Recorder`
that opens no socket. Refused cases must carry the right code and leave no
connection attempt; allowed cases may only ever try their ``connect_to`` addresses.
"""

from __future__ import annotations

import gzip
import json
from ipaddress import ip_address, ip_interface
from typing import Any

import pytest

from sovereign.capabilities import web_fetch
from sovereign.executor import ErrorCode, OutcomeKind, Registry
from sovereign.net import AddressPolicy, FetchFailed, FetchLimits
from tests.fixtures import SSRF

from .support import Recorder, ScriptedStream, invoke_fetch, response_head

CORPUS = SSRF / "corpus.jsonl"
CASES = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
CHUNK = 64 * 1024
CAP = 2 * 1024 * 1024

EXPECTED_CODES = {
    "scheme": {ErrorCode.INVALID_ARGUMENTS},
    "target": {ErrorCode.FETCH_TARGET_REJECTED},
    "malformed": {ErrorCode.INVALID_ARGUMENTS, ErrorCode.FETCH_TARGET_REJECTED},
    "network": {ErrorCode.FETCH_FAILED},
    "content": {ErrorCode.FETCH_FAILED},
}


class SequenceResolver:
    """Answers successive look-ups with successive entries (DNS rebinding); counts them."""

    def __init__(self, host: str, answers: list[list[str]]) -> None:
        self.host, self.answers, self.lookups = host, answers, 0

    async def resolve(self, host: str) -> list[Any]:
        answer = self.answers[min(self.lookups, len(self.answers) - 1)]
        self.lookups += 1
        if not answer:
            raise FetchFailed(f"the host name {host} could not be resolved")
        return [ip_address(a) for a in answer]


def _resolver(case: dict[str, Any]) -> SequenceResolver:
    answers = case.get("resolves_to_sequence") or [case.get("resolves_to") or []]
    return SequenceResolver(case["url"], answers)


def _policy(case: dict[str, Any]) -> AddressPolicy:
    interfaces = [ip_interface(i) for i in (case.get("env") or {}).get("local_interfaces", [])]
    return AddressPolicy(local_interfaces=lambda: interfaces)


def _gzip_bomb() -> list[bytes]:
    data = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def _endless_chunks() -> Any:
    piece = b"<p>" + b"x" * (CHUNK - 7) + b"</p>"
    while True:
        yield b"%x\r\n%s\r\n" % (len(piece), piece)


def _nested_gzip(depth: int) -> bytes:
    data = b"<html><body>deep</body></html>"
    for _ in range(depth):
        data = gzip.compress(data)
    return data


def _scripted(case: dict[str, Any]) -> ScriptedStream | None:
    mock = case.get("mock_response")
    if mock is None:
        return None
    headers = dict(mock.get("headers", {}))
    body: Any = [mock.get("body", "").encode()]
    if case["id"] == "ssrf-RSP-017":
        body = _endless_chunks()
    elif case["id"] == "ssrf-RSP-019":
        body = _gzip_bomb()
    elif case["id"] == "ssrf-RSP-015":
        body = [_nested_gzip(8)]
    if "Transfer-Encoding" not in headers:
        headers["Content-Length"] = str(sum(len(b) for b in body))
    return ScriptedStream(response_head(f"{mock['status']} X", headers), body)


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['id']}-{case['expect']}-{case['category']}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
async def test_corpus_case(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (case.get("env") or {}).items():
        if name.isupper():
            monkeypatch.setenv(name, value)
    stream = _scripted(case)
    recorder, resolver = Recorder(stream), _resolver(case)
    registry = Registry()
    web_fetch.register(
        registry, resolver=resolver, address_policy=_policy(case), connector=recorder,
        limits=FetchLimits(max_download_bytes=CAP, max_body_bytes=CAP, deadline_seconds=5),
    )
    outcome = await invoke_fetch(registry, case["url"])

    attempted = [host for host, _ in recorder.attempts]
    assert resolver.lookups <= 1, "a host must be looked up at most once"
    if case["expect"] == "reject":
        assert outcome.error_code in EXPECTED_CODES[case["stage"]], outcome
        if case["stage"] != "content":
            assert attempted == [], f"a refused case connected to {attempted}"
        return
    assert attempted, f"an allowed case never tried to connect: {outcome}"
    assert set(attempted) <= set(case["connect_to"]), attempted
    if stream is None:
        assert outcome.error_code is ErrorCode.FETCH_FAILED, outcome
        return
    _check_response_case(case, outcome, stream)


def _check_response_case(case: dict[str, Any], outcome: Any, stream: ScriptedStream) -> None:
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    expected = dict(case["expect_result"])
    expected.pop("must_not_connect", None)
    max_read = expected.pop("max_body_bytes_read", None)
    for key, value in expected.items():
        assert outcome.result[key] == value, (key, outcome.result)
    if case["id"] == "ssrf-RSP-019":
        assert stream.body_bytes_read == 0, "a redirect body must not be read"
    elif max_read is not None:
        assert stream.body_bytes_read <= CAP + 2 * CHUNK  # one read ahead, chunk framing


CONTENT_CASES = [c for c in CASES if c.get("stage") == "content"]


@pytest.mark.parametrize("case", CONTENT_CASES, ids=_case_id)
async def test_refused_content_is_not_read(case: dict[str, Any]) -> None:
    stream = _scripted(case)
    assert stream is not None
    registry = Registry()
    web_fetch.register(
        registry, resolver=_resolver(case), address_policy=_policy(case),
        connector=Recorder(stream),
    )
    outcome = await invoke_fetch(registry, case["url"])
    assert outcome.error_code is ErrorCode.FETCH_FAILED
    assert stream.body_bytes_read == 0, "a refused response's body was read"
    assert "refused" in outcome.message
