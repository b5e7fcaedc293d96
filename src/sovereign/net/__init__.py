"""SSRF-safe retrieval of one web page and its text (DESIGN §3). Imports nothing of ours.

* :func:`classify` (``policy``) alone decides whether an address may be contacted.
* :class:`PinnedTransport` (``transport``) resolves once, checks every address and
  connects to a checked one; TLS and ``Host`` stay on the name.
* :func:`fetch` (``fetch``) never follows redirects, allows three content types and
  caps bytes and time; :func:`extract_text` (``extract``) turns the body into text.
"""

from .errors import FetchError, FetchFailed, InvalidURL, TargetRejected, translate
from .extract import LINKS_HEADING, PageText, extract_text, main_text, page_text, read_html
from .fetch import ALLOWED_MEDIA_TYPES, REQUEST_HEADERS, FetchLimits, Page, fetch, redirect_target
from .home import HOME_PREFIXES_KEY, home_networks, parse_home_prefixes, read_home_prefixes
from .policy import (
    AddressPolicy,
    IPAddress,
    IPInterface,
    classify,
    classify_host,
    device_interfaces,
    fixed_verdict,
)
from .resolver import Resolver, StaticResolver, SystemResolver
from .transport import GuardedBackend, PinnedTransport, admit
from .url import Host, Target, parse_host, parse_url
from .verdict import Verdict

__all__ = [
    "ALLOWED_MEDIA_TYPES",
    "HOME_PREFIXES_KEY",
    "LINKS_HEADING",
    "REQUEST_HEADERS",
    "AddressPolicy",
    "FetchError",
    "FetchFailed",
    "FetchLimits",
    "GuardedBackend",
    "Host",
    "IPAddress",
    "IPInterface",
    "InvalidURL",
    "Page",
    "PageText",
    "PinnedTransport",
    "Resolver",
    "StaticResolver",
    "SystemResolver",
    "Target",
    "TargetRejected",
    "Verdict",
    "admit",
    "classify",
    "classify_host",
    "device_interfaces",
    "extract_text",
    "fetch",
    "fixed_verdict",
    "home_networks",
    "main_text",
    "page_text",
    "parse_home_prefixes",
    "parse_host",
    "parse_url",
    "read_home_prefixes",
    "read_html",
    "redirect_target",
    "translate",
]
