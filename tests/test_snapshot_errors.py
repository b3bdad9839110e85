"""A malformed or impossible snapshot is refused with a ValueError that says what is wrong."""

import copy

import pytest

from durak_env import Game, Rules


@pytest.fixture
def snap():
    game = Game(Rules(num_players=3), seed=4)
    game.step(game.legal_actions()[0])
    return game.to_dict()


def broken(snap, **changes):
    s = copy.deepcopy(snap)
    for key, value in changes.items():
        if value is ...:
            del s[key]
        else:
            s[key] = value(s) if callable(value) else value
    return s


@pytest.mark.parametrize("change, words", [
    (dict(hands=...), "missing hands"),
    (dict(extra=1), "unknown key 'extra'"),
    (dict(trump_suit="X"), "trump_suit"),
    (dict(trump_card="ZZ"), "trump_card"),
    (dict(hands=lambda s: [s["hands"][0] + [s["hands"][1][0]]] + s["hands"][1:]), "more than one place"),
    (dict(hands=lambda s: [s["hands"][0][1:]] + s["hands"][1:]), "missing"),
    (dict(hands=lambda s: s["hands"][:2]), "3 hands"),
    (dict(stock=lambda s: s["stock"][::-1]), "trump card"),
    (dict(attacker=7), "attacker must be a seat"),
    (dict(to_act=2), "waits on seat"),
    (dict(out=[0]), "out"),
    (dict(table=[["6X", None]]), "table"),
    (dict(rules={"num_players": 9}), "num_players"),
    (dict(hands=lambda s: [s["hands"][0][:-1] + ["2C"]] + s["hands"][1:]), "not in a 36-card deck"),
    (dict(known=[["AS"], [], []]), "known"),
    (dict(taking=True), "taking"),
])
def test_bad_snapshots_name_the_problem(snap, change, words):
    with pytest.raises(ValueError, match=words):
        Game.from_dict(broken(snap, **change))


def test_not_a_dict():
    with pytest.raises(ValueError, match="snapshot"):
        Game.from_dict([1, 2])
