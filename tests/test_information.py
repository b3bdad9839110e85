"""Honest information: what a seat cannot see never changes what it is shown (STYLE.md, example 10)."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import durak_env
from durak_env import Card, Game, Rules
from durak_env.engine.cards import cards_of

PRESETS = ["podkidnoy", "perevodnoy", "attacker-only", "after-beaten", "tournament"]


def shuffle_hidden(snap: dict, seat: int, rng: random.Random) -> dict:
    """The same position with every card ``seat`` cannot see dealt differently: other seats' cards not
    seen picked up, and the stock but its face-up trump card; every hand keeps its size."""
    out = {**snap, "hands": [list(h) for h in snap["hands"]], "stock": list(snap["stock"])}
    hidden, holes = [], []
    for s, h in enumerate(out["hands"]):
        if s == seat:
            continue
        for i, c in enumerate(h):
            if c not in snap["known"][s]:
                hidden.append(c)
                holes.append(("hand", s, i))
    for i, c in enumerate(out["stock"][:-1]):  # the last stock card is the face-up trump
        hidden.append(c)
        holes.append(("stock", None, i))
    rng.shuffle(hidden)
    for (where, s, i), c in zip(holes, hidden):
        if where == "hand":
            out["hands"][s][i] = c
        else:
            out["stock"][i] = c
    return out


def seat_outputs(snap: dict, seat: int):
    env = durak_env.raw_env(Rules.from_dict(snap["rules"]), auto_play_forced=False)
    env.reset(options={"state": snap})
    obs = env.observe(f"player_{seat}")
    view = env.view(f"player_{seat}")
    return obs["observation"], obs["action_mask"], view


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(PRESETS), players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6),
       moves=st.integers(0, 120), seat=st.integers(0, 5))
def test_hidden_cards_do_not_change_the_observation(preset, players, seed, moves, seat):
    rules = Rules.preset(preset, num_players=players)
    seat %= players
    game = Game(rules, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions()))
    snap = game.to_dict()
    other = shuffle_hidden(snap, seat, rng)
    a, b = seat_outputs(snap, seat), seat_outputs(other, seat)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2]


def test_control_a_visible_difference_changes_the_observation():
    """The test above can fail: swapping a card of the seat's own hand does change its observation."""
    game = Game(Rules(), seed=4)
    snap = game.to_dict()
    own = snap["hands"][0]
    stock = snap["stock"]
    changed = {**snap, "hands": [[stock[0]] + own[1:], snap["hands"][1]], "stock": [own[0]] + stock[1:]}
    assert not np.array_equal(seat_outputs(snap, 0)[0], seat_outputs(changed, 0)[0])
    assert np.array_equal(seat_outputs(snap, 1)[0], seat_outputs(changed, 1)[0])


def test_hidden_discard_shows_only_its_count_seed003():
    """Seed 003: "Beaten cards go out of play and only their number is shown"."""
    rules = Rules.preset("tournament")
    env = durak_env.raw_env(rules)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    while env.game.discard == 0 and not env.game.is_over:
        env.step(int(rng.choice(env.game.legal_actions())))
    s = durak_env.observation_slices(rules)
    obs = env.observe("player_0")["observation"]
    assert obs[s["discard"]].sum() == 0 and obs[s["discard_count"]][0] > 0
    view = env.view("player_0")
    assert view.discard is None and view.discard_count == env.game.discard.bit_count()
    open_env = durak_env.raw_env(Rules())
    open_env.reset(options={"state": {**env.game.to_dict(), "rules": Rules().to_dict()}})
    assert open_env.observe("player_0")["observation"][s["discard"]].sum() == env.game.discard.bit_count()


def test_picked_up_cards_are_known_to_everyone():
    """Seed 001: each player sees "any cards a player was seen to pick up"."""
    rules = Rules()
    for seed in range(50):
        game = Game(rules, seed)
        rng = random.Random(seed)
        while not game.is_over and game.bouts == 0:
            acts = game.legal_actions()
            take = game.layout.take
            game.step(take if take in acts else rng.choice(acts))
        if game.known[1] or game.known[0]:
            taker = 0 if game.known[0] else 1
            view = game.view(1 - taker)
            assert set(view.known[taker]) == {Card(c) for c in cards_of(game.known[taker])}
            return
    pytest.fail("no take happened")


@pytest.mark.parametrize("preset, players, deck", [("podkidnoy", 2, 36), ("perevodnoy", 3, 36), ("tournament", 4, 36),
                                                   ("after-beaten", 5, 36), ("tournament", 6, 36), ("podkidnoy", 2, 24),
                                                   ("perevodnoy", 4, 52), ("tournament", 6, 52)])
def test_the_game_path_encodes_exactly_what_the_view_holds(preset, players, deck):
    """The environments encode straight from the game (``encode_game``, ``encode_games`` for a batch), bots
    from a view (``encode``, ``encode_many``): the same vector for every seat at every step, hidden discard
    (seed 003) included, for every deck (the batch copies each suit's ranks as one block)."""
    from durak_env.observation import ObservationEncoder

    rules = Rules.preset(preset, num_players=players, deck_size=deck)
    enc = ObservationEncoder(rules)
    for seed in range(3):
        game = Game(rules, seed)
        rng = random.Random(seed)
        while True:
            views = [game.view(s) for s in range(players)]
            batch = enc.encode_games([game] * players, list(range(players)), np.empty((players, enc.size), np.float32))
            many = enc.encode_many(views)  # the bots' batch path (a frozen policy's moves in the trainer)
            for s, view in enumerate(views):
                expected = enc.encode(view)
                np.testing.assert_array_equal(enc.encode_game(game, s), expected)
                np.testing.assert_array_equal(batch[s], expected)
                np.testing.assert_array_equal(many[s], expected)
                np.testing.assert_array_equal(enc.mask_game(game, s), enc.mask(view))
            if game.is_over:
                break
            game.step(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("preset, players, deck, digest", [
    ("podkidnoy", 2, 36, "28d05c83073437ca"), ("perevodnoy", 3, 36, "c48cd898e75644d4"),
    ("tournament", 4, 36, "e91460f3f9e8af37"), ("podkidnoy", 6, 52, "e00207795277dd16")])
def test_the_observation_layout_is_the_one_bots_were_trained_on(preset, players, deck, digest):
    """Layout version 1, value for value: every seat's observation along one seeded random deal, hashed.  The
    digests were taken from the encoder before it became one writer for one row and for a batch; bots shipped
    before read these numbers, so a change here needs a new OBSERVATION_VERSION (and the bots refused or kept)."""
    import hashlib

    from durak_env.observation import OBSERVATION_VERSION, ObservationEncoder

    rules = Rules.preset(preset, num_players=players, deck_size=deck)
    enc = ObservationEncoder(rules)
    h = hashlib.sha256()
    game, rng = Game(rules, seed=11), random.Random(11)
    while not game.is_over:
        for seat in range(players):
            h.update(enc.encode_game(game, seat).tobytes())
        game.step(rng.choice(game.legal_actions()))
    assert OBSERVATION_VERSION == 1 and h.hexdigest()[:16] == digest
