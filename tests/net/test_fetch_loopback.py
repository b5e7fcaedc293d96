"""web.fetch against real HTTP servers on 127.0.0.1, reached only through the test seams:
a StaticResolver maps ``pages.test`` to 127.0.0.1, and the policy allows that one address."""

from __future__ import annotations

import asyncio
import json
import time
import zlib
from collections.abc import AsyncIterator
from ipaddress import ip_address
from typing import Any

import brotli
import pytest

from sovereign.capabilities import web_fetch
from sovereign.executor import ErrorCode, OutcomeKind, Registry
from sovereign.net import AddressPolicy, FetchLimits, StaticResolver

from .support import LoopbackConnector, LoopbackServer, invoke_fetch, respond, stream_body

HOST = "pages.test"
LOOPBACK_ONLY = AddressPolicy(local_interfaces=lambda: [], unsafe_allow={ip_address("127.0.0.1")})
MiB = 1024 * 1024


def make_registry(
    limits: FetchLimits | None = None, policy: AddressPolicy = LOOPBACK_ONLY
) -> tuple[Registry, StaticResolver, LoopbackConnector]:
    resolver, connector = StaticResolver({HOST: ["127.0.0.1"]}), LoopbackConnector()
    registry = Registry()
    web_fetch.register(
        registry, resolver=resolver, address_policy=policy, connector=connector, limits=limits
    )
    return registry, resolver, connector


def url(server: LoopbackServer, path: str) -> str:
    return f"http://{HOST}:{server.port}{path}"


@pytest.mark.parametrize("status", ["301 Moved", "302 Found", "303 See Other",
                                    "307 Temporary", "308 Permanent"])
async def test_redirect_is_reported_not_followed(server: LoopbackServer, status: str) -> None:
    server.routes["/a/b"] = respond(status, {"Location": "../next?x=1"}, b"<p>moved</p>")
    registry, _, connector = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/a/b"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["redirected"] is True
    assert outcome.result["final_url"] == f"http://{HOST}:{server.port}/next?x=1"
    assert outcome.result["text"] == ""
    assert [path for path, _ in server.requests] == ["/a/b"]
    assert len(connector.attempts) == 1


async def test_redirect_to_loopback_service_is_only_reported(server: LoopbackServer) -> None:
    server.routes["/"] = respond("302 Found", {"Location": "http://127.0.0.1:8081/completion"})
    registry, _, connector = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.result["final_url"] == "http://127.0.0.1:8081/completion"
    assert connector.attempts == [("127.0.0.1", server.port)]


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("text/html; charset=utf-8", b"<html><body><p>Hello <b>there</b></p></body></html>",
         "Hello there"),
        ("text/plain", b"line one\r\nline two\n", "line one\nline two\n"),
        ("application/json", b'{"b": [1, 2], "a": "\\u00e9"}',
         '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "\\u00e9"\n}'.replace("\\u00e9", "é")),
    ],
)
async def test_allowed_content_types(
    server: LoopbackServer, content_type: str, body: bytes, expected: str
) -> None:
    server.routes["/"] = respond("200 OK", {"Content-Type": content_type}, body)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["text"] == expected
    assert outcome.result["content_type"] == content_type.split(";")[0]
    assert outcome.result["truncated"] is False


@pytest.mark.parametrize("content_type", ["image/png", "application/pdf", "application/xhtml+xml",
                                          "text/html5", None])
