"""Bounded decoders and the one error boundary."""

from __future__ import annotations

import inspect
import socket
import ssl
import zlib

import brotli
import httpcore
import httpx
import pytest

from sovereign.net import FetchFailed, translate
from sovereign.net.decode import decoder_for

BOMB = 64 * 1024 * 1024


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(
    ("encoding", "compressed"),
    [
        ("gzip", _gzip(b"\0" * BOMB)),
        ("deflate", zlib.compress(b"\0" * BOMB, 9)),
        ("br", brotli.compress(b"\0" * BOMB, quality=1)),
    ],
    ids=["gzip", "deflate", "br"],
)
def test_a_decoder_never_returns_more_than_asked(encoding: str, compressed: bytes) -> None:
    decoder = decoder_for(encoding)
    out = decoder.decode(compressed, 1000)
    assert len(out) <= 1000
    assert decoder.pending()


@pytest.mark.parametrize("value", [None, "", "identity", "GZIP", " br ", "deflate", "x-gzip"])
def test_single_known_encodings_are_accepted(value: str | None) -> None:
    decoder_for(value)


@pytest.mark.parametrize("value", ["gzip, gzip", "br, gzip", "deflate,br", "zstd", "compress"])
def test_stacked_or_unknown_encodings_are_refused(value: str) -> None:
    with pytest.raises(FetchFailed):
        decoder_for(value)


def test_raw_deflate_without_zlib_header_decodes() -> None:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    raw = packer.compress(b"<p>hello</p>") + packer.flush()
    assert decoder_for("deflate").decode(raw, 100) == b"<p>hello</p>"


def test_corrupt_gzip_is_a_fetch_failure() -> None:
    with pytest.raises(FetchFailed, match="corrupt"):
        decoder_for("gzip").decode(b"not gzip at all", 100)


def _exception_classes(module: object) -> list[type[BaseException]]:
    return [
        obj for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, Exception) and obj.__module__.startswith(module.__name__)  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize(
    "kind", _exception_classes(httpcore) + _exception_classes(httpx), ids=lambda k: k.__name__
)
def test_every_httpx_and_httpcore_error_is_translated(kind: type[BaseException]) -> None:
    exc = kind.__new__(kind)  # some need constructor arguments; the class is what counts
    failed = translate(exc)
    assert isinstance(failed, FetchFailed) and failed.reason


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (ssl.SSLCertVerificationError("bad cert"), "certificate"),
        (ConnectionRefusedError(111, "refused"), "refused"),
        (socket.gaierror(-2, "Name or service not known"), "resolved"),
        (TimeoutError(), "in time"),
        (OSError(113, "No route to host"), "network error"),
    ],
)
def test_os_and_tls_errors_are_translated(exc: BaseException, words: str) -> None:
    failed = translate(exc)
    assert failed is not None and words in failed.reason


def test_a_tls_error_wrapped_by_httpcore_is_named_by_its_cause() -> None:
    try:
        try:
            raise ssl.SSLCertVerificationError("self-signed certificate")
        except ssl.SSLError as cause:
            raise httpcore.ConnectError("wrapped") from cause
    except httpcore.ConnectError as exc:
        assert "certificate" in translate(exc).reason  # type: ignore[union-attr]


def test_programming_errors_are_not_disguised_as_network_failures() -> None:
    assert translate(KeyError("x")) is None
    assert translate(ValueError("x")) is None
