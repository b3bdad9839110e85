"""The server behind the page (``durak serve``): every endpoint, every kind of bad request (a 4xx and one
line, nothing changed, never a 500), several games at once, and no card the person's seat cannot see
in any response of complete games."""

import json
import random
import warnings

import pytest
from web_helpers import card_tokens, hidden_cards, strings

from durak_env import Rules, encode_action
from durak_env.engine.record import load_record
from frontends.web.api import MAX_BODY
from frontends.web.server import Options, make_app
from frontends.web.table import REQUEST_CODES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def client():
    app = make_app(Options())
    with TestClient(app, base_url="http://localhost:8000", raise_server_exceptions=False) as c:
        c.app_tables = app.state.tables
        yield c


def legal_actions(state) -> list[int]:
    return [a["action"] for card in state["hand"] for a in card["actions"]] + \
        [a for a in (state["take"], state["done"]) if a is not None]


def check_honest(client, game_id, payload):
    """No card that the person cannot see now is named anywhere in ``payload``."""
    table = client.app_tables.get(game_id)
    if table.game.is_over:
        return  # every card of a finished deal may be told (its record comes with it)
    assert_hides(payload, hidden_cards(table.game, table.seat))


def assert_hides(payload, hidden: set[str]) -> None:
    shown = set().union(*(card_tokens(s) for s in strings(payload)))
    assert not shown & hidden, f"hidden cards sent to the browser: {sorted(shown & hidden)}"


class Witness:
    """Follows a table's deal move by move, to check each event against the position it was sent at."""

    def __init__(self, client, game_id):
        from durak_env import Game

        self.table = client.app_tables.get(game_id)
        self.game = Game(self.table.rules, seed=self.table.seed)
        self.played = 0

    def check(self, data, person_moved: bool = False) -> None:
        if person_moved:
            self.advance()
        for event in data["events"]:
            played = set()
            if event["kind"] == "move":
                played = self.advance()  # a move is seen by all as it is played (seed 003 hides only the pile)
            if not self.game.is_over:
                assert_hides(event["state"], hidden_cards(self.game, self.table.seat))
                assert_hides(event["text"], hidden_cards(self.game, self.table.seat) - played)
        if not self.game.is_over:
            assert_hides(data["state"], hidden_cards(self.game, self.table.seat))

    def advance(self) -> set[str]:
        """Play the next move the table made; the card it played, if any."""
        from durak_env import decode_action

        seat, action = self.table.moves[self.played]
        self.game.step(action, seat=seat)
        self.played += 1
        card = decode_action(action, self.game.rules).card
        return {str(card)} if card is not None else set()


@pytest.mark.parametrize("preset, players, opponents", [
    ("podkidnoy", 2, ["heuristic"]), ("podkidnoy", 2, ["trained"]), ("perevodnoy", 2, ["easy"]),
    ("perevodnoy", 2, ["search:net"]),
    ("tournament", 4, ["heuristic", "random", "easy"]), ("after-beaten-transfer", 3, ["search:fast"]),
    ("after-beaten-transfer", 3, ["search:model", "trained"]),
    ("after-beaten-transfer", 3, ["trained", "trained"]), ("tournament", 4, ["trained"] * 3),
])
def test_complete_games_never_show_a_hidden_card_and_end_as_the_engine_says(client, preset, players, opponents):
    rng = random.Random(players)
    for seed in range(2):
        response = client.post("/api/games", json={"preset": preset, "players": players, "opponents": opponents,
                                                   "seed": seed})
        assert response.status_code == 201, response.text
        data = response.json()
        game_id, state = data["id"], data["state"]
        witness = Witness(client, game_id)
        witness.check(data)
        assert "seed" not in state  # the seed would give the whole deal away
        while not state["over"]:
            check_honest(client, game_id, client.get(f"/api/games/{game_id}").json())
            response = client.post(f"/api/games/{game_id}/moves", json={"action": rng.choice(legal_actions(state))})
            assert response.status_code == 200, response.text
            data = response.json()
            witness.check(data, person_moved=True)
            state = data["state"]
            assert all(e["state"]["you"] == state["you"] for e in data["events"] if "state" in e)
        assert witness.played == len(client.app_tables.get(game_id).moves)
        game = client.app_tables.get(game_id).game
        assert state["result"]["fool"] == game.result.fool and state["result"]["placings"] == list(game.result.placings)
        assert state["seed"] == str(seed)  # a decimal string: JSON numbers lose digits in the browser
        record = client.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
        replayed = load_record(record.json()).game()
        assert replayed.to_dict() == game.to_dict()


