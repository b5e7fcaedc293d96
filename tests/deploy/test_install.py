"""deploy/install and deploy/uninstall, dry-run into a temporary root (DESTDIR): every file
lands where the units expect it, re-runs keep the household's settings, switching SearXNG's
path leaves no stale unit, and the units verify cleanly against the installed tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .units import REPO, SYSTEMD_ANALYZE, exposure, one, read_unit

INSTALL = REPO / "deploy" / "install"
UNINSTALL = REPO / "deploy" / "uninstall"
UNITS = Path("etc/systemd/system")
PATH_KEYS = ("ExecStart", "ExecStop", "EnvironmentFile", "WorkingDirectory")
SYSTEMCTL = shutil.which("systemctl")
pytestmark = pytest.mark.skipif(SYSTEMCTL is None, reason="systemctl (enable --root) is absent")


def run(script: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "DESTDIR": str(root), "HOME": str(root / "nohome")}
    return subprocess.run(
        [str(script), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def install(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = run(INSTALL, root, "--dry-run", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module", params=["source", "container"])
def installed(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"root-{request.param}")
    return request.param, root, install(root, "--searxng", request.param).stdout


def unit_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / UNITS).glob("*.service") if not p.is_symlink())


def referenced_paths(unit: Path) -> list[tuple[str, str]]:
    """``(key, path)`` for every absolute path the unit's service section or Documentation names."""
    sections = read_unit(unit)
    paths = [(k, v.split()[0].lstrip("-")) for k in PATH_KEYS
             for v in sections["Service"].get(k, [])]
    docs = sections["Unit"]["Documentation"]
    paths += [("Documentation", d.removeprefix("file://")) for d in docs]
    return paths


def test_every_path_a_unit_names_is_installed(installed):
    _, root, _ = installed
    for unit in unit_files(root):
        for key, path in referenced_paths(unit):
            target = root / path.lstrip("/")
            assert target.exists(), f"{unit.name} {key}={path}: the install did not place it"
            if key.startswith("Exec"):
                assert os.access(target, os.X_OK), f"{unit.name} {key}={path} is not executable"


def test_the_units_installed_are_the_repositorys_own(installed):
    searxng, root, _ = installed
    names = {p.name for p in unit_files(root)}
    expected = {
        "source": {"sovereign-conversation.service", "sovereign-searxng-source.service"},
        "container": {"sovereign-conversation.service", "sovereign-searxng.service",
                      "sovereign-searxng-pull.service"},
    }[searxng]
    assert names == expected
    for unit in unit_files(root):
        repo_copy = next(REPO.glob(f"deploy/**/systemd/{unit.name}"))
        assert unit.read_bytes() == repo_copy.read_bytes()


def test_the_units_are_enabled_and_searxng_answers_to_one_name(installed):
    searxng, root, _ = installed
    wants = root / UNITS / "multi-user.target.wants"
    assert (wants / "sovereign-conversation.service").is_symlink()
    alias = root / UNITS / "sovereign-searxng.service"
    if searxng == "source":
        assert alias.is_symlink()
        assert os.readlink(alias) == "/etc/systemd/system/sovereign-searxng-source.service"
    else:
        assert alias.is_file() and not alias.is_symlink()


def test_scripts_and_everything_they_read_are_in_place(installed):
    _, root, _ = installed
    deploy = root / "opt/sovereign/deploy/searxng"
    for script in ("start-searxng", "stop-searxng", "pull-searxng", "start-searxng-source",
                   "install-searxng-source"):
        assert os.access(deploy / script, os.X_OK), script
    for data in ("searxng-lib.sh", "settings.yml", "compose.yml", "searxng-image.env",
                 "searxng-source.env"):
        assert (deploy / data).read_bytes() == (REPO / "deploy/searxng" / data).read_bytes()
    assert os.access(root / "usr/local/bin/sovereign", os.X_OK)


def test_the_venv_interpreter_the_unit_runs_exists(installed):
    _, root, out = installed
    python = root / "opt/sovereign/venv/bin/python"
    assert os.access(python, os.X_OK)
    assert f"pip install {REPO}" in out  # the package itself: printed by the dry run
    assert "setup-embedded --runtime-only" in out


