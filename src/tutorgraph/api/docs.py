"""Interactive API docs at /docs, from Swagger UI files vendored under static/vendor/swagger-ui so
they work offline and under the site's Content-Security-Policy (no CDN, no inline script). /docs
and /openapi.json exist only when `settings.api_docs_public`; otherwise both answer 404."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

ASSETS = "/static/vendor/swagger-ui"
OPENAPI_URL = "/openapi.json"

_PAGE = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>tutorgraph API</title>
  <link rel="stylesheet" href="{ASSETS}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{ASSETS}/swagger-ui-bundle.js"></script>
  <script src="{ASSETS}/swagger-ui-standalone-preset.js"></script>
  <script src="/static/js/swagger-init.js"></script>
</body>
</html>
"""


def install_api_docs(app: FastAPI) -> None:
    """Serve /docs (the app must be created with `openapi_url=OPENAPI_URL`)."""

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return HTMLResponse(_PAGE)
