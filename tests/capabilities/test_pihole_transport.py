"""The household HTTP boundary (Pi-hole, Home Assistant): every transport error is mapped."""

from __future__ import annotations

import httpx
import pytest

from sovereign.capabilities._household_http import _TRANSPORT_ERRORS, describe_transport_error

CANARY = "canary-in-exception-text"


def all_subclasses(base: type) -> list[type]:
    found = []
    for sub in base.__subclasses__():
        found += [sub, *all_subclasses(sub)]
    return found


TRANSPORT_ERRORS = [httpx.HTTPError, *all_subclasses(httpx.HTTPError)]
TRANSPORT_ERRORS = [cls for cls in TRANSPORT_ERRORS if cls.__module__.startswith("httpx")]


def build(cls: type) -> Exception:
    if cls is httpx.HTTPStatusError:
        request = httpx.Request("GET", "http://h/" + CANARY)
        return cls(CANARY, request=request, response=httpx.Response(500, request=request))
    return cls(CANARY)


@pytest.mark.parametrize("error_class", TRANSPORT_ERRORS, ids=lambda cls: cls.__name__)
def test_every_httpx_error_gets_a_phrase_from_the_table_not_its_own_text(error_class):
    phrase = describe_transport_error(build(error_class))
    assert phrase in {phrase for _, phrase in _TRANSPORT_ERRORS}
    assert CANARY not in phrase


@pytest.mark.parametrize("error_class", [OSError, ConnectionResetError, TimeoutError])
def test_os_errors_are_mapped_too(error_class):
    assert describe_transport_error(error_class(CANARY)) == "the network failed"


def test_timeouts_are_told_apart_from_refusals():
    assert "timed out" in describe_transport_error(httpx.ConnectTimeout(""))
    assert "refused" in describe_transport_error(httpx.ConnectError(""))
