"""``durak serve`` against other web pages and odd input (issue 27, items 1-4): requests another page could send
are refused (foreign Origin or Host, cross-site fetches, bodies not declared JSON), one address cannot open tables
without end, no body makes the server answer 5xx, the deal number tells nothing of the seed, and seeds past 2**53
come back exactly."""

import hashlib
import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from durak_env.engine.record import load_record
from frontends.web.api import MAX_DEPTH
from frontends.web.server import Options, make_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

HOME = "http://127.0.0.1:8000"


def client_for(options: Options | None = None, base_url: str = HOME) -> TestClient:
    app = make_app(options or Options())
    c = TestClient(app, base_url=base_url, raise_server_exceptions=False)
    c.app_tables = app.state.tables
    return c


@pytest.fixture
def client():
    with client_for() as c:
        yield c


def one_line_error(response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert words in error and "\n" not in error, error


def test_another_page_cannot_open_games_or_evict_one_in_progress(client):
    """500 text/plain POSTs from http://evil.example were taken and evicted a game in progress."""
    mine = client.post("/api/games", json={"seed": 1}).json()["id"]
    for headers in ({"Origin": "http://evil.example", "Content-Type": "text/plain"},
                    {"Origin": "http://evil.example", "Content-Type": "application/json"},
                    {"Origin": "null", "Content-Type": "application/json"},
                    {"Origin": "http://127.0.0.1:9999", "Content-Type": "application/json"}):  # another port: a site
        for _ in range(3):
            response = client.post("/api/games", content=b'{"seed": 2}', headers=headers)
            one_line_error(response, 403, "another web page")
    assert len(client.app_tables) == 1 and client.get(f"/api/games/{mine}").status_code == 200
    ok = client.post("/api/games", content=b"{}", headers={"Origin": HOME, "Content-Type": "application/json"})
    assert ok.status_code == 201, ok.text  # the page's own requests carry its origin


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_cross_site_fetch_cannot_read_a_game(client, site):
    game = client.post("/api/games", json={}).json()["id"]
    one_line_error(client.get(f"/api/games/{game}", headers={"Sec-Fetch-Site": site}), 403, "another web page")
    assert client.get(f"/api/games/{game}", headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    assert client.get("/", headers={"Sec-Fetch-Site": site}).status_code == 200  # a link to the page still opens it


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""])
def test_a_foreign_host_is_refused_as_dns_rebinding_would_send_it(client, host):
    for method, path in (("get", "/"), ("get", "/api/options"), ("post", "/api/games")):
        response = getattr(client, method)(path, headers={"Host": host}, **({"json": {}} if method == "post" else {}))
        one_line_error(response, 403, "this server answers requests for localhost or an IP address")
    assert len(client.app_tables) == 0


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000", "192.168.1.20:8000"])
def test_addresses_and_localhost_are_answered(client, host):
    assert client.get("/api/options", headers={"Host": host}).status_code == 200


def test_a_name_given_with_allow_host_is_answered():
    with client_for(Options(allowed_hosts=("durak.lan",))) as c:
        assert c.get("/api/options", headers={"Host": "durak.lan:8000"}).status_code == 200
        assert c.get("/api/options", headers={"Host": "other.lan"}).status_code == 403


@pytest.mark.parametrize("kind", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_write_must_declare_a_json_body(client, kind):
    game = client.post("/api/games", json={"seed": 3}).json()["id"]
    before = client.app_tables.get(game).game.to_dict()
    headers = {} if kind is None else {"Content-Type": kind}
    for path, body in (("/api/games", b"{}"), (f"/api/games/{game}/moves", b'{"action": 0}'),
                       (f"/api/games/{game}/next", b"{}"), ("/api/replays", b"{}")):
        one_line_error(client.post(path, content=body, headers=headers), 415, "Content-Type: application/json")
    assert client.app_tables.get(game).game.to_dict() == before and len(client.app_tables) == 1


def test_one_address_opens_a_few_games_a_minute_and_no_more():
    with client_for(Options(games_per_minute=3)) as c:
        first = [c.post("/api/games", json={}).json()["id"] for _ in range(3)]
        one_line_error(c.post("/api/games", json={}), 429, "3 new games a minute at most")
        assert len(c.app_tables) == 3 and all(c.get(f"/api/games/{g}").status_code == 200 for g in first)


DEEP = [b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000, b"[" * 100_000]


@pytest.mark.parametrize("body", DEEP, ids=["arrays", "objects", "unclosed"])
def test_deep_nesting_is_a_4xx_not_a_500(client, body):
    """2 KB of brackets made the JSON parser recurse until a RecursionError and a 500."""
    game = client.post("/api/games", json={}).json()["id"]
    for path in ("/api/games", f"/api/games/{game}/moves", f"/api/games/{game}/next", "/api/replays"):
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        one_line_error(response, 422, f"nested more than {MAX_DEPTH} deep")


def test_too_many_values_is_a_4xx(client):
    response = client.post("/api/replays", content=b"[" + b"0," * 70_000 + b"0]",
                           headers={"Content-Type": "application/json"})
    one_line_error(response, 422, "values")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6),
                    max_leaves=40)
