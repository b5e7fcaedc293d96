"""The names the service answers to: parsing allowed hosts, Host headers and origins,
and ``sovereign serve --allowed-host`` (DESIGN §5)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.service.hosts import canonical_name, parse_pin, read_authority, read_origin
from sovereign.service.settings import Settings, settings_from_environment


@pytest.mark.parametrize(
    ("entry", "name"),
    [
        ("sovereign.lan", "sovereign.lan"),
        ("Sovereign.LAN", "sovereign.lan"),
        (" pi-5.home.arpa ", "pi-5.home.arpa"),
        ("192.168.1.20", "192.168.1.20"),
        ("::1", "[::1]"),
        ("[::1]", "[::1]"),
        ("fd00:0:0::0:20", "[fd00::20]"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ],
)
def test_allowed_names_are_written_as_browsers_send_them(entry, name):
    assert canonical_name(entry) == name


@pytest.mark.parametrize(
    "entry",
    [
        "",
        "*",
        "*.lan",
        "sovereign.lan.",
        "http://sovereign.lan",
        "sovereign.lan/x",
        "-pi.lan",
        "pi-.lan",
        "pi_5.lan",
        "bücher.example",
        "127.1",
        "2130706433",
        "0x7f.1",
        "a" * 64 + ".lan",
        "user@pi.lan",
        "pi lan",
        "[sovereign.lan]",
    ],
)
def test_anything_but_a_plain_name_or_address_is_refused(entry):
    with pytest.raises(ValueError, match="not a host name"):
        canonical_name(entry)


def test_an_entry_may_name_its_own_port():
    assert parse_pin("sovereign.lan", 8092) == ("sovereign.lan", 8092)
    assert parse_pin("sovereign.lan:443", 8092) == ("sovereign.lan", 443)
    assert parse_pin("[fd00::20]:80", 8092) == ("[fd00::20]", 80)
    assert parse_pin("fd00::20", 8092) == ("[fd00::20]", 8092)
    for bad in ("sovereign.lan:", "sovereign.lan:0", "sovereign.lan:65536", "pi.lan:08092"):
        with pytest.raises(ValueError):
            parse_pin(bad, 8092)


def test_host_headers_and_origins_are_read_without_rewriting():
    assert read_authority("sovereign.localhost:8092", "http") == ("sovereign.localhost", 8092)
    assert read_authority("pi.lan", "http") == ("pi.lan", 80)
    assert read_authority("pi.lan", "https") == ("pi.lan", 443)
    assert read_authority("[::1]:8092", "http") == ("[::1]", 8092)
    assert read_authority("127.1:8092", "http") == ("127.1", 8092)  # never equal to a pin
    assert read_authority("pi.lan:99999", "http") is None
    assert read_origin("http://pi.lan:8092") == ("http", ("pi.lan", 8092))
    assert read_origin("null") is None
    assert read_origin("ftp://pi.lan") is None


def test_the_service_answers_to_loopback_names_its_host_and_the_allowed_ones():
    settings = Settings(host="0.0.0.0", port=8092, allowed_hosts=("Sovereign.lan", "10.0.0.5:443"))
    assert settings.host_pins == {
        ("sovereign.localhost", 8092),
        ("localhost", 8092),
        ("127.0.0.1", 8092),
        ("[::1]", 8092),
        ("sovereign.lan", 8092),
        ("10.0.0.5", 443),
    }
    assert ("192.168.1.20", 8092) in Settings(host="192.168.1.20").host_pins
    with pytest.raises(ValueError, match="not a host name"):
        Settings(allowed_hosts=("*.lan",))


def test_the_console_url_is_the_lan_name_only_when_the_service_listens_beyond_loopback():
    assert Settings().console_url() == "http://sovereign.localhost:8092/"
    assert Settings(allowed_hosts=("pi.lan",)).console_url() == "http://sovereign.localhost:8092/"
    lan = Settings(host="0.0.0.0", allowed_hosts=("pi.lan", "10.0.0.5"))
    assert lan.console_url("https") == "https://pi.lan:8092/"
    assert Settings(host="0.0.0.0", allowed_hosts=("pi.lan:443",)).console_url("https") == (
        "https://pi.lan/"
    )


def test_allowed_hosts_come_from_the_environment_unless_given(monkeypatch):
    monkeypatch.setenv("SOVEREIGN_ALLOWED_HOSTS", "pi.lan, 10.0.0.5  pi.home.arpa")
    assert settings_from_environment().allowed_hosts == ("pi.lan", "10.0.0.5", "pi.home.arpa")
    given = settings_from_environment(allowed_hosts=("other.lan",))
    assert given.allowed_hosts == ("other.lan",)


def no_binding(monkeypatch) -> list:
    """Record what serve would bind instead of binding it (the tests' machine is shared)."""
    bound: list = []
    monkeypatch.setattr(
        "sovereign.service.commands.bind_listeners",
        lambda addresses, port: bound.append((addresses, port)) or [],
    )
    return bound


def test_serve_prints_the_console_url_and_refuses_a_malformed_allowed_host(tmp_path, monkeypatch):
    ran: list = []
    monkeypatch.setattr(
        "sovereign.service.server.serve_forever", lambda config, sockets: ran.append(config)
    )
    no_binding(monkeypatch)
    monkeypatch.delenv("SOVEREIGN_ALLOWED_HOSTS", raising=False)
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))  # serve sets it; undone after
    runner = CliRunner()
    base = ["serve", "--backend", "scripted", "--data-dir", str(tmp_path)]
    bad = runner.invoke(main, [*base, "--allowed-host", "*.lan"])
    assert bad.exit_code == 2 and "not a host name" in bad.output and ran == []
    good = runner.invoke(main, [*base, "--host", "0.0.0.0", "--allowed-host", "pi.lan"])
    assert good.exit_code == 0, good.output
    assert "Console: http://pi.lan:8092/" in good.output
    assert "First run: set the owner password at http://pi.lan:8092/#setup=" in good.output
    local = runner.invoke(main, base)
    assert "http://sovereign.localhost:8092/#setup=" in local.output


def test_serve_reads_host_port_and_allowed_hosts_from_the_environment(tmp_path, monkeypatch):
    ran: list = []
    monkeypatch.setattr(
        "sovereign.service.server.serve_forever", lambda config, sockets: ran.append(config)
    )
    bound = no_binding(monkeypatch)
    monkeypatch.setenv("SOVEREIGN_HOST", "0.0.0.0")
    monkeypatch.setenv("SOVEREIGN_PORT", "8443")
    monkeypatch.setenv("SOVEREIGN_ALLOWED_HOSTS", "sovereign.lan")
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))  # serve sets it; undone after
    result = CliRunner().invoke(
        main, ["serve", "--backend", "scripted", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "Console: http://sovereign.lan:8443/" in result.output
    assert len(ran) == 1
    assert bound == [(["0.0.0.0", "::1"], 8443)]  # IPv4's wildcard leaves ::1 to anyone
