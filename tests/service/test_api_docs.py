"""The OpenAPI description and its docs page, served without any off-device asset."""

from __future__ import annotations

import re

import httpx
import pytest

from sovereign.service.app import create_app
from sovereign.service.settings import Settings


@pytest.fixture
async def client(tmp_path):
    from sovereign.conversation.backends.scripted import ScriptedBackend

    app = create_app(Settings(data_dir=tmp_path), backend=ScriptedBackend([]))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8092") as c:
        yield c


async def test_the_openapi_description_lists_the_message_route(client):
    response = await client.get("/api/openapi.json")
    assert response.status_code == 200
    assert "/api/v1/conversation/message" in response.json()["paths"]


async def test_the_docs_page_loads_only_assets_from_this_device(client):
    page = await client.get("/api/docs")
    assert page.status_code == 200
    sources = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    assert sources, page.text
    assert all(source.startswith("/") for source in sources), sources
    assert "cdn" not in page.text.lower()
    for source in sources:
        asset = await client.get(source)
        assert asset.status_code == 200, source


@pytest.mark.parametrize(
    "name",
    ["index.html", "swagger-initializer.js", "oauth2-redirect.html", "index.j2",
     "swagger-ui-bundle.js.map", "swagger-ui.js", "../swagger_ui_bundle/__init__.py", "%2e%2e"],
)
async def test_no_other_file_of_the_swagger_bundle_is_served(client, name):
    response = await client.get(f"/api/docs/assets/{name}")
    assert response.status_code == 404


async def test_the_docs_page_turns_off_the_online_validator(client):
    start = await client.get("/api/docs/init.js")
    assert "validatorUrl: null" in start.text


async def test_the_docs_page_has_no_inline_script(client):
    page = await client.get("/api/docs")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all(
        "src=" in attributes and not body.strip() for attributes, body in scripts
    )
