"""Tests added because a mutant of the engine survived the suite (benchmarks/mutation.py): each says which
rule it protects and quotes its seed."""

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
