"""deploy/searxng: every required setting, the pinned image, the secret, the units."""

from __future__ import annotations

import configparser
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "searxng"
DIGEST = "sha256:" + "ab" * 32


@pytest.fixture(scope="module")
def settings():
    return yaml.safe_load((DEPLOY / "settings.yml").read_text())


@pytest.fixture(scope="module")
def service():
    compose = yaml.safe_load((DEPLOY / "compose.yml").read_text())
    (service,) = compose["services"].values()
    return service


def test_json_is_an_enabled_format(settings):
    assert settings["search"]["formats"] == ["html", "json"]


def test_autocomplete_limiter_and_image_proxy_are_off(settings):
    assert settings["search"]["autocomplete"] == ""
    assert settings["server"]["limiter"] is False
    assert settings["server"]["image_proxy"] is False


def test_settings_bind_loopback_8093(settings):
    assert settings["server"]["bind_address"] == "127.0.0.1"
    assert settings["server"]["port"] == 8093


def test_secret_comes_only_from_the_environment(settings, service):
    assert "secret_key" not in settings.get("server", {})
    assert "ultrasecretkey" not in (DEPLOY / "settings.yml").read_text().split("#")[0]
    assert service["environment"]["SEARXNG_SECRET"] == "${SEARXNG_SECRET:?}"


def test_nothing_is_contacted_on_searxngs_own_initiative(settings):
    assert settings["search"]["favicon_resolver"] == ""
    assert settings["valkey"]["url"] is False
    assert settings["use_default_settings"] is True  # shipped engines (RFC-0017)


def test_no_plugin_is_loaded(settings):
    assert settings["plugins"] == {}  # replaces SearXNG's default list (see test_searxng_quiet)


def test_compose_pins_the_image_by_digest_variable(service):
    assert service["image"] == "${SEARXNG_IMAGE_REPOSITORY:?}@${SEARXNG_IMAGE_DIGEST:?}"


def test_compose_serves_on_loopback_8093_through_granian(service):
    env = service["environment"]
    assert service["network_mode"] == "host"
    assert env["GRANIAN_HOST"] == "127.0.0.1"
    assert env["GRANIAN_PORT"] == "8093"
    assert "ports" not in service
    assert env["SEARXNG_LIMITER"] == "false"
    assert env["SEARXNG_IMAGE_PROXY"] == "false"


def test_compose_mounts_the_settings_read_only(service):
    assert "./settings.yml:/etc/searxng/settings.yml:ro" in service["volumes"]


def test_compose_runs_the_container_unprivileged_on_a_read_only_root(service):
    assert service["user"] == "977:977"  # the image's searxng user, never root
    assert service["read_only"] is True
    assert service["cap_drop"] == ["ALL"]
    assert "cap_add" not in service and "privileged" not in service
    assert "no-new-privileges:true" in service["security_opt"]
    assert service["environment"]["FORCE_OWNERSHIP"] == "false"


def test_compose_keeps_the_images_volumes_in_memory(service):
    mounts = {entry.split(":", 1)[0]: entry.split(":", 1)[1] for entry in service["tmpfs"]}
    assert set(mounts) == {"/etc/searxng", "/var/cache/searxng", "/tmp"}
    for path in ("/etc/searxng", "/var/cache/searxng"):
        assert "uid=977" in mounts[path] and "gid=977" in mounts[path]
    assert [v for v in service["volumes"] if not v.endswith(":ro")] == []


