"""The sandbox each unit promises (issue: the service itself on the appliance), read from
the unit files themselves, and scored by systemd-analyze where it is installed."""

from __future__ import annotations

import pytest

from .units import (
    ALL_UNITS,
    CONVERSATION_UNIT,
    LLAMA_SERVER_UNIT,
    SEARXNG_UNITS,
    SYSTEMD_ANALYZE,
    exposure,
    one,
    read_unit,
    service,
)

# Every unit: an unprivileged dynamic user that holds nothing and sees little.
COMMON = {
    "DynamicUser": "yes",
    "NoNewPrivileges": "yes",
    "CapabilityBoundingSet": "",
    "AmbientCapabilities": "",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "PrivateMounts": "yes",
    "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes",
    "ProtectKernelLogs": "yes",
    "ProtectControlGroups": "yes",
    "ProtectClock": "yes",
    "ProtectHostname": "yes",
    "ProtectProc": "invisible",
    "LockPersonality": "yes",
    "RestrictNamespaces": "yes",
    "RestrictRealtime": "yes",
    "RestrictSUIDSGID": "yes",
    "MemoryDenyWriteExecute": "yes",
    "SystemCallArchitectures": "native",
    "UMask": "0077",
}

# systemd-analyze security --offline=true: the most each unit may score (10 = unsafe).
EXPOSURE_TARGETS = {
    "sovereign-conversation.service": 2.0,
    "sovereign-llama-server.service": 2.0,
    "sovereign-searxng.service": 5.0,
    "sovereign-searxng-pull.service": 5.0,
    "sovereign-searxng-source.service": 2.5,
}


@pytest.mark.parametrize("unit", ALL_UNITS, ids=lambda p: p.name)
@pytest.mark.parametrize(("key", "expected"), sorted(COMMON.items()))
def test_every_unit_sets_the_common_sandbox(unit, key, expected):
    assert one(service(unit), key) == expected


@pytest.mark.parametrize("unit", ALL_UNITS, ids=lambda p: p.name)
def test_every_unit_filters_system_calls_to_a_service_set(unit):
    filters = service(unit)["SystemCallFilter"]
    assert filters[0] == "@system-service"
    assert set(filters[1].lstrip("~").split()) == {"@privileged", "@resources"}
    assert filters[1].startswith("~")
    assert one(service(unit), "SystemCallErrorNumber") == "EPERM"


@pytest.mark.parametrize("unit", ALL_UNITS, ids=lambda p: p.name)
def test_every_unit_keeps_its_state_in_a_directory_systemd_creates(unit):
    settings = service(unit)
    assert one(settings, "StateDirectoryMode") == "0700"
    assert "ReadWritePaths" not in settings  # nothing pre-created by hand
    assert one(settings, "StateDirectory").startswith("sovereign")


def test_conversation_service_runs_the_venv_cli_unbuffered_and_isolated():
    settings = service(CONVERSATION_UNIT)
    exe, *args = one(settings, "ExecStart").split()
    assert exe == "/opt/sovereign/venv/bin/python"
    assert args[:2] == ["-I", "-u"]  # no PYTHON* variables; the first-run link is not held back
    assert args[2:] == ["-m", "sovereign.cli", "serve"]
    assert one(settings, "EnvironmentFile") == "/etc/sovereign/conversation.env"  # required
    assert one(settings, "StateDirectory") == "sovereign"
    assert one(settings, "Restart") == "on-failure"


def test_conversation_service_may_open_only_the_sockets_it_uses():
    families = one(service(CONVERSATION_UNIT), "RestrictAddressFamilies").split()
    # AF_NETLINK: getifaddrs, through which web.fetch refuses this device's own addresses.
    assert sorted(families) == ["AF_INET", "AF_INET6", "AF_NETLINK", "AF_UNIX"]
    assert not any(f.startswith("~") for f in families)


def test_conversation_service_memory_fits_the_embedded_model():
    settings = service(CONVERSATION_UNIT)
    high, limit = (_bytes(one(settings, key)) for key in ("MemoryHigh", "MemoryMax"))
    measured = 2_242_624 * 2**10  # VmHWM with the model loaded and answering (qualification)
    assert measured * 1.25 <= high < limit <= 4 * 2**30  # headroom, yet bounded on 8 GB


def test_conversation_service_names_the_dynamic_user_the_cli_shares():
    settings = service(CONVERSATION_UNIT)
    assert one(settings, "User") == "sovereign-conversation"
    wrapper = (CONVERSATION_UNIT.parents[1] / "sovereign").read_text()
    for prop in ("User=sovereign-conversation", "DynamicUser=yes", "StateDirectory=sovereign",
                 "StateDirectoryMode=0700", "EnvironmentFile=/etc/sovereign/conversation.env"):
        assert f"--property={prop} " in wrapper, prop
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):  # the terminal's language
        assert f"--setenv={name} " in wrapper, name