def test_the_settings_file_is_the_example_and_private_settings_stay_out(installed):
    _, root, _ = installed
    env = root / "etc/sovereign/conversation.env"
    assert env.read_bytes() == (REPO / "deploy/systemd/conversation.env").read_bytes()
    values = dict(
        line.split("=", 1) for line in env.read_text().splitlines()
        if line and not line.startswith("#")
    )
    unit = read_unit(root / UNITS / "sovereign-conversation.service")
    assert values["SOVEREIGN_DATA_DIR"] == "/var/lib/" + one(unit["Service"], "StateDirectory")
    assert values["SOVEREIGN_SEARXNG_URL"] == "http://127.0.0.1:8093"


def test_the_next_step_names_the_journal(installed):
    assert "journalctl -u sovereign-conversation" in installed[2]


def test_a_rerun_keeps_the_households_settings_and_changes_nothing_else(tmp_path):
    install(tmp_path, "--searxng", "source")
    env = tmp_path / "etc/sovereign/conversation.env"
    env.write_text("SOVEREIGN_DATA_DIR=/var/lib/sovereign\nSOVEREIGN_BACKEND=openai\n")
    before = _tree(tmp_path)
    second = install(tmp_path, "--searxng", "source")
    assert "kept /etc/sovereign/conversation.env" in second.stdout
    assert _tree(tmp_path) == before


def test_switching_searxng_paths_leaves_no_stale_unit(tmp_path):
    install(tmp_path, "--searxng", "source")
    install(tmp_path, "--searxng", "container")
    units = tmp_path / UNITS
    assert not (units / "sovereign-searxng-source.service").exists()
    assert (units / "sovereign-searxng.service").is_file()
    assert not (units / "sovereign-searxng.service").is_symlink()
    install(tmp_path, "--searxng", "none")
    assert sorted(p.name for p in units.glob("*.service")) == ["sovereign-conversation.service"]
    assert sorted(p.name for p in (units / "multi-user.target.wants").iterdir()) == [
        "sovereign-conversation.service"]


@pytest.mark.parametrize("args", [["--searxng", "docker"], ["--bogus"],
                                  ["--model-from", "/nonexistent.gguf"],
                                  ["--model-server", "ollama"]])
