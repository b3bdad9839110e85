"""The 2-player endgame solver (native/solve.hpp, ``Game.solve``): each move's exact value, checked against a plain
minimax on the reference engine, and its refusals."""

import pytest
from helpers import positions_met

from durak_env.engine.game import Game
from durak_env.engine.rules import Rules
from durak_env.native import available, to_native

pytestmark = pytest.mark.skipif(not available(), reason="the solver is in the native engine")
PODKIDNOY = Rules.preset("podkidnoy")
PLAY_FACTS = ("hands", "attacks", "defences", "attacker", "defender", "opener", "passed", "taking")
"""What the rest of an uncapped 2-player deal with an empty stock depends on (the discard is what the rest is not)."""


def minimax(game, seat: int, memo: dict) -> float:
    """The reward ``seat`` gets with best play on both sides: every move tried (on the native engine, whose moves
    tests/test_native.py holds to the reference's), each position once."""
    if game.over:
        return game.rewards()[seat]
    facts = game.facts()
    key = repr([facts[name] for name in PLAY_FACTS])
    if key not in memo:
        values = []
        for action in game.legal_actions():
            child = game.clone()
            child.play(action)
            values.append(minimax(child, seat, memo))
        memo[key] = max(values) if game.to_act == seat else min(values)
    return memo[key]


def endings(count: int, most_cards: int, seed: int = 3) -> list[Game]:
    """Positions with an empty stock and at most ``most_cards`` in the hands and on the table (a take puts the table
    in a hand), from deals played half at random and half by the lowest legal move."""
    def small(game: Game) -> bool:
        cards = sum(bin(h).count("1") for h in game.hands) + len(game.attacks) + sum(d >= 0 for d in game.defences)
        return not game.stock and cards <= most_cards

    return positions_met(PODKIDNOY, small, count, seed,
                         choose=lambda rng, legal: rng.choice(legal) if rng.random() < 0.5 else min(legal))


def test_each_moves_value_is_the_minimax_value_of_the_ending():
    """A wrong rule in the search (a move left out, a seat's values mixed up, a position mistaken for another in
    its table) gives some move another value than trying every line does."""
    values_seen = set()
    for game in endings(150, most_cards=9):
        native = to_native(game)
        want, memo = {}, {}
        for action in native.legal_actions():
            child = native.clone()
            child.play(action)
            want[action] = minimax(child, game.to_act, memo)
        assert native.solve() == want
        values_seen |= set(want.values())
    assert values_seen == {-1.0, 1.0} or values_seen == {-1.0, 0.0, 1.0}  # won and lost endings both met


def test_a_limit_too_small_answers_none_and_what_is_not_an_ending_is_refused():
    game = endings(1, most_cards=5)[0]
    assert to_native(game).solve(node_limit=1) is None
    with pytest.raises(ValueError, match="node_limit"):
        to_native(game).solve(node_limit=0)
    with pytest.raises(ValueError, match="empty stock"):
        to_native(Game(PODKIDNOY, seed=1)).solve()
    with pytest.raises(ValueError, match="2-player"):
        to_native(Game(Rules.preset("podkidnoy", num_players=3), seed=1)).solve()


def test_an_ending_that_can_go_round_for_ever_answers_none_or_its_values():
    """Seed 002: "In perevodnoy, a defender who has not beaten anything yet may pass the attack on by adding a card
    of the same rank."  At two seats a line need not end then: the defender passes it on, the attacker, now
    defending, takes, and the same cards pass back and forth.  The solver, recursing down such a
    line, overflowed the stack and took the interpreter with it; a line past its depth limit now ends the search
    unsolved, as the node limit does, and an ending whose lines all end still gets every move's value."""
    perevodnoy = Rules.preset("perevodnoy")
    answers = [to_native(game).solve() for game in positions_met(perevodnoy, lambda game: not game.stock, 12, seed=3)]
    assert None in answers
    for game, answer in zip(positions_met(perevodnoy, lambda game: not game.stock, 12, seed=3), answers):
        assert answer is None or set(answer) == set(to_native(game).legal_actions())
    assert any(answer is not None for answer in answers)
