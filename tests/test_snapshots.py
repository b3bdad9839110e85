"""Snapshots: ``to_dict``/``from_dict`` continue a game identically; a malformed or impossible snapshot
is refused with one ValueError line that names the problem, and never fails later in play."""

import copy
import json
import random

import pytest
from helpers import random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_invariants import TABLES

from durak_env import Game, Rules
from durak_env.engine.invariants import check_invariants, random_rules


@pytest.mark.parametrize("rules", TABLES)
def test_snapshot_round_trip_continues_identically(rules):
    for seed in range(6):
        game = Game(rules, seed)
        rng = random.Random(seed)
        stop = rng.randrange(1, 80)
        for _ in range(stop):
            if game.is_over:
                break
            game.step(rng.choice(game.legal_actions()))
        snap = game.to_dict()
        copy = Game.from_dict(json.loads(json.dumps(snap)))
        assert copy.to_dict() == snap
        clone = game.clone()
        while not game.is_over:
            action = rng.choice(game.legal_actions())
            for g in (game, copy, clone):
                g.step(action)
            assert copy.to_dict() == game.to_dict() == clone.to_dict()
        assert copy.result == game.result == clone.result


def test_clone_copies_every_field_and_shares_no_list():
    """``clone`` names each field itself (a class compiled by mypyc cannot be copied by looping over its
    slots): a field added to ``Game`` and forgotten in ``clone`` fails here."""
    fields = set(Game.__annotations__)
    assert set(getattr(Game, "__slots__", fields)) == fields  # compiled, the class has no __slots__
    game = Game(Rules.preset("seed003", num_players=4), 5)
    rng = random.Random(5)
    while not game.out_groups:  # far enough that every field has left its starting value
        game.step(rng.choice(game.legal_actions()))
    game.legal_actions()  # cached in the original; the clone works it out again
    clone = game.clone()
    assert clone._legal is None
    for name in fields - {"_legal"}:
        assert getattr(clone, name) == getattr(game, name), name
        if isinstance(getattr(game, name), list):
            assert getattr(clone, name) is not getattr(game, name), name
    assert game.last_bout is not None and game.bouts > 0 and game.known != [0] * 4


def test_snapshot_of_finished_game_round_trips():
    game = random_game(Rules.preset("seed003", num_players=4), 3)
    again = Game.from_dict(game.to_dict())
    assert again.result == game.result and again.legal_actions() == ()


@pytest.mark.parametrize("rules, seed, seat", [
    # Seed 003's bout cap ends the deal in the bout where the defender went out: the finished snapshot
    # names that defender and must still load.
    (Rules(num_players=6, deck_size=52, hand_size=3, full_table_hand_size=None, throw_in="all",
           throw_in_before_beaten=False, transfer=False, max_attacks=4, max_attacks_early=1, early_ends="first_bout",
           defender_limit="bout_start", throw_in_after_take=False, no_trump_lead="first_seat", open_discard=False,
           max_bouts=57), 4, "defender"),
    # ... or where the attacker went out: loading walked clockwise from the defender to the attacker to find
    # the throwers, never met it, and ran until memory ran out.
    (Rules(num_players=6, deck_size=24, hand_size=3, full_table_hand_size=None, throw_in="all",
           throw_in_before_beaten=True, transfer=True, max_attacks=6, max_attacks_early=3, early_ends="first_bout",
           defender_limit="current_hand", throw_in_after_take=True, no_trump_lead="after_dealer", open_discard=False,
           max_bouts=19), 3, "attacker"),
], ids=["defender went out", "attacker went out"])
def test_snapshot_of_a_capped_game_whose_last_defender_or_attacker_went_out_round_trips(rules, seed, seat):
    """Both found by the hypothesis test in test_invariants.py."""
    game = random_game(rules, seed)
    assert game.result.capped and getattr(game, seat) in game.out
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.result == game.result and again.to_dict() == game.to_dict()


# ----- refusals ------------------------------------------------------------------------------

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


def mutate(snap: dict, data) -> dict:
    snap = json.loads(json.dumps(snap))
    key = data.draw(st.sampled_from(sorted(snap)))
    how = data.draw(st.sampled_from(["delete", "junk", "duplicate card", "unknown card", "seat", "shrink"]))
    if how == "delete":
        del snap[key]
    elif how == "junk":
        snap[key] = data.draw(st.one_of(st.integers(-5, 60), st.none(), st.booleans(), st.text(max_size=5),
                                        st.lists(st.one_of(st.integers(-1, 7), st.text(max_size=3)), max_size=4),
                                        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
    elif how == "duplicate card" and snap["hands"][0]:
        snap["hands"][1 % len(snap["hands"])].append(snap["hands"][0][0])
    elif how == "unknown card":
        snap["hands"][0] = snap["hands"][0] + [data.draw(st.sampled_from(["1Z", "2C", "", "AH ", "XX", "11S"]))]
    elif how == "seat":
        field = data.draw(st.sampled_from(["attacker", "defender", "to_act", "opener", "first_seat"]))
        snap[field] = data.draw(st.sampled_from([-1, 7, 2, 1.5, "0", None]))
    elif how == "shrink" and isinstance(snap.get(key), list) and snap[key]:
        snap[key] = snap[key][:-1]
    return snap


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_fuzzed_snapshots_load_cleanly_or_are_refused_with_a_value_error(data, seed, steps):
    rng = random.Random(seed)
    game = Game(random_rules(rng), seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions()))
    bad = mutate(game.to_dict(), data)
    try:
        loaded = Game.from_dict(bad)
    except ValueError as err:
        assert str(err) and "\n" not in str(err)
        return
    # Accepted: it must be a sound position that plays to the end (never a crash later).
    check_invariants(loaded)
    while not loaded.is_over:
        loaded.step(rng.choice(loaded.legal_actions()))
        check_invariants(loaded)
