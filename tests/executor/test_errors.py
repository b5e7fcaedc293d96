"""Every error code is mapped: audit outcome, HTTP status, a message (STYLE habit 10)."""

from __future__ import annotations

import pytest

from sovereign.executor import CODES, ErrorCode, OutcomeKind


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_has_an_outcome_a_status_and_a_summary(code):
    info = CODES[code]
    assert isinstance(info.kind, OutcomeKind)
    assert 400 <= info.http_status <= 599
    assert info.summary


def test_no_code_is_mapped_to_executed():
    assert all(info.kind is not OutcomeKind.EXECUTED for info in CODES.values())
