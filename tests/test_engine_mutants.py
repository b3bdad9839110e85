"""Tests added because a mutant of the engine survived the suite (benchmarks/mutation.py): each says which
rule it protects and quotes its seed."""

import json

from durak_env import Card, Rules
from durak_env.engine.cards import parse_cards


def test_rules_describe_names_the_preset_and_table_or_the_fields_that_differ():
    """What the page, the terminal and bot files say a game is: the first preset the rules equal at their table
    size, else the fields that differ from the default (seed 004's game)."""
    assert Rules().describe() == "podkidnoy, 2 players"
    assert Rules.preset("seed003", num_players=4).describe() == "seed003, 4 players"
    assert Rules.preset("perevodnoy", num_players=3).describe() == "perevodnoy, 3 players"
    assert Rules(deck_size=52, transfer=True).describe() == "deck_size=52, transfer=True"


def test_cards_read_and_write_themselves():
    """Seed 004 names cards by rank then suit ("10H", "QS"); a list of them is space-separated."""
    assert parse_cards("6D 10h qs") == [Card.parse("6D"), Card.parse("10H"), Card.parse("QS")]
    assert parse_cards("") == []
    assert repr(Card.parse("10H")) == "Card('10H')" and str(Card.parse("TS")) == "10S"


def test_after_a_drawn_deal_the_deal_passes_one_seat_on_seed003():
    """Seed 003: the fool deals the next deal, the seat after the dealer leading; "after a draw the deal passes
    one seat on" (durak_env/engine/match.py).  The first deal is dealt by the last seat."""
    from durak_env import Game, Match

    rules = Rules.preset("seed003", num_players=4)
    drawn = Game(rules, seed=64)
    while not drawn.is_over:
        drawn.step(drawn.legal_actions()[0])
    assert drawn.result.fool is None
    match = Match(rules, seed=0)
    match.record(drawn)
    assert match.first_seat == 1  # the first dealer was seat 3; one seat on deals (seat 0), seat 1 leads
    match.record(drawn)
    assert match.first_seat == 2
    lost = Game(rules, seed=1)
    while not lost.is_over:
        lost.step(lost.legal_actions()[0])
    match.record(lost)
    assert match.first_seat == (lost.result.fool + 1) % 4


def test_every_deal_of_a_match_can_be_recorded():
    """A match's deals are dealt from seeds that a game record can hold (0 to 2**64 - 1), so each deal of a
    match in the browser can be downloaded and replayed."""
    from durak_env import Match
    from durak_env.engine.record import load_record, make_record

    rules = Rules.preset("seed003", num_players=3, match_deals=15)
    match = Match(rules, seed=11)
    while not match.over:
        game = match.next_deal()
        moves = []
        while not game.is_over:
            moves.append((game.to_act, game.legal_actions()[0]))
            game.step(moves[-1][1])
        record = make_record(rules, match.seeds[-1], game.first_seat, moves)
        assert load_record(json.loads(json.dumps(record.to_dict()))).seed == match.seeds[-1]
        match.record(game)
    assert len(set(match.seeds)) == 15
