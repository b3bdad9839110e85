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

from durak_env import Card, Game, Rules
from durak_env.engine.game import DERIVED
from durak_env.engine.invariants import InvariantViolation, check_invariants, random_rules
from durak_env.engine.snapshot import FACTS, KEYS


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


def test_a_game_holds_its_rules_facts_and_what_is_derived_from_them():
    """Every field of ``Game`` is the rules, a stored fact (what a snapshot holds and a clone copies), a derived
    one (``_derive``), the cached legal moves or the last bout's event: a field outside these would be lost by
    snapshots and clones, and fails here."""
    names = {"rules", *FACTS, *DERIVED, "_legal", "last_bout"}
    assert len(names) == 3 + len(FACTS) + len(DERIVED)  # no name in two places
    assert set(Game.__annotations__) == names
    assert set(getattr(Game, "__slots__", names)) == names  # ... and no __slots__
    game = Game(Rules(num_players=3), 1)
    assert all(hasattr(game, name) for name in names)


def test_clone_copies_every_fact_shares_no_list_and_derives_the_rest():
    game = Game(Rules.preset("tournament", num_players=4), 5)
    rng = random.Random(5)
    while not game.out_groups:  # far enough that every fact has left its starting value
        game.step(rng.choice(game.legal_actions()))
    game.legal_actions()  # cached in the original; the clone works it out again
    clone = game.clone()
    assert clone._legal is None and clone.last_bout == game.last_bout
    for name in [*FACTS, *DERIVED]:
        assert getattr(clone, name) == getattr(game, name), name
        if isinstance(getattr(game, name), list):
            assert getattr(clone, name) is not getattr(game, name), name
    assert game.last_bout is not None and game.bouts > 0 and game.known != [0] * 4


@pytest.mark.parametrize("name, value", [("to_act", lambda g: g.next_in(g.to_act)), ("open_count", lambda g: 2),
                                         ("table_ranks", lambda g: 0), ("limit", lambda g: 9), ("cap", lambda g: 1),
                                         ("throwers", lambda g: ()), ("out_mask", lambda g: 0)])
def test_a_derived_fact_out_of_step_with_the_facts_is_an_invariant_violation(name, value):
    """``check_invariants`` derives every derived fact afresh and compares: a move that forgot to keep one in
    step is caught in every game the tests play."""
    game = Game(Rules.preset("tournament", num_players=4), 5)
    rng = random.Random(5)
    while not (game.out_groups and game.attacks and game.defences[0] >= 0):
        game.step(rng.choice(game.legal_actions()))
    check_invariants(game)
    value = value(game)
    assert getattr(game, name) != value
    setattr(game, name, value)
    with pytest.raises(InvariantViolation, match=f"{name} is out of step"):
        check_invariants(game)


def test_a_snapshot_names_each_fact_once_and_refuses_a_bout_limit_that_is_not_the_defenders():
    game = Game(Rules(num_players=3), seed=4)
    game.step(game.legal_actions()[0])
    snap = game.to_dict()
    assert set(snap) == set(KEYS) and snap["bout_limit"] == game.limit == 6
    game = Game.from_dict({k: v for k, v in snap.items() if k != "bout_limit"})  # derived: older snapshots may lack it
    assert game.to_dict() == snap
    with pytest.raises(ValueError, match="bout_limit is 5, but the defender held 6"):
        Game.from_dict({**snap, "bout_limit": 5})


def test_snapshot_of_finished_game_round_trips():
    game = random_game(Rules.preset("tournament", num_players=4), 3)
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
    (dict(hands=lambda s: s["hands"][:2]), "hands must be a list of 3 card lists"),
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


# ----- the loader's checks, one position each (what a wrong check would let through or refuse) -----------

def moved(snap: dict, cards: list[str], to: str) -> dict:
    """``snap`` with ``cards`` taken from wherever they are (a hand, the stock, the discard) and put on the table
    as ``to`` says: "attacks" (unbeaten), or "pairs" (``cards`` taken two by two: attack, defence)."""
    s = copy.deepcopy(snap)
    for card in cards:
        for place in [*s["hands"], s["stock"], s["discard"]]:
            if card in place:
                place.remove(card)
    s["table"] = [[c, None] for c in cards] if to == "attacks" else [cards[i:i + 2] for i in range(0, len(cards), 2)]
    s.pop("bout_limit", None)
    return s


@pytest.fixture
def clubs():
    """Two seats, 52 cards, clubs are trumps (the king of clubs turned up), before the first card."""
    snap = Game(Rules(deck_size=52), 5).to_dict()
    assert snap["trump_suit"] == "C" and snap["trump_card"] == "KC"
    return snap


def test_the_two_of_clubs_beating_first_is_a_beaten_pair(clubs):
    """Card 0 (the two of clubs) is a defence like any other: a pair it beats may come before another beaten pair."""
    s = moved(clubs, ["3H", "2C", "4H", "5H"], "pairs")
    s["to_act"] = s["attacker"]  # every card beaten: the attacker adds or says done
    game = Game.from_dict(s)
    assert game.defences == [0, int(Card.parse("5H"))] and game.open_count == 0


