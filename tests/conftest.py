import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# CI and mutation testing (mutmut runs the tests from its copy of the project in mutants/) replay the same
# examples every run, a fixed derandomized search; locally hypothesis explores afresh.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") or Path(__file__).resolve().parent.parent.name == "mutants":
    settings.load_profile("ci")


@pytest.fixture
def quiet():
    """Warnings off for the test: outside libraries' notes about themselves (TorchRL was tested with another
    PettingZoo, pufferlib uses a torch check torch deprecates) and PettingZoo's checks, which reset with a dummy
    option on purpose.  A module asks for it with ``pytestmark = pytest.mark.usefixtures("quiet")``."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture
def ctrl_c_handled():
    """Python's own Ctrl-C handler in this process for the test: a test run started in the background of a script
    (``cmd &`` without job control, as some CI runners start it) begins with Ctrl-C ignored, and a Ctrl-C that the
    test sends itself would then be discarded."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


# ----- the page in a real browser (tests/test_web_browser.py, tests/test_web_controls.py) ----------------------

CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def server():
    """``durak serve``'s app on a free port of 127.0.0.1, in a thread: its URL and the app."""
    import threading
    import time

    import uvicorn

    from frontends.web.server import Options, listen, make_app

    app = make_app(Options(games_per_minute=10_000))
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/", app
    srv.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, driven by Playwright (tests/install-browser installs it; nothing downloads one)."""
    import shutil

    from playwright.sync_api import sync_playwright

    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "no chromium on this machine: run sh tests/install-browser (or apt-get install -y chromium as root)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


# ----- the page built by `durak site`: the engine in the browser tab (tests/test_web_browser.py, test_site.py) ----

RECORD_CALLS = """(() => {
  // Every call the page makes to its in-page engine, with its answer; a new game without a seed gets one here,
  // so that the test's own copy of the API (Mirror) can deal the same cards.
  let inner;
  window.__calls = JSON.parse(sessionStorage.getItem("__calls") || "[]");  // a reload keeps them
  Object.defineProperty(window, "durakBackend", {configurable: true, get() { return inner; }, set(backend) {
    const call = backend.call.bind(backend);
    backend.call = async (method, path, body) => {
      if (method === "POST" && path === "/api/games") {
        const given = typeof body === "string" ? JSON.parse(body) : {...(body || {})};
        if (given.seed === undefined) given.seed = String(Math.floor(Math.random() * 2 ** 31));
        body = given;
      }
      const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
      const answer = await call(method, path, body);
      window.__calls.push([method, path, text, answer.status, JSON.stringify(answer.data)]);
      sessionStorage.setItem("__calls", JSON.stringify(window.__calls));
      return answer;
    };
    inner = backend;
  }});
})();"""


class Mirror:
    """The test's own ``Api`` with the site's options, fed every call the page made to the engine in its tab, in
    order: each answer must be the page's (the in-page engine plays as ``durak serve`` does), and the test reads
    the games behind the page here, as it reads ``app.state.tables`` for the server."""

    def __init__(self, page, options):
        from frontends.web.api import Api

        self.page = page
        self.api = Api(options)
        self.ids: dict[str, str] = {}  # the page's game id -> this Api's
        self.done = 0
        self.state = self  # Player reads app.state.tables.get(id)
        self.tables = self

    def sync(self) -> None:
        import json
        import re

        calls = self.page.evaluate("window.__calls")
        for method, path, body, status, text in calls[self.done:]:
            path = re.sub(r"/api/games/([0-9a-f]+)", lambda m: f"/api/games/{self.ids.get(m[1], m[1])}", path)
            mine, reply = self.api.dispatch(method, path, body, "test")
            page_reply = json.loads(text)
            assert mine == status, (path, mine, status, reply, page_reply)
            if method == "POST" and path == "/api/games" and status == 201:
                self.ids[page_reply["id"]] = reply["id"]
                reply["id"] = page_reply["id"]
            if path.endswith("/hint") or path.endswith("/record") or status >= 400:
                continue  # hints: probabilities in float32 (ONNX) and float64 (the page); errors name ids
            assert named(json.loads(json.dumps(reply))) == named(page_reply), path
        self.done = len(calls)

    def get(self, page_id: str):
        self.sync()
        return self.api.tables.get(self.ids[page_id])


def named(data):
    """An answer without the names drawn at random for its game and deal (``id``, ``deal``)."""
    if isinstance(data, dict):
        return {k: named(v) for k, v in data.items() if k not in ("id", "deal")}
    return [named(v) for v in data] if isinstance(data, list) else data


class Site:
    """A site built by ``durak site`` and served by a static file server: ``attach(page)`` records a page's calls."""

    def __init__(self, folder, options):
        self.folder, self.options = folder, options

    def attach(self, page) -> Mirror:
        page.add_init_script(RECORD_CALLS)
        return Mirror(page, self.options)


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """``durak site``'s folder for podkidnoy (every preset is offered) with the 0.2 bot as a bot file named
    ``mine``, served on a free port of 127.0.0.1."""
    from web_helpers import FolderServer

    from frontends.web.api import Options
    from frontends.web.site import build_site

    from baselines import SHIPPED_BOTS

    files = {"mine": str(SHIPPED_BOTS["podkidnoy-0.2"][0])}  # a bot file given with --bot
    folder = build_site(tmp_path_factory.mktemp("site"), Options(bot_files=files, in_page=True))
    server = FolderServer(folder)
    yield server.url, Site(folder, Options(bot_files=files, in_page=True, games_per_minute=10_000))
    server.stop()


@pytest.fixture(params=["serve", "site"])
def backend(request):
    """The page's back end: ``durak serve`` over HTTP, or the engine inside the page (``durak site``)."""
    return request.getfixturevalue("server" if request.param == "serve" else "site")
