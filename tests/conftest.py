"""Shared test helpers: the path of the read-only shared fixtures."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``shared`` folder beside the repository (fixtures, spec)."""
    if not SHARED.is_dir():
        pytest.fail(f"shared fixtures not found at {SHARED}")
    return SHARED
