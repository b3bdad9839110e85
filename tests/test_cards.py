"""Cards as text and the ``beats`` rule (seed 000's three clauses)."""

import itertools

import pytest
from helpers import cards

from durak_env import Card, beats
from durak_env.engine.cards import BEATERS, SUITS, beater_mask, cards_of, deck


def test_text_round_trip_every_card():
    for c in range(52):
        assert Card.parse(str(Card(c))) == c
    assert str(Card.parse("10H")) == "10H" and str(Card.parse("qs")) == "QS" and Card.parse("TD") == Card.parse("10D")
    assert Card.parse("6D").symbol() == "6♦"


@pytest.mark.parametrize("bad", ["", "1H", "11S", "6X", "H6", "10", None, 7])
def test_bad_card_text_is_refused(bad):
    with pytest.raises(ValueError, match="card"):
        Card.parse(bad)


def test_deck_sizes():
    assert len(deck(24)) == 24 and len(deck(36)) == 36 and len(deck(52)) == 52
    assert {str(Card(c))[:-1] for c in deck(24)} == {"9", "10", "J", "Q", "K", "A"}
    assert min(Card(c).rank for c in deck(36)) == Card.parse("6C").rank


def test_beats_reads_like_seed000():
    """Seed 000: "higher in rank and of the same suit, or any trump, when the attacking card is not a trump,
    or a higher trump, when the attacking card is a trump."  Seed 004's example with spades trumps:
    "The defender could beat it with the nine of hearts, the king of hearts, or even the six of spades ...
    But the seven of diamonds would not work"."""
    spades = SUITS.index("S")
    eight_h = Card.parse("8H")
    assert [beats(c, eight_h, spades) for c in cards("9H KH 6S 7D 7H AD")] == [True, True, True, False, False, False]
    assert beats(Card.parse("QS"), Card.parse("JS"), spades) and not beats(Card.parse("10S"), Card.parse("JS"), spades)
    assert not beats(Card.parse("AH"), Card.parse("6S"), spades)  # "A trump falls only to a higher trump"
    assert not beats(Card.parse("8H"), eight_h, spades)  # a card never beats itself


def seed000(d: int, a: int, t: int) -> bool:
    """Seed 000's three clauses, written out independently of ``beats``."""
    same_suit_higher = d // 13 == a // 13 and d % 13 > a % 13
    any_trump_on_plain = d // 13 == t and a // 13 != t
    higher_trump = d // 13 == t and a // 13 == t and d % 13 > a % 13
    return same_suit_higher or any_trump_on_plain or higher_trump


def test_beats_is_seed000_on_every_pair_and_every_trump():
    """``beats`` agrees with the three clauses on all 52 x 52 x 4 cases; a mutant of it (a dropped suit check,
    the trump clause read first) disagrees somewhere, so this test would catch it."""
    triples = list(itertools.product(range(52), range(52), range(4)))
    assert all(beats(d, a, t) == seed000(d, a, t) for d, a, t in triples)

    def no_suit_check(d, a, t):
        return d % 13 > a % 13 or d // 13 == t

    def trump_first(d, a, t):
        return d // 13 == t or (d // 13 == a // 13 and d > a)

    for mutant in (no_suit_check, trump_first):
        assert any(mutant(d, a, t) != seed000(d, a, t) for d, a, t in triples)


def test_beater_table_matches_beats():
    for t in range(4):
        for a in range(52):
            assert set(cards_of(BEATERS[t][a])) == {d for d in range(52) if beats(d, a, t)}
            assert BEATERS[t][a] == beater_mask(a, t)
