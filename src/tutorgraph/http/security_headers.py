"""Security headers on every response (pages, API, static files, errors).

The Content-Security-Policy allows scripts from this server only: no inline script, no eval,
no CDN. Styles allow 'unsafe-inline' because Mermaid writes a `<style>` element and `style`
attributes into every diagram it draws (and Swagger UI styles elements inline); scripts, where
injection does the real harm, stay strict. HSTS is sent only when cookies are `Secure`, i.e.
when the site is served over HTTPS."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HSTS = "max-age=31536000"


def security_headers(*, hsts: bool) -> dict[str, str]:
    """The headers every response carries."""
    headers = {
        "content-security-policy": CONTENT_SECURITY_POLICY,
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        "referrer-policy": "strict-origin-when-cross-origin",
    }
    if hsts:
        headers["strict-transport-security"] = HSTS
    return headers


class SecurityHeadersMiddleware:
    """Adds the headers above unless a response set its own value. (An unhandled error's 500
    is answered outside every middleware: its handler adds them itself.)"""

    def __init__(self, app: ASGIApp, *, hsts: bool) -> None:
        self.app = app
        self.headers = [(n.encode(), v.encode()) for n, v in security_headers(hsts=hsts).items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
