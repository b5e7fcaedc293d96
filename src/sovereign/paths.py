"""Where the service keeps its data.

The data directory is ``$SOVEREIGN_DATA_DIR`` when set, else the per-user data
directory (``~/.local/share/sovereign`` on Linux). The appliance sets
``SOVEREIGN_DATA_DIR=/data/sovereign``.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV_DATA_DIR = "SOVEREIGN_DATA_DIR"


def data_dir() -> Path:
    """The data directory as a Path (not created here)."""
    configured = os.environ.get(ENV_DATA_DIR)
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_data_dir("sovereign", appauthor=False))