async def test_other_content_types_are_refused(
    server: LoopbackServer, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    server.routes["/"] = respond("200 OK", headers, b"<html>not for us</html>")
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.error_code is ErrorCode.FETCH_FAILED
    assert "content type" in outcome.message


async def _zeros_compressed(compress: object, flush: object, total: int) -> AsyncIterator[bytes]:
    block = b"\0" * MiB
    for _ in range(total // MiB):
        out = compress(block)  # type: ignore[operator]
        if out:
            yield out
        await asyncio.sleep(0)
    yield flush()  # type: ignore[operator]


@pytest.mark.parametrize("encoding", ["gzip", "br"])
async def test_decompression_bomb_is_cut_at_the_body_cap(
    server: LoopbackServer, encoding: str
) -> None:
    sent = {"compressed": 0}

    async def chunks() -> AsyncIterator[bytes]:
        if encoding == "gzip":
            packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
            source = _zeros_compressed(packer.compress, packer.flush, 1024 * MiB)
        else:
            packer = brotli.Compressor(quality=1)
            source = _zeros_compressed(packer.process, packer.finish, 1024 * MiB)
        async for piece in source:
            sent["compressed"] += len(piece)
            yield piece

    server.routes["/"] = stream_body(
        "200 OK", {"Content-Type": "text/html", "Content-Encoding": encoding}, chunks
    )
    registry, _, _ = make_registry(FetchLimits(max_body_bytes=MiB, max_download_bytes=MiB))
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["truncated"] is True


async def test_stacked_encodings_are_refused(server: LoopbackServer) -> None:
    body = zlib.compress(zlib.compress(b"<p>x</p>"))
    server.routes["/"] = respond(
        "200 OK", {"Content-Type": "text/html", "Content-Encoding": "deflate, deflate"}, body
    )
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.error_code is ErrorCode.FETCH_FAILED
    assert "stacked" in outcome.message


async def test_a_1_gib_body_is_cut_at_the_download_cap(server: LoopbackServer) -> None:
    sent = {"bytes": 0}

    async def chunks() -> AsyncIterator[bytes]:
        piece = b"<p>" + b"word " * 13106 + b"</p>\n"  # about 64 KiB of text
        while sent["bytes"] < 1024 * MiB:
            sent["bytes"] += len(piece)
            yield piece

    server.routes["/"] = stream_body("200 OK", {"Content-Type": "text/html"}, chunks)
    registry, _, _ = make_registry(FetchLimits(max_download_bytes=2 * MiB, max_body_bytes=2 * MiB))
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["truncated"] is True
    assert outcome.result["text"].startswith("word word")
    assert sent["bytes"] < 64 * MiB, "the server kept sending long after the cap"


async def test_slow_drip_is_cut_at_the_one_deadline(server: LoopbackServer) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        while True:
            yield b"x"
            await asyncio.sleep(0.05)

    server.routes["/"] = stream_body("200 OK", {"Content-Type": "text/plain"}, chunks)
    registry, _, _ = make_registry(FetchLimits(deadline_seconds=0.5))
    started = time.monotonic()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.error_code is ErrorCode.FETCH_FAILED
    assert "0.5 s" in outcome.message
    assert time.monotonic() - started < 3


JAPANESE = "日本語のテキストです。東京は晴れ。"
RUSSIAN = "Привет, мир! Это проверка кодировки."
FRENCH = "“Déjà vu” — naïve café, 50 € ‰"


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"Content-Type": "text/plain; charset=Shift_JIS"}, JAPANESE.encode("cp932"), JAPANESE),
        ({"Content-Type": "text/html"},
         b'<html><head><meta charset="shift_jis"></head><body><p>'
         + JAPANESE.encode("cp932") + b"</p></body></html>", JAPANESE),
        ({"Content-Type": "text/html"},
         b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
         b"</head><body><p>" + RUSSIAN.encode("cp1251") + b"</p></body></html>", RUSSIAN),
        ({"Content-Type": "text/plain; charset=windows-1251"}, RUSSIAN.encode("cp1251"), RUSSIAN),
        ({"Content-Type": "text/plain; charset=iso-8859-1"}, FRENCH.encode("cp1252"), FRENCH),
        ({"Content-Type": "text/plain; charset=windows-1252"}, FRENCH.encode("cp1252"), FRENCH),
        ({"Content-Type": "text/html"},
         ("<html><body><p>" + JAPANESE + RUSSIAN + FRENCH + "</p></body></html>").encode(),
         JAPANESE + RUSSIAN + FRENCH),
        ({"Content-Type": "text/plain"}, b"\xef\xbb\xbf" + FRENCH.encode(), FRENCH),
    ],
    ids=["sjis-header", "sjis-meta", "cp1251-http-equiv", "cp1251-header", "latin1-is-cp1252",
         "cp1252-header", "utf8-undeclared", "utf8-bom"],
)
async def test_charsets_decode_without_mojibake(
    server: LoopbackServer, headers: dict[str, str], body: bytes, expected: str
) -> None:
    server.routes["/"] = respond("200 OK", headers, body)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["text"] == expected