def test_options_offer_presets_seats_and_bots(client):
    data = client.get("/api/options").json()
    presets = {p["name"]: p for p in data["presets"]}
    assert set(presets) == set(Rules.presets())
    assert presets["tournament"]["seats"] == [2, 3, 4, 5, 6]  # five cards each at a full table of six
    assert presets["podkidnoy"]["seats"] == [2, 3, 4, 5]
    # the universal bot plays every table: a trained bot is offered at every size of every preset
    assert all(p["trained"] == p["seats"] for p in presets.values())
    assert data["preset"] == "podkidnoy" and data["opponents"] == ["heuristic"]
    names = {b["name"] for b in data["bots"]}
    assert {"random", "easy", "heuristic", "search:fast", "search:medium", "search:strong", "search:mcts"} <= names


def test_the_page_and_its_files_are_served_and_nothing_else(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Durak" in page.text and "static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/../../baselines/bots/podkidnoy.onnx",
                 "/etc/passwd", "/api/nothing"):
        response = client.get(path)
        assert response.status_code == 404, path


@pytest.mark.parametrize("method, path, body, status, words", [
    ("get", "/api/games/nope", None, 404, "no game"),
    ("get", "/api/nothing-here", None, 404, "Not Found"),
    ("post", "/api/games/nope/moves", {"action": 1}, 404, "no game"),
    ("post", "/api/games", {"preset": "chess"}, 422, "unknown preset"),
    ("post", "/api/games", {"players": 9}, 422, "num_players"),
    ("post", "/api/games", {"players": "2"}, 422, "players must be an integer"),
    ("post", "/api/games", {"opponents": ["grandmaster"]}, 422, "unknown bot 'grandmaster'"),
    ("post", "/api/games", {"opponents": ["/etc/passwd"]}, 422, "unknown bot"),
    ("post", "/api/games", {"opponents": [1]}, 422, "named by a string"),
    ("post", "/api/games", {"players": 4, "opponents": ["heuristic", "easy"]}, 422, "one bot for every other seat"),
    ("post", "/api/games", {"seat": 5}, 422, "seat must be"),
    ("post", "/api/games", {"seed": -3}, 422, "seed must be"),
    ("post", "/api/games", {"match": "yes"}, 422, "match must be true or false"),
    ("post", "/api/games", [1, 2], 422, "JSON object"),
    ("put", "/api/games", {}, 405, "Method Not Allowed"),
    ("post", "/api/replays", {"format": "chess"}, 422, "not a game record"),
    ("post", "/api/replays", {}, 422, "not a game record"),
])
def test_bad_requests_get_a_4xx_and_one_line(client, method, path, body, status, words):
    response = getattr(client, method)(path, **({} if body is None else {"json": body}))
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert words in error and "\n" not in error
    assert response.json()["code"] == REQUEST_CODES[status]  # a client matches the code, not the words