FIELDS = st.fixed_dictionaries({}, optional={
    "preset": st.sampled_from(["podkidnoy", "tournament", "perevodnoy", "x"]) | JSON,
    "players": st.integers(-3, 9) | JSON, "seat": st.integers(-2, 7) | JSON,
    "seed": st.integers(-2, 2**70) | st.integers(0, 2**70).map(str) | JSON, "match": st.booleans() | JSON,
    "opponents": st.lists(st.sampled_from(["heuristic", "random", "trained", "search:fast", "nope"]), max_size=6)
    | JSON, "action": st.integers(-5, 200) | JSON,
    "format": st.just("durak_env.record") | JSON, "version": st.just(1) | JSON, "rules": JSON, "moves": JSON})
BODIES = (JSON.map(lambda v: json.dumps(v).encode()) | FIELDS.map(lambda v: json.dumps(v).encode())
          | st.binary(max_size=64) | st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n)
          | st.integers(1, 3000).map(lambda n: b'{"a":' * n + b"0" + b"}" * n))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=BODIES, target=st.sampled_from(["games", "moves", "next", "replays", "hint", "record", "game"]))
def test_no_body_on_any_endpoint_gets_a_5xx(body, target):
    with client_for(Options(games_per_minute=10_000)) as c:
        game = c.post("/api/games", json={"seed": 7}).json()["id"]
        path = {"games": "/api/games", "moves": f"/api/games/{game}/moves", "next": f"/api/games/{game}/next",
                "replays": "/api/replays", "hint": f"/api/games/{game}/hint", "record": f"/api/games/{game}/record",
                "game": f"/api/games/{game}"}[target]
        response = c.post(path, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code < 500, (response.status_code, response.text[:300])
        if response.status_code >= 400:
            assert "\n" not in response.json()["error"]


def test_the_deal_number_tells_nothing_of_the_seed_and_seeds_are_64_bits(client):
    """The number shown was sha256("durak-deal/<seed>")[:8] and seeds were below 2**31: 2**31 hashes gave the seed
    and every hidden card."""
    numbers = set()
    for _ in range(2):
        state = client.post("/api/games", json={"seed": 5}).json()["state"]
        assert state["deal"] != hashlib.sha256(b"durak-deal/5").hexdigest()[:8]
        numbers.add(state["deal"])
    assert len(numbers) == 2  # the same seed, two numbers: nothing ties one to the other
    seeds = []
    for _ in range(20):
        game = client.post("/api/games", json={}).json()["id"]
        seeds.append(client.app_tables.get(game).seed)
    assert max(seeds) >= 2**40 and len(set(seeds)) == 20  # at 31 bits, 20 draws all fall below 2**31


def finish(client, game_id: str, state: dict) -> dict:
    while not state["over"]:
        actions = [a["action"] for card in state["hand"] for a in card["actions"]]
        actions += [a for a in (state["take"], state["done"]) if a is not None]
        state = client.post(f"/api/games/{game_id}/moves", json={"action": actions[0]}).json()["state"]
    return state


def test_a_match_deal_replays_from_the_page_and_from_its_record(client):
    """A seed 003 match deal's seed is 64 bits: it must come back exactly from "Replay this deal" (the page sends
    the seed it was shown) and from the downloaded record."""
    data = client.post("/api/games", json={"preset": "tournament", "players": 3, "match": True, "seed": 11}).json()
    state = finish(client, data["id"], data["state"])
    played = client.app_tables.get(data["id"])
    seed = state["seed"]
    assert isinstance(seed, str) and int(seed) == played.seed and int(seed) >= 2**53  # this match's first deal
    again = client.post("/api/games", json={"preset": "tournament", "players": 3, "seed": seed}).json()
    table = client.app_tables.get(again["id"])
    assert table.seed == played.seed and table.game.first_seat == played.game.first_seat
    record = client.get(f"/api/games/{data['id']}/record")
    assert json.loads(record.text)["seed"] == seed
    replay = client.post("/api/replays", content=record.content, headers={"Content-Type": "application/json"})
    assert replay.status_code == 200, replay.text
    assert replay.json()["seed"] == seed and load_record(record.json()).game().to_dict() == played.game.to_dict()
    top = client.post("/api/games", json={"seed": str(2**64 - 1)})  # every seed the server can make comes back
    assert top.status_code == 201 and client.app_tables.get(top.json()["id"]).seed == 2**64 - 1
    one_line_error(client.post("/api/games", json={"seed": str(2**64)}), 422, "seed must be")


@pytest.mark.parametrize("path, method", [("/", "GET"), ("/static/app.js", "GET"), ("/api/options", "GET"),
                                          ("/api/games/0123", "GET"), ("/nowhere", "GET"), ("/api/games", "PUT")])
def test_no_other_site_may_frame_any_page_or_answer(client, path, method):
    """Seed 001's page inside a frame of another site would play clicks it lured there: every answer, refusals
    included, forbids it."""
    response = client.request(method, path)
    assert response.headers["content-security-policy"] == "frame-ancestors 'none'", (path, response.status_code)
    assert response.headers["x-frame-options"] == "DENY"


def test_a_foreign_origins_refusal_forbids_framing_too(client):
    response = client.post("/api/games", json={}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and response.headers["x-frame-options"] == "DENY"
