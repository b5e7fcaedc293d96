"""What guards what leaves the device: pure functions over arguments (DESIGN §1, §4).

Imports nothing of ours. :func:`require_visible` / :func:`visible_text` apply the
visible-character rule (docs/decisions/visible-arguments.md) to every argument that
an external capability sends.
"""

from .ignorable import DEFAULT_IGNORABLE_RANGES, is_default_ignorable
from .visible import UNICODE_VERSION, Invisible, find_invisible, require_visible, visible_text

__all__ = [
    "DEFAULT_IGNORABLE_RANGES",
    "UNICODE_VERSION",
    "Invisible",
    "find_invisible",
    "is_default_ignorable",
    "require_visible",
    "visible_text",
]