def test_bad_moves_change_nothing(client):
    data = client.post("/api/games", json={"seed": 3}).json()
    game_id, state = data["id"], data["state"]
    before = client.app_tables.get(game_id).game.to_dict()
    illegal = next(a for a in range(110) if a not in legal_actions(state))
    why = client.app_tables.get(game_id).game.refusal(illegal)[0]
    cases = [({"action": illegal}, 409, "not legal", why), ({"action": "12"}, 422, "integer", "not_an_action"),
             ({"action": True}, 422, "integer", "not_an_action"), ({}, 422, "send {\"action\"", "invalid"),
             ({"action": 10**30}, 409, "not legal", "not_an_action")]
    for body, status, words, code in cases:
        response = client.post(f"/api/games/{game_id}/moves", json=body)
        assert response.status_code == status and words in response.json()["error"], response.text
        assert response.json()["code"] == code, response.text
    for raw, status, words in ((b"{not json", 400, "not JSON"), (b"\xff\xfe", 400, "not JSON"),
                               (b"x" * (MAX_BODY + 1), 413, "larger than")):
        response = client.post(f"/api/games/{game_id}/moves", content=raw, headers={"content-type": "application/json"})
        assert response.status_code == status and words in response.json()["error"], response.text
    assert client.app_tables.get(game_id).game.to_dict() == before
    assert client.get(f"/api/games/{game_id}/record").status_code == 409  # not before the end: the seed
    assert client.post(f"/api/games/{game_id}/next", json={}).status_code == 409  # not a match


def test_a_move_out_of_turn_or_after_the_end_is_refused():
    from frontends.web.table import Refused, Table

    from baselines import make_bot

    table = Table(Rules(), "podkidnoy", 0, [None, make_bot("heuristic")], ["you", "heuristic"], seed=1)
    game = table.game
    while game.to_act == 0:
        game.step(game.legal_actions()[0])  # play on for the person until it is the bot's turn
    with pytest.raises(Refused, match="turn, not yours") as err:
        table.move(game.legal_actions()[0])  # even a move legal for the bot
    assert (err.value.status, err.value.code) == (409, "not_your_turn")
    while not game.is_over:
        game.step(game.legal_actions()[0])
    with pytest.raises(Refused, match="the deal is over") as err:
        table.move(0)
    assert err.value.code == "game_over"


@pytest.mark.parametrize("kind, code", [("take", "not_defending"), ("done", "first_card")])
def test_a_refused_move_carries_the_engines_code(client, kind, code):
    """The API passes the engine's refusal on as a code a client can match (docs/rules.md's table)."""
    leading = next(data for seed in range(1, 40)
                   if not (data := client.post("/api/games", json={"seed": seed}).json())["state"]["table"])
    response = client.post(f"/api/games/{leading['id']}/moves", json={"action": encode_action(kind, Rules())})
    assert response.status_code == 409 and response.json()["code"] == code, response.text


def test_hints_come_from_the_persons_view_and_name_legal_moves_only(client):
    data = client.post("/api/games", json={"seed": 8, "opponents": ["heuristic"]}).json()
    hint = client.get(f"/api/games/{data['id']}/hint").json()
    assert {m["action"] for m in hint["moves"]} == set(legal_actions(data["state"]))
    assert abs(sum(m["p"] for m in hint["moves"]) - 1) < 1e-3
    check_honest(client, data["id"], hint)
    other = client.post("/api/games", json={"preset": "neighbours", "players": 5, "seed": 1}).json()
    hint = client.get(f"/api/games/{other['id']}/hint").json()  # no specialist: the universal bot's hint
    assert {m["action"] for m in hint["moves"]} == set(legal_actions(other["state"]))
    check_honest(client, other["id"], hint)


def test_a_seed003_match_adds_up_points_over_its_deals(client):
    data = client.post("/api/games", json={"preset": "tournament", "players": 3, "match": True, "seed": 2,
                                           "opponents": ["heuristic"]}).json()
    game_id, state = data["id"], data["state"]
    totals = [0, 0, 0]
    rng = random.Random(0)
    for deal in range(3):
        while not state["over"]:
            state = client.post(f"/api/games/{game_id}/moves", json={"action": rng.choice(legal_actions(state))}
                                ).json()["state"]
        totals = [t + p for t, p in zip(totals, state["result"]["points"])]
        assert state["match"]["totals"] == totals and state["match"]["played"] == deal + 1
        if deal < 2:
            state = client.post(f"/api/games/{game_id}/next", json={}).json()["state"]
    assert client.post(f"/api/games/{game_id}/next", json={}).status_code == 200 or state["match"]["played"] == 3


