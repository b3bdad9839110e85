"""The browser page (``durak serve``): a Starlette app over the engine (server.py), one table per game
(table.py), and the static page (static/: HTML, CSS and plain JavaScript, no build step, no CDN)."""
