"""``durak site OUT/``: the page as a folder of static files that plays every bot with no server (seed 004: "the
entire game runs inside this page").

The folder holds the same page as ``durak serve`` (static/), the project's engine, bots and page API as Python
source in ``durak.zip``, and Pyodide (the WebAssembly Python from the npm registry, pinned with its integrity
hashes in npm/package-lock.json) that runs them in a worker of the browser tab (static/worker.js).  The page
talks to that worker through the same calls it sends ``durak serve`` over HTTP (static/site.js, frontends/web/
page.py).  Trained bots go in as weights files (``weights_json``): the network in plain Python, on the same
observation, since the browser has neither numpy nor onnxruntime.  Nothing is fetched once the page has loaded.

Everything runs in the browser, so the hidden cards are in the tab's memory: the page says it is for practice,
not for play against people.  The server build keeps its guarantee.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

from baselines import SHIPPED_BOTS
from baselines.policy_file import WEIGHTS_SUFFIX, weights_json

from .api import Options

WEB = Path(__file__).parent
PACKAGE_ROOT = WEB.parent.parent
"""The folder that holds the packages durak_env, baselines and frontends."""
NPM = WEB / "npm"
"""package.json and package-lock.json: the pinned Pyodide."""
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
"""What the page loads of Pyodide's npm package: the runtime and the standard library."""
SOURCES = ("durak_env/__init__.py", "durak_env/engine/*.py", "durak_env/observation.py", "durak_env/native.py",
           "durak_env/tables.py", "baselines/__init__.py",
           "baselines/base.py", "baselines/heuristic.py", "baselines/search.py", "baselines/mcts.py",
           "baselines/policy_file.py", "frontends/__init__.py", "frontends/web/__init__.py", "frontends/web/api.py",
           "frontends/web/table.py", "frontends/web/page.py")
