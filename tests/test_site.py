"""``durak site``: the page as static files, the engine running in the browser tab (issue 30).

The page's Python runs without numpy (a browser has none), so the observation has a second writer,
``encode_floats``, and trained bots a second evaluator, ``WeightsBot``: both are checked against the numpy and
ONNX ones over thousands of positions of every preset.  A whole deal against the shipped bot is played in
Chromium with the network cut after the page loaded; tests/test_web_browser.py plays its games against both back
ends (``durak serve`` and the site), each call of the page's checked against the server's own answer.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from baselines import SHIPPED_BOTS
from baselines.policy_file import load_bot, load_weights, write_weights
from durak_env.engine.game import Game
from durak_env.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from durak_env.observation import ObservationEncoder
from frontends.web.api import Api, Options


def positions(rules: Rules, deals: int, seed: int = 0):
    """Every seat's view of every position of ``deals`` random deals."""
    rng = random.Random(seed)
    for deal in range(deals):
        game = Game(rules, seed=seed * 1000 + deal)
        while not game.is_over:
            for seat in range(rules.num_players):
                yield game.view(seat)
            game.step(rng.choice(game.legal_actions()))


def tables():
    for preset in Rules.presets():
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            try:
                yield Rules.preset(preset, num_players=players)
            except ValueError:
                pass


def test_the_observation_without_numpy_is_the_observation_with_it():
    count = 0
    for rules in tables():
        encoder = ObservationEncoder(rules)
        for view in positions(rules, 2):
            floats = encoder.encode_floats(view)
            assert np.array(floats, dtype=np.float32).tobytes() == encoder.encode(view).tobytes()
            assert all(type(x) is float for x in floats)
            count += 1
    assert count > 5_000


DECISIONS = 400
"""Decisions each weights file is compared with its ONNX file on."""


@pytest.mark.parametrize("family", list(SHIPPED_BOTS))
def test_a_weights_file_plays_as_its_onnx_file(family, tmp_path):
    path, rules = SHIPPED_BOTS[family]
    onnx_bot = load_bot(path)
    weights_bot = load_weights(write_weights(path, tmp_path / "bot.weights.json"))
    assert weights_bot.rules == rules and weights_bot.metadata == onnx_bot.metadata
    rules = rules or Rules.preset("throw-after-take", num_players=5)  # the universal bot, at a table no specialist plays
    decisions = 0
    for view in positions(rules, 12, seed=5):
        if view.to_act != view.seat or len(view.legal_actions) < 2:
            continue
        assert weights_bot.act(view) == onnx_bot.act(view)
        expected = onnx_bot.probabilities(view)
        got = weights_bot.probabilities(view)
        assert max(abs(got[a] - float(expected[a])) for a in range(len(got))) < 1e-5
        assert abs(weights_bot.value(view) - onnx_bot.value(view)) < 1e-4
        decisions += 1
        if decisions == DECISIONS:  # a deal or more at every table: the larger ones offer ten times as many
            break
    assert decisions == DECISIONS


def test_a_damaged_or_foreign_weights_file_is_refused_in_one_line(tmp_path):
    good = json.loads(write_weights(SHIPPED_BOTS["podkidnoy"][0], tmp_path / "a.weights.json").read_text())
    cases = {"not-json": "{", "other": json.dumps({"format": "something else", "meta": {}}),
             "cut": json.dumps({**good, "trunk": good["trunk"][:1]}),
             "bad-base64": json.dumps({**good, "policy": {**good["policy"], "weight": "%%%"}})}
    for name, text in cases.items():
        path = tmp_path / f"{name}.weights.json"
        path.write_text(text)
        with pytest.raises(ValueError) as err:
            load_bot(path)
        assert "\n" not in str(err.value) and name in str(err.value), str(err.value)


def test_the_api_answers_requests_by_path_as_the_server_routes_them():
    api = Api(Options(in_page=True))
    assert api.dispatch("GET", "/api/nothing")[0] == 404
    assert api.dispatch("DELETE", "/api/games")[0] == 405
    status, answer = api.dispatch("POST", "/api/games", "[" * 100 + "]" * 100)
    assert status == 422 and "nested" in answer["error"]
    assert api.dispatch("POST", "/api/games", "{")[0] == 400
    offered = api.dispatch("GET", "/api/options")[1]
    assert [b["name"] for b in offered["trained_bots"]] == ["trained"]  # search:net batches with numpy
    assert api.dispatch("POST", "/api/games", json.dumps({"opponents": ["search:net"]}))[0] == 422
    status, answer = api.dispatch("POST", "/api/games", json.dumps({"opponents": ["trained"], "seed": "7"}))
    assert status == 201
    game_id = answer["id"]
    while not answer["state"]["over"]:
        legal = [a["action"] for c in answer["state"]["hand"] for a in c["actions"]]
        legal += [a for a in (answer["state"]["take"], answer["state"]["done"]) if a is not None]
        status, answer = api.dispatch("POST", f"/api/games/{game_id}/moves", json.dumps({"action": legal[0]}))
        assert status == 200
    status, record = api.dispatch("GET", f"/api/games/{game_id}/record")
    assert status == 200 and record["record"]["seed"] == "7" and record["file"].endswith(".json")


