"""Strict parsing of a model-proposed URL into the one form that is checked and connected to.

Lenient URL parsers disagree about odd spellings (``\\@``, ``127.1``, ``0x7f.1``,
percent-encoded or full-width hosts), and that disagreement is how SSRF guards are
bypassed. This module follows the WHATWG host rules (percent-decoding, UTS #46
mapping, "ends in a number"), refuses what is ambiguous, and hands on a canonical
URL whose host every later parser reads the same way. :func:`parse_host` is also
what the transport applies to the host it is asked to connect to (DESIGN §3).

The canonical URL (:attr:`Target.url`) is decided here, at validation, and it is the
URL requested, byte for byte (DESIGN §4 "What the card shows is what leaves"):
scheme and host in lower case, IDNA host, default port and fragment dropped, the path
and query percent-encoded in one spelling (RFC 3986 §6.2.2: upper-case hex, unreserved
characters decoded, dot segments removed). :func:`parse_url` refuses a URL that the
HTTP library would still rewrite, so no later layer changes what the household saw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address
from urllib.parse import quote, unquote, unquote_to_bytes

import httpx
import idna

from .errors import InvalidURL, TargetRejected
from .verdict import Verdict

__all__ = ["Host", "Target", "parse_host", "parse_url"]

MAX_URL_CHARACTERS = 8192
"""Longest URL accepted, in characters (RFC 9110 §4.1 recommends supporting 8000)."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_ALLOWED_SCHEMES = {"http": 80, "https": 443}
_FORBIDDEN_URL = re.compile(r"[\x00-\x20\x7f\\]")  # controls, space, backslash
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")  # WHATWG forbidden domain
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_\-]{0,61}[a-z0-9_])?$")
_NUMERIC_LABEL = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_LITERAL = _UNRESERVED | frozenset("!$&'()*+,;=:@/")  # RFC 3986 pchar and "/"
_QUERY_LITERAL = _PATH_LITERAL | frozenset("?")
_ZONE = re.compile(r"^[A-Za-z0-9\-._~]+$")  # RFC 6874 ZoneID, once decoded


@dataclass(frozen=True)
class Host:
    """A host as it will be connected to.

    ``name`` is the ASCII form used for the ``Host`` header, TLS SNI and the
    certificate check (lower case, IDNA-encoded, no trailing dot). ``address`` is
    set for an IP literal; ``numeric`` marks a non-canonical numeric spelling
    such as ``127.1`` or ``0x7f000001``, which is never resolved or connected to.
    """

    name: str
    address: IPv4Address | IPv6Address | None = None
    numeric: bool = False