def test_image_env_names_the_repository_and_a_digest_variable():
    values = dict(
        line.split("=", 1)
        for line in (DEPLOY / "searxng-image.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert values["SEARXNG_IMAGE_REPOSITORY"] == "ghcr.io/searxng/searxng"
    assert "SEARXNG_IMAGE_DIGEST" in values


def test_readme_explains_granian_port():
    readme = (DEPLOY / "README.md").read_text()
    assert "GRANIAN_PORT" in readme
    assert "ignores `server.port`" in readme


@pytest.mark.parametrize(
    ("unit", "exec_start"),
    [
        ("sovereign-searxng.service", "/opt/sovereign/deploy/searxng/start-searxng"),
        ("sovereign-searxng-pull.service", "/opt/sovereign/deploy/searxng/pull-searxng"),
        ("sovereign-searxng-source.service",
         "/opt/sovereign/deploy/searxng/start-searxng-source"),
    ],
)
def test_systemd_units_parse_and_run_the_scripts(unit, exec_start):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(DEPLOY / "systemd" / unit)
    assert parser["Service"]["ExecStart"] == exec_start
    assert parser["Install"]["WantedBy"] == "multi-user.target"


def test_searxng_unit_stops_with_the_script_and_waits_for_the_pull():
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(DEPLOY / "systemd" / "sovereign-searxng.service")
    assert parser["Service"]["ExecStop"] == "/opt/sovereign/deploy/searxng/stop-searxng"
    assert "sovereign-searxng-pull.service" in parser["Unit"]["After"]
    assert "sovereign-searxng-pull.service" in parser["Unit"]["Requires"]


# --- the start and stop scripts, run with a stand-in compose command -------------------


@pytest.fixture
def stand_in(tmp_path):
    """A `compose` that records its arguments and the variables compose.yml needs."""
    record = tmp_path / "compose-calls"
    script = tmp_path / "compose"
    script.write_text(
        "#!/usr/bin/env bash\n"
        'echo "$* | $SEARXNG_IMAGE_REPOSITORY@$SEARXNG_IMAGE_DIGEST | $SEARXNG_SECRET"'
        f" >> {record}\n"
    )
    script.chmod(0o755)
    return script, record


def run_script(name, tmp_path, stand_in, **env):
    script, _ = stand_in
    environment = {
        "PATH": os.environ["PATH"],
        "SEARXNG_STATE_DIR": str(tmp_path / "state"),
        "COMPOSE": str(script),
        "DOCKER": str(script),
        **env,
    }
    return subprocess.run(
        [str(DEPLOY / name)], env=environment, capture_output=True, text=True, timeout=30,
        check=False,
    )


def test_start_refuses_an_image_that_is_not_pinned(tmp_path, stand_in):
    result = run_script("start-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST="latest")
    assert result.returncode != 0
    assert "not pinned" in result.stderr
    assert not stand_in[1].exists()
    assert not (tmp_path / "state" / "secret.env").exists()


def test_start_generates_the_secret_once_with_mode_0600(tmp_path, stand_in):
    first = run_script("start-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST=DIGEST)
    assert first.returncode == 0, first.stderr
    secret_file = tmp_path / "state" / "secret.env"
    content = secret_file.read_text()
    assert content.startswith("SEARXNG_SECRET=") and len(content.strip()) == 15 + 64
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "state").stat().st_mode) == 0o700
    assert [p.name for p in (tmp_path / "state").iterdir()] == ["secret.env"]

    second = run_script("start-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST=DIGEST)
    assert second.returncode == 0, second.stderr
    assert secret_file.read_text() == content

    calls = stand_in[1].read_text().splitlines()
    secret = content.strip().split("=", 1)[1]
    assert len(calls) == 2
    for call in calls:
        args, image, passed_secret = call.split(" | ")
        assert "up" in args.split()
        assert f"--file {DEPLOY}/compose.yml" in args
        assert image == f"ghcr.io/searxng/searxng@{DIGEST}"
        assert passed_secret == secret


def test_start_rejects_a_damaged_secret_file(tmp_path, stand_in):
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "secret.env").write_text("SEARXNG_SECRET=ultrasecretkey\n")
    result = run_script("start-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST=DIGEST)
    assert result.returncode != 0
    assert "no valid SEARXNG_SECRET" in result.stderr


def test_stop_runs_compose_down(tmp_path, stand_in):
    result = run_script("stop-searxng", tmp_path, stand_in)
    assert result.returncode == 0, result.stderr
    args = stand_in[1].read_text().split(" | ")[0].split()
    assert args[-1] == "down"


def test_start_uses_the_state_directory_systemd_made(tmp_path, stand_in):
    state = tmp_path / "systemd-state"
    state.mkdir()
    script, _ = stand_in
    result = subprocess.run(
        [str(DEPLOY / "start-searxng")],
        env={"PATH": os.environ["PATH"], "STATE_DIRECTORY": str(state), "COMPOSE": str(script),
             "SEARXNG_IMAGE_DIGEST": DIGEST},
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (state / "secret.env").is_file()


def test_pull_refuses_an_image_that_is_not_pinned(tmp_path, stand_in):
    result = run_script("pull-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST="sha256:abc")
    assert result.returncode != 0
    assert "not pinned" in result.stderr
    assert not stand_in[1].exists()


def test_pull_pulls_exactly_the_pinned_digest(tmp_path, stand_in):
    result = run_script("pull-searxng", tmp_path, stand_in, SEARXNG_IMAGE_DIGEST=DIGEST)
    assert result.returncode == 0, result.stderr
    args = stand_in[1].read_text().split(" | ")[0].split()
    assert args == ["pull", f"ghcr.io/searxng/searxng@{DIGEST}"]


# --- SearXNG from source: the granian launcher and the installer's refusals -----------


@pytest.fixture
def source_prefix(tmp_path):
    """An installed layout: src/searx/webapp.py and a granian that records what it got."""
    prefix = tmp_path / "searxng"
    (prefix / "src" / "searx").mkdir(parents=True)
    (prefix / "src" / "searx" / "webapp.py").write_text("")
    (prefix / "venv" / "bin").mkdir(parents=True)
    granian = prefix / "venv" / "bin" / "granian"
    record = tmp_path / "granian-call"
    granian.write_text(
        "#!/usr/bin/env bash\n"
        f"{{ pwd; echo \"$*\"; env | grep -E '^(GRANIAN|SEARXNG)_' | sort; }} > {record}\n"
    )
    granian.chmod(0o755)
    return prefix, record


def run_source(tmp_path, prefix, **env):
    environment = {"PATH": os.environ["PATH"], "SEARXNG_PREFIX": str(prefix),
                   "SEARXNG_STATE_DIR": str(tmp_path / "state"), **env}
    return subprocess.run([str(DEPLOY / "start-searxng-source")], env=environment,
                          capture_output=True, text=True, timeout=30, check=False)


def test_source_serves_on_loopback_8093_with_the_products_settings(tmp_path, source_prefix):
    prefix, record = source_prefix
    result = run_source(tmp_path, prefix)
    assert result.returncode == 0, result.stderr
    cwd, args, *variables = record.read_text().splitlines()
    env = dict(line.split("=", 1) for line in variables)
    assert cwd == str(prefix / "src")
    assert args == "searx.webapp:app"
    assert env["GRANIAN_HOST"] == "127.0.0.1"
    assert env["GRANIAN_PORT"] == "8093"
    assert env["GRANIAN_INTERFACE"] == "wsgi"
    assert env["SEARXNG_SETTINGS_PATH"] == str(DEPLOY / "settings.yml")
    secret = (tmp_path / "state" / "secret.env").read_text().strip().split("=", 1)[1]
    assert env["SEARXNG_SECRET"] == secret and len(secret) == 64


def test_source_refuses_to_start_when_searxng_is_not_installed(tmp_path):
    result = run_source(tmp_path, tmp_path / "nothing-here")
    assert result.returncode != 0
    assert "not installed" in result.stderr
    assert not (tmp_path / "state").exists()  # no secret made for nothing


@pytest.mark.parametrize("commit", ["", "9fea412", "9FEA41204FDFA7A5CFA15B0EBD12904C520478CE",
                                    "9fea41204fdfa7a5cfa15b0ebd12904c520478ce; rm -rf /",
                                    "master"])
def test_source_install_refuses_anything_but_a_full_commit(tmp_path, commit):
    result = subprocess.run(
        [str(DEPLOY / "install-searxng-source"), str(tmp_path / "prefix")],
        env={"PATH": os.environ["PATH"], "SEARXNG_GIT_COMMIT": commit or "x"},
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert result.returncode != 0
    assert "40 hex" in result.stderr
    assert not (tmp_path / "prefix").exists()


def test_source_install_fails_when_the_repository_lacks_the_commit(tmp_path):
    mirror = tmp_path / "mirror"
    subprocess.run(["git", "init", "-q", str(mirror)], check=True)
    result = subprocess.run(
        [str(DEPLOY / "install-searxng-source"), str(tmp_path / "prefix")],
        env={"PATH": os.environ["PATH"], "SEARXNG_GIT_URL": str(mirror), "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode != 0
    assert not (tmp_path / "prefix" / "venv").exists()


def test_source_pin_is_the_reviewed_commit():
    values = dict(
        line.split("=", 1)
        for line in (DEPLOY / "searxng-source.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert values["SEARXNG_GIT_COMMIT"] == "9fea41204fdfa7a5cfa15b0ebd12904c520478ce"
    assert values["SEARXNG_GIT_URL"].endswith("/searxng/searxng.git")
