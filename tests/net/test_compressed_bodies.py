"""Compressed bodies: every gzip member decoded within the cap; a stream cut before its end
(gzip trailer, zlib end, brotli's last meta-block) is reported truncated, never complete."""

from __future__ import annotations

import zlib

import brotli
import pytest

from sovereign.net import FetchFailed
from sovereign.net.decode import decoder_for

from .support import LoopbackServer, invoke_fetch, respond
from .test_fetch_loopback import make_registry, url

TEXT = b"<html><body>" + b"".join(
    b"<p>Paragraph %d of a compressed page, long enough to matter.</p>" % i for i in range(60)
) + b"</body></html>"


def gzip_member(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def encode(encoding: str, data: bytes) -> bytes:
    if encoding == "gzip":
        return gzip_member(data)
    if encoding == "deflate":
        return zlib.compress(data)
    if encoding == "deflate-raw":
        packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return packer.compress(data) + packer.flush()
    return brotli.compress(data)


def decode_all(encoding: str, body: bytes, chunk_size: int,
               limit: int = 10**7) -> tuple[bytes, bool]:
    decoder = decoder_for("deflate" if encoding == "deflate-raw" else encoding)
    out = b""
    for start in range(0, len(body), chunk_size):
        out += decoder.decode(body[start:start + chunk_size], limit - len(out) + 1)
    return out, decoder.finished() and not decoder.pending()


@pytest.mark.parametrize("members", [2, 3, 7])
@pytest.mark.parametrize("chunk_size", [1, 7, 64, 100_000])
def test_every_gzip_member_is_decoded(members: int, chunk_size: int) -> None:
    parts = [TEXT[i::members] for i in range(members)]
    body = b"".join(gzip_member(part) for part in parts)
    assert decode_all("gzip", body, chunk_size) == (b"".join(parts), True)


def test_an_empty_gzip_member_between_two_is_harmless() -> None:
    body = gzip_member(b"first ") + gzip_member(b"") + gzip_member(b"second")
    assert decode_all("gzip", body, 5) == (b"first second", True)


def test_nul_padding_after_the_last_member_is_not_a_member() -> None:
    assert decode_all("gzip", gzip_member(TEXT) + b"\0" * 512, 100) == (TEXT, True)


def test_garbage_after_a_gzip_member_is_corrupt() -> None:
    with pytest.raises(FetchFailed, match="corrupt"):
        decode_all("gzip", gzip_member(TEXT) + b"this is not gzip", 100)


def test_members_past_the_cap_are_cut_and_held() -> None:
    body = b"".join(gzip_member(TEXT) for _ in range(5))
    decoder = decoder_for("gzip")
    out = decoder.decode(body, len(TEXT) * 2 + 10)
    assert out == (TEXT * 3)[: len(TEXT) * 2 + 10]
    assert decoder.pending() and not decoder.finished()


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "deflate-raw", "br"])
def test_a_stream_cut_anywhere_before_its_end_is_not_finished(encoding: str) -> None:
    body = encode(encoding, TEXT)
    for cut in range(len(body)):  # every point, including inside the trailer
        decoded, finished = decode_all(encoding, body[:cut], 13)
        assert not finished, cut
        assert TEXT.startswith(decoded)
    assert decode_all(encoding, body, 13) == (TEXT, True)


def test_a_second_gzip_member_cut_short_is_not_finished() -> None:
    body = gzip_member(b"whole first member ") + gzip_member(TEXT)
    assert decode_all("gzip", body[:-4], 50)[1] is False


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br"])
async def test_web_fetch_reports_a_cut_stream_as_truncated(server: LoopbackServer,
                                                           encoding: str) -> None:
    cut = encode(encoding, TEXT)[:-6]  # the server's Content-Length matches what it sends
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/html",
                                            "Content-Encoding": encoding}, cut)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.result["truncated"] is True
    assert "Paragraph 0" in outcome.result["text"]


async def test_web_fetch_reads_every_member_of_a_gzip_body(server: LoopbackServer) -> None:
    body = gzip_member(b"<html><body><p>First member's paragraph.</p>") + gzip_member(
        b"<p>Second member's paragraph.</p></body></html>")
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/html",
                                            "Content-Encoding": "gzip"}, body)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.result["truncated"] is False
    assert "First member" in outcome.result["text"]
    assert "Second member" in outcome.result["text"]
