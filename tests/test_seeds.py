"""One deal seed, one game, in every front end (issue 44): ``durak eval``, ``durak play``, the page behind
``durak serve`` and the static page of ``durak site`` deal from the seed and start each bot from
``bot_seed(deal seed, seat)``, so the same seed and the same bots play the same game in each.

The bots are ones whose moves follow their seeds (random and easy: a share of random moves), and the seat that a
person takes in the terminal and the page is played by the same kind of bot seeded as ``durak eval`` seeds that
seat, so that every move of the game must come out the same.  Before, the front ends seeded bots as ``seed + s``
in three places and with ``derive_seed`` elsewhere, and the games differed.
"""

from __future__ import annotations

import json

import pytest

from baselines import make_bot
from baselines.evaluate import play_deal
from durak_env import Game, Rules
from durak_env.engine.seeds import bot_seed, derive_seed
from frontends.terminal import move_order, play_game
from frontends.web.api import Api, Options

RULES = Rules.preset("perevodnoy", num_players=3)
LINEUP = ("easy", "random", "easy")
"""The bot at each seat; seat 0 is the person's in the terminal and the page, played there by the same bot."""


def person(seed: int):
    """The bot that plays the person's seat, started as ``durak eval`` starts the bot at seat 0."""
    bot = make_bot(LINEUP[0], rules=RULES)
    bot.reset(bot_seed(seed, 0))
    return bot


def by_eval(seed: int) -> tuple:
    """``durak eval``'s deal of ``seed`` (one rotation): its moves' count, placings, fool and deck."""
    records, _, _ = play_deal((LINEUP, RULES.to_dict(), 0, (0, 1, 2), 0, seed, (0,)))
    (record,) = records
    return record.moves, record.placings, record.fool_seat, record.deck


def by_terminal(seed: int) -> tuple[list, Game]:
    """``durak play --seed``'s game, the person's answers typed as a person types a move's number."""
    played: list[tuple[int, int]] = []
    me = person(seed)

    def ask(_prompt: str) -> str:
        game = Game(RULES, seed=seed)
        for _, action in played:
            game.step(action)
        view = game.view(0)
        options = sorted(view.legal_actions, key=lambda a: move_order(a, RULES, view.trump_suit))
        return str(options.index(me.act(view)) + 1)

    opponents = [None] + [make_bot(name, rules=RULES) for name in LINEUP[1:]]
    game = play_game(RULES, opponents, 0, ask, lambda _line: None, seed=seed, moves=played)
    return played, game


def by_page(seed: int, in_page: bool) -> tuple[list, Game]:
    """The page's game of ``seed``: through the API the server answers (``durak serve``) or the one the static
    page runs in the browser (``durak site``, ``in_page``), called as the page calls it."""
    api = Api(Options(in_page=in_page))
    body = {"preset": "perevodnoy", "players": 3, "seat": 0, "opponents": list(LINEUP[1:]), "seed": str(seed)}
    status, answer = api.dispatch("POST", "/api/games", json.dumps(body))
    assert status == 201, answer
    game_id = answer["id"]
    table = api.tables.get(game_id)
    me = person(seed)
    while not answer["state"]["over"]:
        action = me.act(table.game.view(0))
        status, answer = api.dispatch("POST", f"/api/games/{game_id}/moves", json.dumps({"action": action}))
        assert status == 200, answer
    return table.moves, table.game


@pytest.mark.parametrize("seed", [7, 2**40 + 3])
def test_one_seed_gives_one_game_in_every_front_end(seed):
    moves, placings, fool, deck = by_eval(seed)
    played, game = by_terminal(seed)
    assert len(played) == moves and game.result.placings == placings and game.result.fool == fool
    for in_page in (False, True):
        page_moves, page_game = by_page(seed, in_page)
        assert page_moves == played, f"the page (in_page={in_page}) played another game than the terminal"
        assert page_game.result.placings == placings
    assert by_eval(seed)[3] == deck  # and eval deals the same cards each time


def test_bot_seeds_are_the_rule_of_every_front_end_and_unrelated_across_seats_and_deals():
    assert bot_seed(7, 0) == bot_seed(7, 0) != bot_seed(7, 1)
    assert bot_seed(7, 1) != bot_seed(8, 0) and bot_seed(7, 1) != 7 + 1  # not seed + seat, which collides
    assert bot_seed(7, 1) != derive_seed("eval-bot", 7, 1)
