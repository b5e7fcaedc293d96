"""The production capabilities, for what they declare beside them (phrases, fact sheets)."""

from __future__ import annotations

import pytest

from sovereign.service.settings import Settings
from sovereign.service.wiring import build_registry


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("data")))


@pytest.fixture(scope="module")
def capabilities(registry):
    return {capability.name: capability for capability in registry}
