"""Server-rendered pages (Jinja2) and their static assets; no build step."""
