"""GET /api/v1/about: what the Console's About view says, and nothing secret."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from sovereign import __version__
from sovereign.service.about import about, model_location
from sovereign.service.settings import Settings

ABOUT = "/api/v1/about"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


async def test_about_needs_a_session(harness):
    response = await harness.client.get(ABOUT)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "NOT_SIGNED_IN"


async def test_about_names_the_product_its_version_licence_model_and_data_folder(signed_in):
    response = await signed_in.client.get(ABOUT, headers=signed_in.headers())
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    said = response.json()
    assert said == {
        "product": "Sovereign",
        "version": __version__,
        "licence": tomllib.loads(PYPROJECT.read_text())["project"]["license"],
        "model": {"on_device": True, "host": None},
        "data_dir": str(signed_in.data_dir),
    }
    assert said["licence"] == "Apache-2.0"
    health = (await signed_in.client.get("/healthz")).json()
    assert health["version"] == said["version"]


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8081/v1", "http://localhost:8081/v1", "http://[::1]:8081/v1",
     "http://model.localhost/v1", "http://127.2.3.4/v1"],
)  # fmt: skip
def test_a_model_server_on_this_device_keeps_the_questions_here(url):
    assert model_location(Settings(backend="openai", openai_base_url=url)) == {
        "on_device": True,
        "host": None,
    }


def test_a_model_server_elsewhere_is_named_by_its_host_alone():
    settings = Settings(
        backend="openai", openai_base_url="https://family:s3cret@gpu-box.lan:8443/v1?key=abc"
    )
    assert model_location(settings) == {"on_device": False, "host": "gpu-box.lan"}
    assert "s3cret" not in str(about(settings)) and "abc" not in str(about(settings))


@pytest.mark.parametrize("backend", ["embedded", "scripted"])
def test_the_embedded_and_demo_models_answer_on_this_device(backend, tmp_path):
    settings = Settings(data_dir=tmp_path, backend=backend)
    assert model_location(settings) == {"on_device": True, "host": None}
    assert about(settings)["data_dir"] == str(tmp_path)