@dataclass(frozen=True)
class Target:
    """A parsed ``http``/``https`` URL: scheme, host, port and request target."""

    scheme: str
    host: Host
    port: int
    path_and_query: str

    @property
    def url(self) -> str:
        """The canonical URL (no userinfo, no fragment, default port omitted): the one
        shown for approval and the one requested."""
        host = self.host.name
        address = self.host.address
        if isinstance(address, IPv6Address):
            unscoped, _, zone = host.partition("%")
            host = f"[{unscoped}%25{zone}]" if address.scope_id else f"[{host}]"
        port = "" if self.port == _ALLOWED_SCHEMES[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{host}{port}{self.path_and_query}"


def parse_url(text: str) -> Target:
    """Parse a URL proposed for ``web.fetch``.

    Args:
        text: the URL exactly as proposed.

    Returns:
        A :class:`Target`; its ``url`` is what is requested.

    Raises:
        InvalidURL: not http/https, or malformed (whitespace, control characters,
            backslashes, a bad port, an invalid host name).
        TargetRejected: the URL carries a user name or password, or its host is a
            non-canonical numeric spelling; both are judged as destinations.
    """
    if len(text) > MAX_URL_CHARACTERS:
        raise InvalidURL(f"the URL is longer than {MAX_URL_CHARACTERS} characters")
    match = _SCHEME.match(text)
    scheme = match.group(1).lower() if match else ""
    if scheme not in _ALLOWED_SCHEMES:
        raise InvalidURL("only http and https URLs can be fetched")
    if _FORBIDDEN_URL.search(text):
        raise InvalidURL("the URL contains a space, control character or backslash")
    rest = text[len(scheme) + 1 :]
    if not rest.startswith("//"):
        raise InvalidURL("the URL must start with http:// or https://")
    authority, path_and_query = _split_authority(rest[2:])
    _userinfo, at, host_port = authority.rpartition("@")
    host_text, port = _split_port(host_port, _ALLOWED_SCHEMES[scheme])
    host = parse_host(host_text)
    if at:  # "user@host" is how "http://trusted@127.0.0.1/" disguises its destination
        raise TargetRejected(Verdict.USERINFO, host.name)
    if host.numeric:
        raise TargetRejected(Verdict.NON_CANONICAL_NUMERIC_HOST, host.name)
    target = Target(scheme, host, port, normalise_path_and_query(path_and_query))
    _require_sent_as_is(target)
    return target


def normalise_path_and_query(text: str) -> str:
    """One spelling of a path and query (RFC 3986 §6.2.2): ``/a/./%7e/../b?x=%c3%a9`` →
    ``/a/b?x=%C3%A9``.

    Percent-encodings get upper-case hex; encoded unreserved characters are decoded;
    every other character outside RFC 3986's ``pchar`` (and ``?`` in the query) is
    encoded as UTF-8; dot segments are removed from the path; an empty path is ``/``.

    Raises:
        InvalidURL: a ``%`` not followed by two hexadecimal digits.
    """
    path, question, query = text.partition("?")
    path = _remove_dot_segments(_encode(path, _PATH_LITERAL)) or "/"
    if not path.startswith("/"):
        path = "/" + path
    return path + (question + _encode(query, _QUERY_LITERAL) if question else "")


def _encode(text: str, literal: frozenset[str]) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        character = text[index]
        if character == "%":
            hex_digits = text[index + 1 : index + 3]
            if len(hex_digits) != 2 or not all(c in "0123456789abcdefABCDEF" for c in hex_digits):
                raise InvalidURL("the URL has a '%' that is not followed by two hexadecimal digits")
            decoded = chr(int(hex_digits, 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + hex_digits.upper())
            index += 3
            continue
        out.append(character if character in literal else quote(character, safe=""))
        index += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path."""
    output: list[str] = []
    segments = path.split("/")[1:] if path.startswith("/") else path.split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == "..":
            if output:
                output.pop()
            if last:
                output.append("")
        elif segment == ".":
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/" + "/".join(output)


def _require_sent_as_is(target: Target) -> None:
    """Refuse a canonical URL that the HTTP library would still change on the wire."""
    try:
        sent = httpx.URL(target.url)
    except httpx.InvalidURL:
        raise InvalidURL("the URL cannot be requested exactly as written") from None
    if sent.raw_path.decode("ascii") != target.path_and_query:
        raise InvalidURL("the URL cannot be requested exactly as written")


def _split_authority(rest: str) -> tuple[str, str]:
    end = next((i for i, c in enumerate(rest) if c in "/?#"), len(rest))
    authority, tail = rest[:end], rest[end:]
    return authority, tail.split("#", 1)[0]


def _split_port(authority: str, default: int) -> tuple[str, int]:
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            raise InvalidURL("an IPv6 address in the URL is missing its ']'")
        host, after = authority[: close + 1], authority[close + 1 :]
        if after and not after.startswith(":"):
            raise InvalidURL("unexpected text after the IPv6 address")
        port_text = after[1:] if after else ""
    else:
        host, _, port_text = authority.partition(":")
    if not port_text:
        return host, default
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise InvalidURL("the port must be a number from 1 to 65535")
    return host, int(port_text)


def parse_host(text: str) -> Host:
    """Turn the host part of a URL into the :class:`Host` that would be connected to.

    Accepts a bracketed or bare IPv6 literal (zone identifiers are kept so the
    classifier can refuse them), a canonical dotted-quad IPv4 literal, or a DNS
    name (percent-decoded, UTS #46 mapped, IDNA-encoded, labels of 1-63 octets).
    The name's total length is left to the resolver: whatever it answers is
    classified, so an over-long name cannot reach a forbidden address.

    Raises:
        InvalidURL: empty, forbidden characters, an invalid name.
    """
    if text.startswith("[") and text.endswith("]"):
        return _ipv6_literal(text[1:-1])
    if ":" in text:
        return _ipv6_literal(text)
    name = _domain_to_ascii(text)
    labels = name.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        try:
            return Host(name, IPv4Address(name))
        except ValueError:
            return Host(name, numeric=True)
    if not all(_LABEL.match(label) for label in labels):
        raise InvalidURL(f"{name[:80]!r} is not a valid host name")
    return Host(name)


def _ipv6_literal(text: str) -> Host:
    """An IPv6 literal as a URL writes it, from the URL and from the transport alike.

    A zone written ``%25<zone>`` (RFC 6874) is percent-decoded exactly once; a bare
    ``%<zone>`` (RFC 4007 text, which lenient parsers accept) is taken as written.
    Either way the address keeps its zone, so the classifier refuses it.
    """
    address_text, percent, zone = text.partition("%")
    if percent:
        if zone.startswith("25"):
            try:
                zone = unquote(zone[2:], errors="strict")
            except UnicodeDecodeError:
                zone = ""
        if not _ZONE.match(zone):
            raise InvalidURL("the IPv6 zone identifier in the URL is not valid")
    try:
        address = ip_address(f"{address_text}%{zone}" if percent else address_text)
    except ValueError:
        raise InvalidURL("the IPv6 address in the URL is not valid") from None
    if not isinstance(address, IPv6Address):
        raise InvalidURL("the IPv6 address in the URL is not valid")
    return Host(address.compressed, address)


def _domain_to_ascii(text: str) -> str:
    try:
        decoded = unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidURL("the host name is not valid UTF-8 once decoded") from None
    if not decoded.isascii():
        try:
            decoded = idna.encode(decoded, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise InvalidURL(f"the host name is not a valid international name: {exc}") from None
    name = decoded.lower()
    name = name[:-1] if name.endswith(".") else name
    if not name or _FORBIDDEN_HOST.search(name):
        raise InvalidURL("the URL has no valid host")
    return name
