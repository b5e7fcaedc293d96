"""Wiring of everything a running service uses: capabilities, model backend, policy.

The only place that knows which capability families exist and which model
backend each ``--backend`` name means (DESIGN §1: ``service`` wires the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sovereign.capabilities import home_assistant, pihole, system, web_fetch, web_search
from sovereign.conversation.backends.base import ModelBackend
from sovereign.executor import Registry

from .egress_settings import SearchSettingsStore, SiteListStore
from .policy import PolicyStore
from .settings import Settings

if TYPE_CHECKING:
    from sovereign.conversation.backends.embedded.load import LoadOptions


def build_registry(
    settings: Settings,
    *,
    on_home_assistant_names: Callable[[list[tuple[str, str | None]]], None] | None = None,
) -> Registry:
    """A registry holding every capability family, each through its ``register()``.

    ``on_home_assistant_names`` receives the friendly names Home Assistant reports
    (for the household-identifier check's sources).

    web.search reads the household's search settings and web.fetch its site list from
    ``settings.data_dir`` afresh on every call (:mod:`.egress_settings`).
    """
    registry = Registry()
    system.register(registry, data_path=settings.data_dir)
    pihole.register(registry, data_dir=settings.data_dir)
    home_assistant.register(
        registry, data_dir=settings.data_dir, on_names=on_home_assistant_names
    )
    search = SearchSettingsStore(settings.data_dir)
    web_search.register(registry, base_url=settings.searxng_url, search_settings=search.settings)
    sites = SiteListStore(settings.data_dir)
    fetch_options = dict(settings.unsafe_web_fetch_options or {})
    web_fetch.register(
        registry, sites=sites.site_list, data_dir=settings.data_dir, **fetch_options)
    return registry


def policy_reader(settings: Settings, store: PolicyStore) -> Callable[[], Mapping[str, bool]]:
    """A function returning the per-request policy, read fresh from disk on every call.

    ``external_enabled`` comes from the policy file (web search and fetch);
    Home Assistant's key comes from its own settings file.
    """

    def read() -> Mapping[str, bool]:
        return {**store.turn_policy(), **home_assistant.home_assistant_policy(settings.data_dir)}

    return read


def make_backend(settings: Settings) -> ModelBackend:
    """The model backend ``settings.backend`` names (imported only when chosen).

    Raises:
        ValueError: an unknown backend name.
    """
    if settings.backend == "scripted":
        from sovereign.conversation.backends.scripted import ScriptedBackend

        return ScriptedBackend()  # plays the demo script
    if settings.backend == "openai":
        from sovereign.conversation.backends.openai.backend import OpenAIBackend

        return OpenAIBackend(
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            mode=settings.tool_mode or "auto",  # the server is probed on first use
        )
    if settings.backend == "embedded":
        from sovereign.conversation.backends.embedded.backend import EmbeddedBackend

        return EmbeddedBackend(  # loads lazily, on the first message
            load=embedded_load_options(settings.model_path),
            mode="native" if settings.tool_mode == "native" else "schema",  # auto: schema
        )
    raise ValueError(f"unknown backend {settings.backend!r}")


def embedded_load_options(model_path: Path | None = None, **options: Any) -> LoadOptions:
    """How the embedded backend loads its model: ``model_path`` (a GGUF file the
    household chose, checked as GGUF) or, when ``None``, the default model at
    ``<data dir>/models/``, accepted only at its published size and SHA-256
    (:func:`sovereign.model.verify_model`; ``sovereign model install`` puts it there).

    Args:
        model_path: the household's own model file, or ``None`` for the default model.
        options: further :class:`LoadOptions` fields (``n_ctx``, ``n_threads``).
    """
    from sovereign.conversation.backends.embedded.load import LoadOptions
    from sovereign.model import DEFAULT_MODEL, default_model_path, verify_model

    if model_path is not None:
        return LoadOptions(model_path=model_path, **options)
    return LoadOptions(
        model_path=default_model_path(),
        verify=lambda path: verify_model(path, DEFAULT_MODEL),
        **options,
    )
