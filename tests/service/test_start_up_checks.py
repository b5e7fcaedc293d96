"""Start-up that fails fast and clearly, and owner commands that show the state when bare."""

from __future__ import annotations

from click.testing import CliRunner

from sovereign.cli import main
from sovereign.service.policy import PolicyStore


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_serve_with_the_embedded_backend_and_no_model_file_says_so_and_does_not_start(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    result = run("serve", "--backend", "embedded", "--data-dir", str(tmp_path), "--port", "1")
    assert result.exit_code == 1
    assert "The embedded model is not installed:" in result.output
    assert "sovereign model install" in result.output
    assert "The service did not start." in result.output
    assert "Console:" not in result.output  # nothing was served


def test_serve_refuses_a_default_model_file_of_the_wrong_size(tmp_path, monkeypatch):
    from sovereign.model import default_model_path

    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    path = default_model_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"GGUF" + b"\0" * 100)  # a download cut short
    result = run("serve", "--backend", "embedded", "--data-dir", str(tmp_path), "--port", "1")
    assert result.exit_code == 1
    assert "is 104 bytes, not" in result.output and "incomplete" in result.output


def test_bare_policy_sites_and_private_words_show_the_current_state(tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    PolicyStore(tmp_path).set_web_search(True)
    policy = run("policy")
    assert policy.exit_code == 0, policy.output
    assert policy.output == "web search: on\n"
    sites = run("sites")
    assert sites.exit_code == 0, sites.output
    assert sites.output.startswith("mode: ")
    words = run("private-words")
    assert words.exit_code == 0, words.output
    assert words.output == run("private-words", "list").output
