"""What guards what leaves the device: pure functions over arguments (DESIGN §1, §4).

Imports nothing of ours. :func:`require_visible` / :func:`visible_text` apply the
visible-character rule (docs/decisions/visible-arguments.md) to every argument that
an external capability sends. :func:`find_identifiers` / :func:`check_arguments` are
the household-identifier check (docs/decisions/household-identifiers.md): spans of an
outgoing query or URL that look like household details, each with a :class:`Flag`
kind from :data:`KINDS`, given the household's sources compiled into a
:class:`Household`.
"""

from .addresses import FACTORY_DEFAULTS, HOUSEHOLD_V4, HOUSEHOLD_V6
from .household import FACTORY_NAMES, HOME_SUFFIXES, Household
from .identifiers import KINDS, REASONS, Flag, check_arguments, find_identifiers
from .ignorable import DEFAULT_IGNORABLE_RANGES, is_default_ignorable
from .visible import UNICODE_VERSION, Invisible, find_invisible, require_visible, visible_text

__all__ = [
    "DEFAULT_IGNORABLE_RANGES",
    "FACTORY_DEFAULTS",
    "FACTORY_NAMES",
    "HOME_SUFFIXES",
    "HOUSEHOLD_V4",
    "HOUSEHOLD_V6",
    "KINDS",
    "REASONS",
    "UNICODE_VERSION",
    "Flag",
    "Household",
    "Invisible",
    "check_arguments",
    "find_identifiers",
    "find_invisible",
    "is_default_ignorable",
    "require_visible",
    "visible_text",
]
