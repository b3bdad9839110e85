"""What runs in the browser tab of a page built by ``durak site``: the same ``Api`` as ``durak serve``, called
from the page's worker (static/worker.js) through Pyodide instead of over HTTP.

The site's folder holds this package as Python source and ``site.json``, the options ``durak site`` was given
(site.py writes both).  ``start`` reads the options and returns ``call``, which answers one request of the JSON
API as ``(status, JSON text)``; a bot that needs numpy (``NEEDS_NUMPY``) is not offered, since Pyodide's
standard build has none here, and trained bots play from weights files (``WeightsBot``).
"""

from __future__ import annotations

import json
from pathlib import Path

from durak_env.engine.rules import Rules

from .api import Api, Options

PAGE_ADDRESS = "this page"
"""The one address every request comes from (the opening limit counts per address)."""
PAGE_GAMES_PER_MINUTE = 10_000
"""One person's tab holds only that person's games: nobody else's can be evicted by a loop."""


def options_from(config: dict, root: Path) -> Options:
    """The page's options from ``site.json``'s dict (``site_config``); bot files are relative to ``root``."""
    return Options(rules=Rules.from_dict(config["rules"]), preset=config["preset"], opponents=list(config["opponents"]),
                   bot_files={name: str(root / path) for name, path in config["bots"].items()}, in_page=True,
                   games_per_minute=PAGE_GAMES_PER_MINUTE)


def start(config_text: str, root: str):
    """The function that answers the page's requests, from ``site.json``'s text and the folder the site's
    Python files were unpacked into."""
    api = Api(options_from(json.loads(config_text), Path(root)))

    def call(method: str, path: str, body: str) -> tuple[int, str]:
        status, reply = api.dispatch(method, path, body, PAGE_ADDRESS)
        return status, json.dumps(reply)

    return call