def test_bad_options_are_refused_before_anything_is_written(tmp_path, args):
    result = run(INSTALL, tmp_path, "--dry-run", *args)
    assert result.returncode != 0
    assert result.stderr.startswith("install: ")
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_into_the_real_root_is_refused(tmp_path):
    env = {"PATH": os.environ["PATH"]}
    result = subprocess.run([str(INSTALL), "--dry-run"], env=env, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode != 0
    assert "DESTDIR" in result.stderr


LLAMA_UNIT = "sovereign-llama-server.service"


def test_llama_server_gets_its_unit_settings_and_model_and_starts_first(tmp_path):
    out = install(tmp_path, "--searxng", "none", "--model-server", "llama-server").stdout
    units = tmp_path / UNITS
    assert (units / LLAMA_UNIT).read_bytes() == (REPO / "deploy/systemd" / LLAMA_UNIT).read_bytes()
    assert (units / "multi-user.target.wants" / LLAMA_UNIT).is_symlink()
    env = tmp_path / "etc/sovereign/llama-server.env"
    assert env.read_bytes() == (REPO / "deploy/systemd/llama-server.env").read_bytes()
    for key, path in referenced_paths(units / LLAMA_UNIT):
        if key != "ExecStart":  # the binary: built by setup-llama-server, which a dry run skips
            assert (tmp_path / path.lstrip("/")).exists(), f"{key}={path}"
    assert "SOVEREIGN_VENV=/opt/sovereign/venv scripts/setup-llama-server" in out
    assert "sovereign model install (into /var/lib/private/sovereign-llama-server/models)" in out
    assert "units: sovereign-llama-server.service sovereign-conversation.service" in out
    settings = (tmp_path / "etc/sovereign/conversation.env").read_text().splitlines()
    assert "SOVEREIGN_BACKEND=openai" in settings
    assert "SOVEREIGN_OPENAI_BASE_URL=http://127.0.0.1:8081/v1" in settings
    if SYSTEMD_ANALYZE is not None:
        assert exposure(units / LLAMA_UNIT, root=tmp_path) <= 2.0


def test_the_households_backend_setting_is_kept_and_a_mismatch_is_named(tmp_path):
    install(tmp_path, "--searxng", "none")
    out = install(tmp_path, "--searxng", "none", "--model-server", "llama-server").stdout
    assert "SOVEREIGN_BACKEND=embedded" in (tmp_path / "etc/sovereign/conversation.env").read_text()
    assert "does not use llama-server: set SOVEREIGN_BACKEND=openai" in out


def test_going_back_to_the_embedded_model_removes_the_server_unit_and_says_what_to_set(tmp_path):
    install(tmp_path, "--searxng", "none", "--model-server", "llama-server")
    out = install(tmp_path, "--searxng", "none").stdout
    units = tmp_path / UNITS
    assert not (units / LLAMA_UNIT).exists()
    assert not (units / "multi-user.target.wants" / LLAMA_UNIT).exists()
    assert "set SOVEREIGN_BACKEND=embedded there" in out
    assert (tmp_path / "etc/sovereign/llama-server.env").exists()  # the household's settings


def test_uninstall_keeps_the_households_data_unless_asked(tmp_path):
    install(tmp_path, "--searxng", "source", "--model-server", "llama-server")
    data = _household_data(tmp_path)
    result = run(UNINSTALL, tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "opt/sovereign").exists()
    assert not (tmp_path / "usr/local/bin/sovereign").exists()
    assert list((tmp_path / UNITS).rglob("sovereign-*")) == []
    for path in data:
        assert path.exists(), path
    assert "/var/lib/private/sovereign" in result.stdout  # says what it kept

    again = run(UNINSTALL, tmp_path)  # idempotent
    assert again.returncode == 0, again.stderr
    purged = run(UNINSTALL, tmp_path, "--purge")
    assert purged.returncode == 0, purged.stderr
    for path in data:
        assert not path.exists(), path


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
def test_the_installed_units_verify_cleanly_against_the_installed_tree(installed):
    searxng, root, _ = installed
    _add_distribution_units(root, searxng)
    names = [p.name for p in unit_files(root)]
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", f"--root={root}", *names],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert exposure(root / UNITS / "sovereign-conversation.service") <= 2.0


def _add_distribution_units(root: Path, searxng: str) -> None:
    """verify --root looks up sysinit.target and friends, and follows the venv's link to the
    system's python3, inside the root: put there what a Debian device already has (with
    Docker's own unit, for the container path)."""
    for system in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")):
        target = root / system.relative_to("/")
        if system.is_dir() and not target.exists():
            shutil.copytree(system, target, symlinks=True)
    _mirror(root, Path("/opt/sovereign/venv/bin/python"))
    docker = root / "usr/lib/systemd/system/docker.service"
    if searxng == "container" and not docker.exists():
        _mirror(root, Path("/usr/bin/true"))
        docker.write_text("[Unit]\nDescription=Docker (the docker.io package's unit)\n"
                          "[Service]\nExecStart=/usr/bin/true\n")


def _mirror(root: Path, path: Path) -> None:
    """Copy ``path`` (as the device sees it) and every link on the way to it into ``root``."""
    while True:
        inside = root / path.relative_to("/")
        if not inside.is_symlink() and not inside.exists():
            inside.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                inside.symlink_to(os.readlink(path))
            else:
                shutil.copy2(path, inside)
        if not inside.is_symlink():
            return
        path = Path(os.path.normpath(path.parent / os.readlink(inside)))


def _household_data(root: Path) -> list[Path]:
    private = root / "var/lib/private"
    paths = [private / "sovereign/console-auth.json", private / "sovereign-searxng/secret.env",
             private / "sovereign-llama-server/models/model.gguf",
             root / "etc/sovereign/conversation.env", root / "etc/sovereign/llama-server.env"]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    (root / "var/lib/sovereign").symlink_to("private/sovereign")
    return [*paths, root / "var/lib/sovereign"]


def _tree(root: Path) -> dict[str, bytes | str]:
    tree: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        if "venv" in path.parts:
            continue
        key = str(path.relative_to(root))
        tree[key] = "-> " + os.readlink(path) if path.is_symlink() else (
            path.read_bytes() if path.is_file() else "dir")
    return tree
