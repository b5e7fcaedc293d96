"""Bounded decoding of a response body's Content-Encoding (DESIGN §3 rule 6).

A decoder never returns more than it is asked for, so a gzip or brotli bomb costs
at most the byte cap in memory. Every member of a gzip body is decoded (RFC 1952 §2.2:
a gzip file is a series of members, read as their concatenation), and a decoder knows
whether its stream reached its end (:meth:`BodyDecoder.finished`): a body cut before
the gzip trailer, the end of the zlib stream or brotli's last meta-block is reported
truncated by the caller, never complete. One encoding at most: stacked encodings
(e.g. ``gzip, gzip``) are refused, as are encodings other than gzip, deflate and br.
"""

from __future__ import annotations

import zlib
from typing import Protocol

import brotli

from .errors import FetchFailed

__all__ = ["BodyDecoder", "decoder_for"]


class BodyDecoder(Protocol):
    """Turns raw body chunks into decoded bytes, never more than ``limit`` per call."""

    def decode(self, chunk: bytes, limit: int) -> bytes:
        """Decode ``chunk``; returns at most ``limit`` bytes (more may be pending)."""
        ...

    def pending(self) -> bool:
        """True when output was held back by the limit."""
        ...

    def finished(self) -> bool:
        """True when the encoded stream reached its proper end (always, for identity)."""
        ...


_CORRUPT = "the compressed response body is corrupt"


class _Identity:
    def __init__(self) -> None:
        self._held = False

    def decode(self, chunk: bytes, limit: int) -> bytes:
        self._held = len(chunk) > limit
        return chunk[:limit]

    def pending(self) -> bool:
        return self._held

    def finished(self) -> bool:
        return True


class _Zlib:
    """gzip (every member) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._members = wbits > zlib.MAX_WBITS  # gzip: a series of members
        self._inflate = zlib.decompressobj(wbits)
        self._held = b""  # input not decoded yet because the output limit was reached
        self._started = False

    def decode(self, chunk: bytes, limit: int) -> bytes:
        data, self._held = self._held + chunk, b""
        out = bytearray()
        while data and len(out) < limit:
            if self._inflate.eof:
                data = self._next_member(data)
                continue
            out += self._inflate_some(data, max(limit - len(out), 1))
            if self._inflate.eof:
                data = self._inflate.unused_data
            else:
                self._held, data = self._inflate.unconsumed_tail, b""
        self._held += data
        return bytes(out[:limit])

    def _inflate_some(self, data: bytes, limit: int) -> bytes:
        try:
            out = self._inflate.decompress(data, limit)
        except zlib.error:
            if self._started or self._wbits != zlib.MAX_WBITS:
                raise FetchFailed(_CORRUPT) from None
            self._wbits = -zlib.MAX_WBITS  # "deflate" sent raw, without the zlib header
            self._inflate = zlib.decompressobj(self._wbits)
            return self._inflate_some(data, limit)
        self._started = True
        return out

    def _next_member(self, data: bytes) -> bytes:
        """After a complete stream: a gzip member starts again; padding is dropped."""
        if not self._members or not data.strip(b"\0"):
            return b""  # deflate is one stream; NUL padding after gzip is no member
        self._inflate = zlib.decompressobj(self._wbits)
        return data

    def pending(self) -> bool:
        return bool(self._held)

    def finished(self) -> bool:
        return self._inflate.eof and not self._held


class _Brotli:
    def __init__(self) -> None:
        self._inflate = brotli.Decompressor()

    def decode(self, chunk: bytes, limit: int) -> bytes:
        if self._inflate.is_finished():
            return b""  # bytes after the last meta-block are not part of the body
        try:
            out = self._inflate.process(chunk, output_buffer_limit=max(limit, 1))
        except brotli.error:
            raise FetchFailed(_CORRUPT) from None
        return out[:limit]

    def pending(self) -> bool:
        return not self._inflate.can_accept_more_data()

    def finished(self) -> bool:
        return self._inflate.is_finished()


def decoder_for(content_encoding: str | None) -> BodyDecoder:
    """The decoder for a ``Content-Encoding`` header value (``None`` = identity).

    Raises:
        FetchFailed: more than one encoding, or one other than gzip/deflate/br.
    """
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > 1:
        raise FetchFailed("the response uses stacked content encodings, which are refused")
    coding = codings[0] if codings else "identity"
    if coding == "identity":
        return _Identity()
    if coding in ("gzip", "x-gzip"):
        return _Zlib(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _Zlib(zlib.MAX_WBITS)
    if coding == "br":
        return _Brotli()
    raise FetchFailed(f"the response uses an unsupported content encoding ({coding[:40]})")
