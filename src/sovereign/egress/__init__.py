"""What guards what leaves the device: pure functions over arguments (DESIGN §1, §4).

Imports nothing of ours. :func:`require_visible` / :func:`visible_text` apply the
visible-character rule (docs/decisions/visible-arguments.md) to every argument that
an external capability sends. :func:`find_identifiers` / :func:`check_arguments` are
the household-identifier check (docs/decisions/household-identifiers.md): spans of an
outgoing query or URL that look like household details, each with a :class:`Flag`
kind from :data:`KINDS`, given the household's sources compiled into a
:class:`Household`. :mod:`.sites` judges a host against the household's site list
for web.fetch and :mod:`.search_settings` holds the household's search language and
safe search (docs/decisions/household-egress-settings.md).
"""

from .addresses import FACTORY_DEFAULTS, HOUSEHOLD_V4, HOUSEHOLD_V6
from .household import FACTORY_NAMES, HOME_SUFFIXES, Household
from .identifiers import KINDS, REASONS, Flag, check_arguments, find_identifiers
from .ignorable import DEFAULT_IGNORABLE_RANGES, is_default_ignorable
from .refusals import SettingRefused
from .search_settings import (
    DEFAULT_SEARCH_SETTINGS,
    LANGUAGES,
    SAFESEARCH_LEVELS,
    SearchSettings,
    describe_search,
    language_name,
    parse_search_settings,
)
from .sites import (
    RuleKind,
    SiteList,
    SiteMode,
    SiteRule,
    SiteVerdict,
    judge_site,
    rule_matches,
    wildcard_problem,
)
from .visible import (
    BLANK_GLYPHS,
    UNICODE_VERSION,
    Invisible,
    find_invisible,
    require_visible,
    visible_text,
)

__all__ = [
    "BLANK_GLYPHS",
    "DEFAULT_IGNORABLE_RANGES",
    "DEFAULT_SEARCH_SETTINGS",
    "FACTORY_DEFAULTS",
    "FACTORY_NAMES",
    "HOME_SUFFIXES",
    "HOUSEHOLD_V4",
    "HOUSEHOLD_V6",
    "KINDS",
    "LANGUAGES",
    "REASONS",
    "SAFESEARCH_LEVELS",
    "UNICODE_VERSION",
    "Flag",
    "Household",
    "Invisible",
    "RuleKind",
    "SearchSettings",
    "SettingRefused",
    "SiteList",
    "SiteMode",
    "SiteRule",
    "SiteVerdict",
    "check_arguments",
    "describe_search",
    "find_identifiers",
    "find_invisible",
    "is_default_ignorable",
    "judge_site",
    "language_name",
    "parse_search_settings",
    "require_visible",
    "rule_matches",
    "visible_text",
    "wildcard_problem",
]