def test_conversation_service_starts_after_searxng_and_wants_it():
    unit = read_unit(CONVERSATION_UNIT)["Unit"]
    assert "sovereign-searxng.service" in one(unit, "After").split()
    assert one(unit, "Wants") == "sovereign-searxng.service"


def test_the_source_unit_is_found_under_the_searxng_name():
    install = read_unit(SEARXNG_UNITS / "sovereign-searxng-source.service")["Install"]
    assert one(install, "Alias") == "sovereign-searxng.service"


@pytest.mark.parametrize("name", ["sovereign-searxng.service", "sovereign-searxng-pull.service"])
def test_the_container_client_units_reach_only_the_daemon_socket(name):
    settings = service(SEARXNG_UNITS / name)
    assert one(settings, "PrivateNetwork") == "yes"
    assert one(settings, "RestrictAddressFamilies") == "AF_UNIX"
    assert one(settings, "IPAddressDeny") == "any"
    assert one(settings, "SupplementaryGroups") == "docker"
    assert one(settings, "Environment").startswith("DOCKER_CONFIG=/var/lib/sovereign-searxng/")


def test_the_source_unit_serves_with_granian_and_no_container():
    settings = service(SEARXNG_UNITS / "sovereign-searxng-source.service")
    assert one(settings, "ExecStart") == "/opt/sovereign/deploy/searxng/start-searxng-source"
    assert "SupplementaryGroups" not in settings
    assert one(settings, "RestrictAddressFamilies").split() == ["AF_UNIX", "AF_INET", "AF_INET6"]
    assert _bytes(one(settings, "MemoryMax")) <= 512 * 2**20


def llama_server_options() -> dict[str, str | None]:
    """llama-server's command-line options in the unit: ``{"--host": "127.0.0.1", ...}``
    (``None`` for a switch)."""
    exe, *args = one(service(LLAMA_SERVER_UNIT), "ExecStart").split()
    assert exe == "/opt/sovereign/venv/bin/llama-server"  # where setup-llama-server puts it
    options: dict[str, str | None] = {}
    for arg in args:
        if arg.startswith("--"):
            assert arg not in options, f"{arg} given twice"
            options[arg] = None
            last = arg
        else:
            assert options[last] is None, f"{last} has two values"
            options[last] = arg
    return options


def test_llama_server_listens_on_loopback_and_may_talk_to_nothing_else():
    settings = service(LLAMA_SERVER_UNIT)
    assert llama_server_options()["--host"] == "127.0.0.1"
    assert llama_server_options()["--port"] == "8081"  # the openai backend's default
    assert one(settings, "IPAddressAllow") == "localhost"
    assert one(settings, "IPAddressDeny") == "any"
    assert one(settings, "RestrictAddressFamilies").split() == ["AF_INET", "AF_INET6"]


def test_llama_server_grants_no_web_page_but_the_console_and_shows_no_prompts():
    options = llama_server_options()
    assert options["--cors-origins"] == "http://sovereign.localhost:8092"
    assert "--no-cors-credentials" in options
    assert "--no-slots" in options and "--no-webui" in options  # /slots shows prompts
    assert "--jinja" in options and options["--parallel"] == "1"
    assert not {"--metrics", "--props", "--api-key", "--tools", "--agent"} & set(options)


def test_llama_server_reads_its_settings_and_model_from_files_deploy_installs():
    settings = service(LLAMA_SERVER_UNIT)
    assert one(settings, "EnvironmentFile") == "/etc/sovereign/llama-server.env"  # required
    assert one(settings, "StateDirectory") == "sovereign-llama-server"
    env = (LLAMA_SERVER_UNIT.parent / "llama-server.env").read_text().splitlines()
    values = dict(line.split("=", 1) for line in env if line and not line.startswith("#"))
    assert values["LLAMA_ARG_MODEL"].startswith("/var/lib/sovereign-llama-server/models/")
    # The unit's own options win over the file; none of them is settable there.
    assert not {"LLAMA_ARG_HOST", "LLAMA_ARG_PORT", "LLAMA_ARG_CORS_ORIGINS"} & set(values)


def test_llama_server_starts_before_the_conversation_service_and_is_bounded():
    unit = read_unit(LLAMA_SERVER_UNIT)
    assert one(unit["Unit"], "Before") == "sovereign-conversation.service"
    settings = unit["Service"]
    high, limit = (_bytes(one(settings, key)) for key in ("MemoryHigh", "MemoryMax"))
    assert 1.5 * 2**30 < high < limit <= 3 * 2**30
    assert one(settings, "Restart") == "on-failure"


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("unit", ALL_UNITS, ids=lambda p: p.name)
def test_exposure_is_at_or_under_its_target(unit):
    score = exposure(unit)
    print(f"{unit.name}: exposure {score}")
    assert score <= EXPOSURE_TARGETS[unit.name]


def _bytes(value: str) -> int:
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)
