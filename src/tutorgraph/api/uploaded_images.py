"""How an image from an upload is served. Its bytes came from whoever uploaded the file, so the
response may show a picture and nothing else:

- raster types a browser shows (PNG, JPEG, GIF, WebP, AVIF) go out as they are;
- SVG is redrawn by `content.svg.sanitize_svg` (no scripts, handlers, HTML or outside links)
  and refused (404) when it cannot be read;
- any other type (TIFF, EMF from a Word file...) goes out as a download, never rendered;
- every one carries `Content-Security-Policy: sandbox` with nothing allowed to load (opened on
  its own, even an unsanitized SVG could not run a script as this origin) and `nosniff`, so
  the browser never reads the bytes as another type."""

from __future__ import annotations

from fastapi.responses import Response

from tutorgraph.content.svg import UnsafeSvg, sanitize_svg
from tutorgraph.errors import NotFoundError

RASTER_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"})
SVG_TYPE = "image/svg+xml"
IMAGE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"


def uploaded_image_response(media_type: str, data: bytes) -> Response:
    kind = media_type.split(";", 1)[0].strip().lower()
    headers = {
        "Cache-Control": "private, max-age=3600",
        "Content-Security-Policy": IMAGE_CSP,
        "X-Content-Type-Options": "nosniff",
    }
    if kind == SVG_TYPE:
        try:
            data = sanitize_svg(data)
        except UnsafeSvg as exc:
            raise NotFoundError(f"this image cannot be shown: {exc}") from None
    elif kind not in RASTER_TYPES:
        kind = "application/octet-stream"
        headers["Content-Disposition"] = "attachment"
    return Response(content=data, media_type=kind, headers=headers)
