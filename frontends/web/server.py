"""``durak serve``: the browser page and the small JSON API behind it (Starlette, served by uvicorn).

Why Starlette: the page needs a handful of JSON routes and static files, and the server must be
strict about what it accepts.  Starlette gives routing, request bodies, static files and a test
client in a small, well-kept package with no build step; uvicorn (h11) does the HTTP parsing.  The
standard library's ``http.server`` would have us write request parsing, body limits and threading
by hand, and its documentation warns against it for anything but basic use; a larger framework
(FastAPI, Django) would bring more than eight routes need.

The server is a thin layer: it routes requests to tables held by id (several games at once, one
per tab), turns refusals into 4xx answers with one line of text, and builds every response from
the person's seat view (table.py), so a hidden card cannot reach the browser.  It binds to
127.0.0.1 unless told otherwise, loads bot files only from paths given on the command line, and
never reads a file the browser names.

Any web page open in the same browser can send requests to localhost, and a page on a domain that
rebinds to 127.0.0.1 can read the answers.  So the server answers only requests addressed to it by an
IP address, ``localhost`` or a name given with ``--allow-host`` (``Host``), sent by its own page
(``Origin``, ``Sec-Fetch-Site``), and with a JSON body on every write (``Content-Type``, which a
cross-site form or a no-CORS fetch cannot set without asking first): ``SameOrigin`` refuses the rest
with a 403.  A body is checked for size, nesting depth and item count before it is parsed, and one
address may open ``GAMES_PER_MINUTE`` tables a minute.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .api import CREATED, MAX_BODY, ROUTES, Api, Options, parse_body
from .table import Refused

STATIC = Path(__file__).with_name("static")
NO_FRAMES = [(b"content-security-policy", b"frame-ancestors 'none'"), (b"x-frame-options", b"DENY")]
"""Sent with every answer: no other site may show the page inside a frame of its own (and lure clicks onto it)."""


def answer(err: Refused, headers=None) -> JSONResponse:
    """A refusal's answer: its status, and ``{"error": one line, "code": a stable code}``."""
    return JSONResponse({"error": str(err), "code": err.code}, status_code=err.status, headers=headers)


class NoFrames:
    """ASGI middleware: ``NO_FRAMES`` on every answer, the refusals included."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def framed(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *NO_FRAMES]}
            await send(message)

        await self.app(scope, receive, framed if scope["type"] == "http" else send)


class SameOrigin:
    """ASGI middleware: a 403 (one line) for a request that another web page could have made, a 415 for a write
    whose body is not declared JSON; everything else passes to the app."""

    def __init__(self, app, allowed_hosts: tuple[str, ...] = ()):
        self.app = app
        self.allowed_hosts = {h.lower() for h in allowed_hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            refusal = self.refusal(scope, headers)
            if refusal is not None:
                status, message = refusal
                await answer(Refused(status, message))(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if not self.host_allowed(host):
            return 403, (f"this server answers requests for localhost or an IP address, not {host!r} "
                         "(durak serve --allow-host NAME adds a name)")
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"{scope['scheme']}://{host}".lower():
            return 403, f"requests from another web page ({origin}) are refused: open the page this server serves"
        site = headers.get("sec-fetch-site")
        if scope["path"].startswith("/api/") and site not in (None, "same-origin", "none"):
            return 403, f"requests from another web page ({site}) are refused: open the page this server serves"
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, f"send the body as JSON with Content-Type: application/json, not {kind or 'none'!r}"
        return None

    def host_allowed(self, host: str) -> bool:
        """An IP address, localhost or a name given with ``--allow-host``: a name that some other site's DNS can
        point at 127.0.0.1 (DNS rebinding) is not one of them."""
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.strip("[]").lower()
        if not name:
            return False
        if name == "localhost" or name in self.allowed_hosts:
            return True
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False


def make_app(options: Options | None = None) -> Starlette:
    """The web app: the page, its static files and the JSON API (``ROUTES``; the record as a file to save)."""
    api = Api(options)

    def route(path: str, method: str, call: str, reads: tuple[str, ...]) -> Route:
        async def endpoint(request: Request) -> Response:
            given = {"game_id": request.path_params.get("game_id"),
                     "address": request.client.host if request.client else ""}
            if "body" in reads or method == "POST":  # a body is checked even where no field is read
                given["body"] = await read_json(request)
            reply = await run_in_threadpool(getattr(api, call), *(given[name] for name in reads))
            if call == "record":
                return Response(json.dumps(reply["record"], indent=1), media_type="application/json",
                                headers={"Content-Disposition": f'attachment; filename="{reply["file"]}"'})
            return JSONResponse(reply, status_code=CREATED.get(call, 200))

        return Route(path, endpoint, methods=[method])

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def refused(request: Request, err: Refused) -> Response:
        return answer(err)

    async def http_error(request: Request, err: HTTPException) -> Response:
        return answer(Refused(err.status_code, str(err.detail)), err.headers)

    routes = [Route("/", index), *(route(*r) for r in ROUTES),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, exception_handlers={Refused: refused, HTTPException: http_error},
                    middleware=[Middleware(NoFrames),
                                Middleware(SameOrigin, allowed_hosts=api.options.allowed_hosts)])
    app.state.tables = api.tables  # for tests that look behind the page
    return app


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object: 413 past ``MAX_BODY``, 400 if it is not JSON, 422 if it is not an object."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    return parse_body(body)


def listen(host: str, port: int | None, preferred: int = 8000):
    """A socket bound to ``host``: on ``port``, or on ``preferred`` if that is free, else on any free port.
    Bound here, before uvicorn starts, so that a taken port is an OSError to report in one line."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for candidate in (port,) if port is not None else (preferred, 0):
        sock = socket.socket(family)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, candidate))
            return sock
        except OSError:
            sock.close()
            if port is not None or candidate == 0:
                raise
    raise AssertionError("unreachable")


def serve(options: Options, host: str = "127.0.0.1", port: int | None = None, open_browser: bool = False) -> int:
    import uvicorn

    sock = listen(host, port)
    port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    print(f"durak: serving the page at {url}  (Ctrl-C stops)", flush=True)
    if open_browser:
        import webbrowser

        threading.Timer(0.8, webbrowser.open, args=(url,)).start()
    with sock:
        uvicorn.Server(uvicorn.Config(make_app(options), log_level="warning")).run(sockets=[sock])
    return 0
