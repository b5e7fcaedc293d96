"""Bytes to text: BOM, Content-Type charset, ``<meta>`` declaration, then detection (DESIGN §3).

Labels are read the way browsers read them (WHATWG Encoding): ``iso-8859-1`` and
``us-ascii`` mean windows-1252, ``shift_jis`` means windows-31j (cp932), and so
on, so that pages decode as their authors saw them. A byte-order mark wins over
any label, as in browsers; an unknown label is ignored rather than trusted.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

__all__ = ["codec_for", "decode_body"]

_WHATWG_LABELS = {
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "l1": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "iso-8859-9": "cp1254",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(
    rb"<meta[^>]{0,512}?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:\-]{1,40})", re.IGNORECASE
)
_META_WINDOW = 16384  # bytes of the document searched for a <meta> declaration
_DETECT_WINDOW = 65536  # bytes given to charset detection


def codec_for(label: str | None) -> str | None:
    """Python codec name for a charset label, or ``None`` when the label is unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _WHATWG_LABELS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode_body(body: bytes, header_charset: str | None, *, html: bool) -> str:
    """Decode ``body`` to text; undecodable bytes become U+FFFD, never an error.

    Order: byte-order mark; the Content-Type ``charset``; for HTML, a ``<meta
    charset>`` or ``http-equiv`` declaration; valid UTF-8; charset detection;
    windows-1252 as the last resort.
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace")
    codec = codec_for(header_charset)
    if codec is None and html:
        match = _META_CHARSET.search(body[:_META_WINDOW])
        codec = codec_for(match.group(1).decode("ascii")) if match else None
        if codec in ("utf-16-le", "utf-16-be", "utf-16"):
            codec = "utf-8"  # a <meta> cannot truthfully declare UTF-16 (WHATWG)
    return body.decode(codec or _guess(body), errors="replace")


def _guess(body: bytes) -> str:
    try:
        codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(body[:_DETECT_WINDOW]).best()
    return codec_for(best.encoding if best else None) or "cp1252"