NO_NUMPY = """
import json, sys
for name in ("numpy", "onnxruntime", "onnx", "torch", "starlette", "uvicorn"):
    sys.modules[name] = None  # a browser page has none of them: importing one fails
sys.path.insert(0, sys.argv[1])
from frontends.web.page import start
call = start(open(sys.argv[2]).read(), sys.argv[1])
status, text = call("POST", "/api/games", json.dumps({"opponents": [sys.argv[3]], "seed": "11"}))
answer = json.loads(text)
assert status == 201, answer
game_id, moves, hints = answer["id"], 0, []
while not answer["state"]["over"]:
    state = answer["state"]
    if not hints:  # the trained bot's hint, from its weights file
        status, text = call("GET", f"/api/games/{game_id}/hint", "")
        hints.append((status, sum(m["p"] for m in json.loads(text)["moves"])))
    legal = [a["action"] for c in state["hand"] for a in c["actions"]]
    legal += [a for a in (state["take"], state["done"]) if a is not None]
    status, text = call("POST", f"/api/games/{game_id}/moves", json.dumps({"action": legal[-1]}))
    answer = json.loads(text)
    moves += 1
status, text = call("GET", f"/api/games/{game_id}/hint", "")
import gc
played = sorted({o.name for o in gc.get_objects() if type(o).__name__ == "WeightsBot"})
bot = sys.modules["baselines.policy_file"]
print(json.dumps({"moves": moves, "result": answer["state"]["result"]["fool"], "hint": status, "hints": hints, "played": played,
                  "numpy": "numpy" in sys.modules and sys.modules["numpy"] is not None,
                  "from": [m.__file__ for m in (bot,)]}))
"""


@pytest.mark.parametrize("bot", ["trained", "mine"])  # the shipped bot, and a file given with --bot
def test_the_sites_python_plays_a_trained_bot_with_no_numpy(site, tmp_path, bot):
    folder = site[1].folder
    with zipfile.ZipFile(folder / "durak.zip") as z:
        z.extractall(tmp_path / "py")
        names = z.namelist()
    shipped = "baselines/bots/" + "podkidnoy.weights.json"  # inside the zip only (split: not a repository file)
    assert shipped in names and "bots/mine.weights.json" in names
    assert not any(n.endswith(".onnx") for n in names)
    done = subprocess.run([sys.executable, "-c", NO_NUMPY, str(tmp_path / "py"), str(folder / "site.json"), bot],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["moves"] > 5 and out["hint"] == 409 and not out["numpy"]  # the deal is over: nothing to hint
    assert out["played"] == sorted({f"{'mine' if bot == 'mine' else 'podkidnoy'}.weights.json",
                                    "podkidnoy.weights.json"})  # the seat's bot, and the hints' shipped bot
    [(status, total)] = out["hints"]
    assert status == 200 and abs(total - 1) < 1e-3
    assert out["from"][0].startswith(str(tmp_path / "py"))  # the site's copy ran, not the checkout's
    assert out["result"] in (None, 0, 1)


def test_a_whole_deal_against_the_shipped_bot_with_the_network_cut(browser, site):
    url, backend = site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    mirror = backend.attach(page)
    page.goto(f"{url}?pace=0")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("document.body.dataset.busy === '0'")
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)  # its files all kept
    asked: list[str] = []
    page.context.route("**/*", lambda route: (asked.append(route.request.url), route.abort()))
    page.context.set_offline(True)
    page.select_option("select.opponent", "trained")
    page.click("#deal")
    page.wait_for_function("document.body.dataset.busy === '0'")
    rng = random.Random(3)
    for _ in range(400):
        if page.is_visible("#result"):
            break
        cards = page.eval_on_selector_all("#hand .card.legal", "els => els.map(e => e.dataset.card)")
        buttons = [b for b in ("#take", "#done") if page.is_enabled(b)]
        choices = [f"#hand .card[data-card='{c}']" for c in cards] + buttons
        page.click(rng.choice(choices))
        page.wait_for_function("document.body.dataset.busy === '0'")
    game_id = page.evaluate("location.hash.split('game=')[1]")
    table = mirror.get(game_id)  # every answer of the page's engine was the server API's own
    assert table.game.is_over and set(table.bot_names) == {"you", "trained"}
    text = page.inner_text("#result-text")
    assert page.is_visible("#result") and ("fool" in text or "draw" in text)
    assert asked == [] and errors == []
    assert "for practice, not for play against people" in page.inner_text("footer")
    page.close()


def test_the_site_reloads_offline_with_its_server_gone_and_the_deal_plays_on(browser, site):
    """Issue 46: the service worker keeps every file of the site on the first visit, so that a reload with the
    network off and the server stopped resumes the deal in progress, under the same deal number, to its end."""
    from web_helpers import FolderServer

    folder = site[1].folder
    manifest = json.loads((folder / "manifest.webmanifest").read_text())
    assert manifest["start_url"] == "./" and manifest["display"] == "standalone"
    server = FolderServer(folder)  # an origin of its own: a service worker no other test has installed
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}?pace=0")
    page.wait_for_function("document.body.dataset.busy === '0' && !document.getElementById('game').hidden")
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)  # installed, files kept
    for _ in range(3):
        if page.locator("#hand .card.legal").count():
            page.locator("#hand .card.legal").first.click()
        else:
            page.click("#take" if page.is_enabled("#take") else "#done")
        page.wait_for_function("document.body.dataset.busy === '0'")
    before = page.inner_text("#info"), page.inner_text("#hand"), page.inner_text("#log")
    server.stop()
    context.set_offline(True)
    page.reload()
    page.wait_for_function("document.body.dataset.busy === '0' && !document.getElementById('game').hidden",
                           timeout=60_000)
    assert (page.inner_text("#info"), page.inner_text("#hand"), page.inner_text("#log")) == before
    for _ in range(400):
        if page.is_visible("#result"):
            break
        if page.locator("#hand .card.legal").count():
            page.locator("#hand .card.legal").first.click()
        else:
            page.click("#take" if page.is_enabled("#take") else "#done")
        page.wait_for_function("document.body.dataset.busy === '0'")
    assert page.is_visible("#result") and errors == []
    context.close()
