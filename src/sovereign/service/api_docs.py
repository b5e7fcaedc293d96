"""``/api/docs``: Swagger UI for the OpenAPI description, served from this device only.

Only the three files the page loads are served (:data:`DOCS_ASSETS`), from the
Swagger UI 5 build that ``fastapi-offline`` packages (Swagger UI 4 cannot render
OpenAPI 3.1); stock demo pages of a bundle point the browser at outside hosts.
FastAPI's stock page starts Swagger UI from an inline ``<script>``, which the
service's Content-Security-Policy forbids (DESIGN §5); this page starts it from
``/api/docs/init.js`` instead, with the online validator off.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response

DOCS = "/api/docs"
ASSETS = f"{DOCS}/assets"

DOCS_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
"""The only files ``/api/docs`` loads, and so the only ones served from the bundle."""
DOCS_BUNDLE = Path(fastapi_offline.__file__).resolve().parent / "static"

PAGE = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sovereign Conversation Service API</title>
  <link rel="stylesheet" href="{ASSETS}/swagger-ui.css">
  <link rel="icon" href="{ASSETS}/favicon.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{ASSETS}/swagger-ui-bundle.js"></script>
  <script src="{DOCS}/init.js"></script>
</body>
</html>
"""

INIT = """window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  validatorUrl: null,  // no badge from validator.swagger.io
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
"""


def add_api_docs(app: FastAPI) -> None:
    """Serve the page at ``/api/docs``, its start script and the three bundle files."""

    @app.get(ASSETS + "/{name}", include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        if name not in DOCS_ASSETS:
            return Response(status_code=404)
        return FileResponse(DOCS_BUNDLE / name, media_type=DOCS_ASSETS[name])

    @app.get(DOCS, include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        return HTMLResponse(PAGE)

    @app.get(f"{DOCS}/init.js", include_in_schema=False)
    async def api_docs_init() -> Response:
        return Response(INIT, media_type="text/javascript; charset=utf-8")
