"""Bounded decoding of a response body's Content-Encoding (DESIGN §3 rule 6).

A decoder never returns more than it is asked for, so a gzip or brotli bomb costs
at most the byte cap in memory. One encoding at most: stacked encodings (e.g.
``gzip, gzip``) are refused, as are encodings other than gzip, deflate and br.
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


class _Identity:
    def __init__(self) -> None:
        self._held = False

    def decode(self, chunk: bytes, limit: int) -> bytes:
        self._held = len(chunk) > limit
        return chunk[:limit]

    def pending(self) -> bool:
        return self._held


class _Zlib:
    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def decode(self, chunk: bytes, limit: int) -> bytes:
        data = self._inflate.unconsumed_tail + chunk
        try:
            out = self._inflate.decompress(data, max(limit, 1))
        except zlib.error:
            if self._started or self._wbits != zlib.MAX_WBITS:
                raise FetchFailed("the compressed response body is corrupt") from None
            self._wbits = -zlib.MAX_WBITS  # "deflate" sent raw, without the zlib header
            self._inflate = zlib.decompressobj(self._wbits)
            return self.decode(chunk, limit)
        self._started = True
        return out[:limit]

    def pending(self) -> bool:
        return bool(self._inflate.unconsumed_tail)


class _Brotli:
    def __init__(self) -> None:
        self._inflate = brotli.Decompressor()

    def decode(self, chunk: bytes, limit: int) -> bytes:
        try:
            out = self._inflate.process(chunk, output_buffer_limit=max(limit, 1))
        except brotli.error:
            raise FetchFailed("the compressed response body is corrupt") from None
        return out[:limit]

    def pending(self) -> bool:
        return not self._inflate.can_accept_more_data()


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