async def test_undeclared_shift_jis_is_detected(server: LoopbackServer) -> None:
    text = (JAPANESE * 20 + "\n") * 5
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain"}, text.encode("cp932"))
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.result["text"] == text


async def test_long_text_is_cut_at_a_line_to_fit_the_result_cap_and_read_on(
    server: LoopbackServer,
) -> None:
    text = ("Ünïcödé “quotes” and \"escapes\"\t日本語 🙂\n" * 6000)
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain; charset=utf-8"},
                                 text.encode())
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    result = outcome.result
    size = len(json.dumps(result, ensure_ascii=False).encode())
    assert 0.8 * 65536 <= size <= 65536
    assert result["truncated"] is True
    assert text.startswith(result["text"]) and result["text"].endswith("\n")
    assert result["next_start_index"] == len(result["text"])
    assert result["omitted_characters"] == len(text) - len(result["text"])
    following = await invoke_fetch(
        registry, url(server, "/"), start_index=result["next_start_index"])
    assert text[len(result["text"]):].startswith(following.result["text"])
    assert following.result["start_index"] == result["next_start_index"]


class RebindingResolver:
    """Answers 127.0.0.1 first and a private address after that (DNS rebinding)."""

    def __init__(self) -> None:
        self.lookups = 0

    async def resolve(self, host: str) -> list[Any]:
        self.lookups += 1
        return [ip_address("127.0.0.1" if self.lookups == 1 else "10.0.0.7")]


async def test_each_continuation_runs_every_address_check_again(server: LoopbackServer) -> None:
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain"}, b"line\n" * 30000)
    resolver, connector = RebindingResolver(), LoopbackConnector()
    registry = Registry()
    web_fetch.register(registry, resolver=resolver, address_policy=LOOPBACK_ONLY,
                       connector=connector)
    first = await invoke_fetch(registry, url(server, "/"))
    assert first.kind is OutcomeKind.EXECUTED and first.result["next_start_index"]
    again = await invoke_fetch(registry, url(server, "/"),
                               start_index=first.result["next_start_index"])
    assert again.error_code is ErrorCode.FETCH_TARGET_REJECTED
    assert resolver.lookups == 2 and len(connector.attempts) == 1


async def test_request_carries_nothing_identifying(server: LoopbackServer) -> None:
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain"}, b"ok")
    registry, resolver, _ = make_registry()
    await invoke_fetch(registry, url(server, "/"))
    (_, headers), = server.requests
    assert headers["host"] == f"{HOST}:{server.port}"
    assert headers["user-agent"].startswith("Sovereign/")
    assert not {"cookie", "referer", "accept-language", "authorization"} & set(headers)
    assert resolver.lookups == {HOST: 1}


async def test_environment_proxies_are_ignored(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = await LoopbackServer().start()
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.port}")
        monkeypatch.setenv("NO_PROXY", "")
        server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain"}, b"direct")
        registry, _, _ = make_registry()
        outcome = await invoke_fetch(registry, url(server, "/"))
        assert outcome.result["text"] == "direct"
        assert proxy.requests == []
    finally:
        await proxy.stop()


async def test_loopback_without_the_test_exception_is_refused_before_connecting(
    server: LoopbackServer,
) -> None:
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/plain"}, b"secret")
    registry, _, connector = make_registry(policy=AddressPolicy())
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.error_code is ErrorCode.FETCH_TARGET_REJECTED
    assert "deny: loopback" in outcome.message
    assert connector.attempts == [] and server.requests == []


async def test_error_status_is_a_fetch_failure(server: LoopbackServer) -> None:
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/missing"))
    assert outcome.error_code is ErrorCode.FETCH_FAILED
    assert "404" in outcome.message


async def test_refused_connection_and_unknown_name_are_fetch_failures() -> None:
    probe = await LoopbackServer().start()
    port = probe.port
    await probe.stop()  # nothing listens there now
    registry, _, _ = make_registry()
    refused = await invoke_fetch(registry, f"http://{HOST}:{port}/")
    unknown = await invoke_fetch(registry, "http://no-such-name.test/")
    assert refused.error_code is ErrorCode.FETCH_FAILED
    assert "could not connect" in refused.message or "refused" in refused.message
    assert unknown.error_code is ErrorCode.FETCH_FAILED
    assert "could not be resolved" in unknown.message