@pytest.mark.parametrize("pairs, words", [
    (["3H", None, "4H", "5H"], "beaten after an unbeaten card"),
    (["3H", "2H", "4H", "5H"], "2H does not beat 3H"),
])
def test_a_table_answered_out_of_order_or_with_a_card_that_does_not_beat_is_refused(clubs, pairs, words):
    s = moved(clubs, [c for c in pairs if c], "pairs")
    s["table"] = [pairs[i:i + 2] for i in range(0, len(pairs), 2)]
    s["to_act"] = s["defender"]
    with pytest.raises(ValueError, match=words):
        Game.from_dict(s)


def test_a_full_table_loads_and_one_more_attack_is_refused(clubs):
    """Seed 004: at most six attack cards in a bout (``max_attacks``): six load, seven do not."""
    six = ["3H", "4H", "5H", "6H", "7H", "8H"]
    s = moved(clubs, six, "attacks")
    defender = s["defender"]
    s["hands"][defender] += [c for c in s["stock"][:6]]  # a defender who holds enough to face six
    s["stock"] = s["stock"][6:]
    s["to_act"] = defender
    assert len(Game.from_dict(s).attacks) == 6
    s = moved(s, six + ["9H"], "attacks")
    with pytest.raises(ValueError, match="holds 7 attacks; the rules allow 6"):
        Game.from_dict(s)


def test_more_unbeaten_cards_than_the_defender_holds_are_refused_unless_it_is_taking(snap):
    """Seed 004: "The cards lying unbeaten must number fewer than the cards in the defender's hand" ... or as many;
    a defender who has said take (``throw_in_after_take``) may face more."""
    s = copy.deepcopy(snap)
    defender = s["defender"]
    s["discard"] += s["hands"][defender]
    s["hands"][defender] = []
    s.pop("bout_limit")
    with pytest.raises(ValueError, match="more unbeaten cards than the defender holds"):
        Game.from_dict(s)


@pytest.mark.parametrize("change, words", [
    (dict(table=[5]), r"table\[0\] must be a pair"),
    (dict(table=lambda s: [[s["table"][0][0], "ZZ"]]), r"table\[0\]\[1\]"),
    (dict(out=5), "out_groups must list the seats of out"),
    (dict(out_groups=5), "out_groups must be a list of lists"),
    (dict(out_groups=[[7]], out=[7]), "out_groups must be a seat from 0 to 2"),
    (dict(passed=[9]), "passed must be a seat from 0 to 2"),
    (dict(opener=-1), "opener must be a seat from 0 to 2"),
    (dict(bouts=-1), "bouts must be a count from 0"),
    (dict(discard=["ZZ"]), r"discard\[0\]"),
    (dict(known=[[], ["ZZ"], []]), r"known\[1\]\[0\]"),
    (dict(stock=lambda s: s["stock"] + [s["discard"][0]] if s["discard"] else s["stock"] + [s["hands"][0][0]]),
     "stock"),
])
def test_more_bad_snapshots_name_the_key(snap, change, words):
    with pytest.raises(ValueError, match=words):
        Game.from_dict(broken(snap, **change))


@pytest.mark.parametrize("place", ["stock", "discard", "table"])
def test_a_card_in_two_places_names_both(clubs, place):
    s = copy.deepcopy(clubs)
    s["stock"], s["discard"] = s["stock"][1:], [s["stock"][0]]  # a card in the discard
    card = s["hands"][0][0]
    if place == "table":
        s["table"] = [[card, None]]
    else:
        s[place].insert(0, card)
    with pytest.raises(ValueError, match=f"more than one place: (hands\\[0\\], {place}|{place}, hands\\[0\\])$"):
        Game.from_dict(s)


def a_seat_out() -> dict:
    """A snapshot of a three-seat deal that goes on after a seat went out."""
    game, rng = Game(Rules(num_players=3), 2), random.Random(2)
    while not game.out_groups or game.is_over:
        game = game if not game.is_over else Game(Rules(num_players=3), rng.randrange(99))
        game.step(rng.choice(game.legal_actions()))
    return game.to_dict()


def test_out_must_be_the_seats_of_out_groups():
    s = a_seat_out()
    assert Game.from_dict(s).out == s["out"] != []
    with pytest.raises(ValueError, match="out_groups must list the seats of out"):
        Game.from_dict({**s, "out": []})


@pytest.mark.parametrize("seat", ["attacker", "defender"])
def test_a_bout_seat_that_has_gone_out_is_refused(seat):
    s = a_seat_out()
    gone = s["out"][0]
    s[seat] = gone
    s.pop("bout_limit")
    with pytest.raises(ValueError, match=f"{seat} {gone} has gone out|attacker and defender must be different"):
        Game.from_dict(s)