"""The Python the page runs: the engine, the observation, the bots that need no numpy and the page's API."""
STATIC = ("app.js", "style.css", "site.js", "worker.js", "icon.svg")
"""The page's files besides index.html (rewritten for the site, with the icon inlined) and sw.js."""
MANIFEST = {"name": "Durak", "short_name": "Durak", "description": "Durak against bots, played in this page",
            "start_url": "./", "scope": "./", "display": "standalone", "background_color": "#f3f1ea",
            "theme_color": "#2f6b4a",
            "icons": [{"src": "static/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}]}
"""The web app manifest: the site can be installed as an app (it plays offline, ``SERVICE_WORKER``)."""
SERVICE_WORKER = "sw.js"
"""Written at the site's top (a worker serves the folder it is in): it keeps every file of the site in the
browser's cache under the build's version (``build_version``), so that a reload plays on offline."""
IN_PAGE_NOTE = ("The whole game runs inside this page, so the hidden cards are in its memory and the page can be "
                "inspected: it is for practice, not for play against people.")
"""What the page says in place of the server's promise that nothing is dealt in the browser."""


def npm_packages(npm: Path = NPM, wanted: tuple[str, ...] = ()) -> Path:
    """The ``node_modules`` folder of the packages pinned by ``npm``'s package-lock.json, installed with ``npm ci``
    once into a cache folder named by the lock file's digest (later calls reuse it and need no network) unless
    every path of ``wanted`` (relative to node_modules) is there already."""
    digest = hashlib.sha256((npm / "package-lock.json").read_bytes()).hexdigest()[:16]
    cache = Path.home() / ".cache" / "durak_env" / f"npm-{digest}"
    modules = cache / "node_modules"
    if wanted and all((modules / name).is_file() for name in wanted):
        return modules
    if shutil.which("npm") is None:
        raise ValueError(f"the packages of {npm} come from the npm registry and need npm (Node.js): install it "
                         "(apt-get install -y npm)")
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(npm / name, cache / name)
    done = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=cache,
                          capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValueError(f"npm ci could not install the packages of {npm} ({last})")
    return modules


def pyodide_folder(given: Path | None = None) -> Path:
    """A folder holding ``PYODIDE_FILES``: ``given``, or the npm package installed from the lock file (``npm ci``,
    once; later builds reuse it and need no network)."""
    if given is not None:
        missing = [name for name in PYODIDE_FILES if not (given / name).is_file()]
        if missing:
            raise ValueError(f"{given} lacks Pyodide's {', '.join(missing)} (the npm package pyodide's files)")
        return given
    try:
        return npm_packages(NPM, tuple(f"pyodide/{name}" for name in PYODIDE_FILES)) / "pyodide"
    except ValueError as err:
        raise ValueError(f"durak site takes Pyodide from the npm registry: {err}, or give --pyodide DIR with the "
                         "npm package's files") from None


def site_config(options: Options, bot_paths: dict[str, str]) -> dict:
    """``site.json``: what the page's API is started with (frontends/web/page.py reads it)."""
    return {"preset": options.preset, "rules": options.rules.to_dict(), "opponents": options.opponents,
            "bots": bot_paths}


def build_site(out: str | Path, options: Options, pyodide: Path | None = None) -> Path:
    """Write the static site to ``out`` (made if missing; what was there of the site's own files is replaced)."""
    out = Path(out)
    runtime = pyodide_folder(pyodide)
    (out / "static").mkdir(parents=True, exist_ok=True)
    (out / "pyodide").mkdir(exist_ok=True)
    for name in STATIC:
        shutil.copyfile(WEB / "static" / name, out / "static" / name)
    page = (WEB / "static" / "index.html").read_text()
    page = page.replace('<script src="static/app.js">', '<script src="static/site.js"></script>\n'
                        '<script src="static/app.js">')
    page = re.sub(r'(<span id="where">).*?(</span>)', rf"\g<1>{IN_PAGE_NOTE}\g<2>", page, flags=re.S)
    icon = base64.b64encode((WEB / "static" / "icon.svg").read_bytes()).decode()
    page = page.replace('href="static/icon.svg"', f'href="data:image/svg+xml;base64,{icon}"')  # no fetch offline
    page = page.replace('</title>', '</title>\n<link rel="manifest" href="manifest.webmanifest">')
    (out / "index.html").write_text(page)
    (out / "manifest.webmanifest").write_text(json.dumps(MANIFEST, indent=1))
    for name in PYODIDE_FILES:
        shutil.copyfile(runtime / name, out / "pyodide" / name)
    bot_paths = {name: f"bots/{name}{WEIGHTS_SUFFIX}" for name in options.bot_files}
    with zipfile.ZipFile(out / "durak.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for pattern in SOURCES:
            for path in sorted(PACKAGE_ROOT.glob(pattern)):
                z.write(path, path.relative_to(PACKAGE_ROOT).as_posix())
        for path, _ in SHIPPED_BOTS.values():
            z.writestr(f"baselines/bots/{path.stem}{WEIGHTS_SUFFIX}", weights_json(path))
        for name, path in options.bot_files.items():
            z.writestr(bot_paths[name], weights_json(path))
    (out / "site.json").write_text(json.dumps(site_config(options, bot_paths), indent=1))
    files = site_files(out)
    worker = (WEB / "static" / SERVICE_WORKER).read_text()
    worker = worker.replace("__VERSION__", build_version(out, files)).replace("__FILES__", json.dumps(["./", *files]))
    (out / SERVICE_WORKER).write_text(worker)
    return out


def site_files(out: Path) -> list[str]:
    """The site's files as the service worker fetches them (paths from the top, sw.js itself left out)."""
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                  if p.is_file() and p.name != SERVICE_WORKER)


def build_version(out: Path, files: list[str]) -> str:
    """A digest of every file of the build: a new build with any change has a new version (and cache)."""
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256((out / name).read_bytes()).digest())
    return digest.hexdigest()[:16]


def folder_size(folder: Path) -> int:
    """The bytes of every file under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