def test_replays_show_every_hand_of_a_recorded_game(client):
    data = client.post("/api/games", json={"seed": 4}).json()
    game_id, state = data["id"], data["state"]
    while not state["over"]:
        state = client.post(f"/api/games/{game_id}/moves", json={"action": legal_actions(state)[-1]}).json()["state"]
    record = client.get(f"/api/games/{game_id}/record").json()
    replay = client.post("/api/replays", json=record).json()
    assert len(replay["frames"]) == len(record["moves"]) + 1
    first = replay["frames"][0]
    assert [len(h) for h in first["hands"]] == [6, 6] and first["stock"] == 24
    assert "fool" in replay["frames"][-1]["text"] or "draw" in replay["frames"][-1]["text"]
    damaged = json.loads(json.dumps(record))
    damaged["moves"][3]["action"] = 107
    response = client.post("/api/replays", json=damaged)
    assert response.status_code == 422 and "moves[3]" in response.json()["error"]


def test_several_games_at_once_stay_apart(client):
    a = client.post("/api/games", json={"seed": 1}).json()
    b = client.post("/api/games", json={"seed": 2, "preset": "perevodnoy"}).json()
    assert a["id"] != b["id"]
    client.post(f"/api/games/{a['id']}/moves", json={"action": legal_actions(a["state"])[0]})
    assert client.get(f"/api/games/{b['id']}").json()["state"] == b["state"]


def test_the_server_binds_to_this_computer_by_default_and_reads_bot_files_only_from_the_command_line(tmp_path):
    from frontends.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"
    import inspect

    from frontends.web.api import Api

    # The bot maker reads a name and the files given at start, never the request: names, never paths.
    assert "body" not in inspect.getsource(Api._bot) and "body" not in inspect.getsource(Api._hint_bot)


def test_without_a_universal_bot_rules_with_no_specialist_have_no_trained_bot(client, monkeypatch):
    """Where no bot plays the rules (the universal bot taken away), a trained opponent is refused in one line and
    a hint is not found; the page offers a trained bot only where a specialist plays."""
    import baselines

    monkeypatch.delitem(baselines.SHIPPED_BOTS, "universal")
    response = client.post("/api/games", json={"preset": "tournament", "players": 3, "opponents": ["trained"]})
    assert response.status_code == 422 and "no shipped bot" in response.json()["error"]
    other = client.post("/api/games", json={"preset": "after-beaten", "players": 5, "seed": 1}).json()
    response = client.get(f"/api/games/{other['id']}/hint")
    assert response.status_code == 404 and "no trained bot" in response.json()["error"]
    presets = {p["name"]: p for p in client.get("/api/options").json()["presets"]}
    assert presets["podkidnoy"]["trained"] == [2] and presets["tournament"]["trained"] == [4]


def test_the_page_branches_on_refusal_codes_it_knows():
    """The page's script reads a refusal's code (issue 44): the request-level codes it leaves the position alone
    for are exactly the server's (all but "conflict") and the engine's not_an_action."""
    import re
    from pathlib import Path

    import frontends.web
    from durak_env import Refusal

    script = (Path(frontends.web.__file__).parent / "static" / "app.js").read_text()  # the installed page's too
    assert "err.code = data.code" in script and "err.status === 409" not in script
    stays = set(re.findall(r'"(\w+)"', re.search(r"const STAYS = new Set\(\[(.*?)\]\)", script, re.S).group(1)))
    assert stays == (set(REQUEST_CODES.values()) - {"conflict"}) | {Refusal.NOT_AN_ACTION.value}
