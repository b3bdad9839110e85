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
