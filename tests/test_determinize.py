"""Worlds sampled from one seat's knowledge (durak_env/engine/determinize.py), as the search bots use them.

Seed 001: "The stronger players try out many possible layouts of the unseen cards before choosing."  A
layout must agree with everything the seat sees (its hand, the table, the counts, the cards it saw others
pick up, the discard where the rules show it) and deal only the cards it cannot see.
"""

import random

import pytest

from durak_env import Game, Rules
from durak_env.engine.cards import cards_of
from durak_env.engine.determinize import sample_world, unseen_cards
from durak_env.engine.invariants import check_invariants

TABLES = [
    Rules(),                                                   # seed 004: the discard is open
    Rules.preset("tournament", num_players=4),                    # seed 003: "only their number is shown"
    Rules.preset("perevodnoy", num_players=3),
    Rules.preset("after-beaten", num_players=5, deck_size=52),
]


def positions(rules: Rules, games: int = 6):
    """Positions of random deals, each with a decision pending (some after a take: known cards)."""
    for seed in range(games):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            if rng.random() < 0.15:
                yield game
            game.step(rng.choice(game.legal_actions()))


def hidden_from(game: Game, seat: int) -> set[int]:
    """The cards this seat cannot place: others' cards it has not seen picked up, the stock below the
    face-up trump card, and the discard where the rules hide it."""
    hidden = set()
    for s in range(game.n):
        if s != seat:
            hidden |= set(cards_of(game.hands[s] & ~game.known[s]))
    hidden |= set(game.stock[1:]) if game.stock else set()
    if not game.rules.open_discard:
        hidden |= set(cards_of(game.discard))
    return hidden


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: r.describe())
def test_a_sampled_world_agrees_with_everything_the_seat_sees(rules):
    rng = random.Random(1)
    count = 0
    for game in positions(rules):
        seat = game.to_act
        view = game.view(seat)
        assert set(unseen_cards(view)) == hidden_from(game, seat)
        world = sample_world(view, rng)
        check_invariants(world)  # every card in exactly one place, the counts and the acting seat consistent
        # The seat cannot tell the world from the real deal (the last bout's story is history, not dealt).
        assert world.view(seat)._replace(last_bout=view.last_bout) == view
        for s in range(game.n):
            assert world.hand_size(s) == game.hand_size(s)
            assert world.hands[s] & game.known[s] == game.known[s]  # a card seen picked up stays there
        assert len(world.stock) == len(game.stock) and world.stock[:1] == game.stock[:1]
        if rules.open_discard:
            assert world.discard == game.discard
        count += 1
    assert count > 30


def test_the_unseen_cards_are_dealt_at_random_among_every_place_they_could_be():
    """Over many samples each hidden card turns up in each opponent's hand and in the stock; the seat's own
    hand never changes."""
    rules = Rules.preset("tournament", num_players=3)
    game = Game(rules, seed=5)
    rng = random.Random(0)
    for _ in range(6):
        game.step(rng.choice(game.legal_actions()))
    seat = game.to_act
    view = game.view(seat)
    places = {c: set() for c in unseen_cards(view)}
    for _ in range(300):
        world = sample_world(view, rng)
        assert world.hands[seat] == game.hands[seat]
        for s in range(game.n):
            for c in cards_of(world.hands[s]):
                if c in places:
                    places[c].add(f"hand {s}")
        for c in world.stock[1:]:
            places[c].add("stock")
    others = {f"hand {s}" for s in range(game.n) if s != seat}
    for card, where in places.items():
        assert where == others | {"stock"}, (card, where)


def test_the_same_generator_gives_the_same_world():
    game = Game(Rules(), seed=3)
    for _ in range(5):
        game.step(game.legal_actions()[0])
    view = game.view(game.to_act)
    first, second = sample_world(view, random.Random(9)), sample_world(view, random.Random(9))
    assert first.to_dict() == second.to_dict()
    assert sample_world(view, random.Random(10)).to_dict() != first.to_dict()
