"""One scenario per rule choice, each quoting the seed sentence it checks (the rule references 000-004;
docs/rules.md quotes them field by field)."""

import pytest
from helpers import act, cards, hand, legal, names, position

from durak_env import Game, Match, Rules
from durak_env.engine.cards import deck

PODKIDNOY = Rules()


def deal_deck(rules: Rules, hands: list[str], trump_card: str, first_seat: int = 0) -> list[int]:
    """A shuffled deck that deals ``hands`` (cards go out one at a time from the back, seed 004)."""
    per_seat = [cards(h) for h in hands]
    n = rules.num_players
    dealt = []
    for r in range(rules.deal_size):
        for i in range(n):
            dealt.append(per_seat[(first_seat + i) % n][r])
    trump = cards(trump_card)[0]
    rest = [c for c in deck(rules.deck_size) if c not in dealt and c != trump]
    return [trump] + rest + list(reversed(dealt))


# ----- seed 004: the walkthrough deal ------------------------------------------------------------


def test_seed004_walkthrough():
    """Seed 004: "Clubs are trumps. The opponent holds the six of diamonds, seven of spades, nine of hearts,
    king of spades, eight of clubs and jack of clubs. ... Since 8 is under 12, the opponent leads." """
    rules = Rules.preset("podkidnoy")
    opponent, you = 0, 1
    game = Game.from_deck(rules, deal_deck(rules, ["6D 7S 9H KS 8C JC", "QC 8D 10H AS 7D 9S"], "7C"))
    assert len(game.stock) == 24  # "so the stock starts at 24"
    assert game.attacker == opponent and game.to_act == opponent

    act(game, "attack 6D")  # "It leads the six of diamonds."
    assert legal(game) == {"done"}  # no other six to add before you answer
    act(game, "done")
    assert game.to_act == you and legal(game) == {"defend 7D", "defend 8D", "defend QC", "take"}
    act(game, "defend 8D")  # "You beat it with the eight of diamonds."
    # "Now only ranks 6 and 8 may be added, and the one card in its hand with either rank is the eight of clubs."
    assert legal(game) == {"attack 8C", "done"}
    act(game, "attack 8C")
    act(game, "done")
    assert "defend QC" in legal(game)
    act(game, "defend QC")  # "You beat the eight of clubs with the queen of clubs"
    # "Its four remaining cards are the seven, nine, king and jack ... none of those match."
    assert legal(game) == {"done"}
    act(game, "done")
    # "the four table cards are thrown away, and you attack next."
    assert names(game.discard) == "8C QC 6D 8D"
    assert game.attacker == you and game.to_act == you
    # "both fill back up to six, which takes four cards out of the stock and drops it from 24 to 20."
    assert [game.hand_size(s) for s in (0, 1)] == [6, 6]
    assert len(game.stock) == 20
    # "12 cards in hands, 20 in the stock, 4 in the discard, 36 in all."
    assert 12 + len(game.stock) + game.discard.bit_count() == 36


# ----- who leads ---------------------------------------------------------------------------------

NO_TRUMP_HANDS = ["6D 7D 8D 9D 10D JD", "6H 7H 8H 9H 10H JH"]


@pytest.mark.parametrize(
    "preset, first_seat, leader",
    [
        ("attacker-only", 1, 1),  # 000: "If nobody was dealt a trump, the first seat leads."
        ("tournament", 1, 1),  # 003: "If nobody was dealt a trump, the player after the dealer does."
        ("podkidnoy", 1, 0),  # 004: "When both come back 99 ... the opening attack is yours."
        ("after-beaten", 1, 0),  # 001: "if nobody holds a trump, you start"
    ],
)
def test_nobody_dealt_a_trump(preset, first_seat, leader):
    rules = Rules.preset(preset)
    game = Game.from_deck(rules, deal_deck(rules, NO_TRUMP_HANDS, "6C", first_seat), first_seat)
    assert not any(h & 0x1FFF for h in game.hands)  # no clubs dealt
    assert game.attacker == leader


def test_first_seat_and_after_dealer_name_the_same_seat():
    """Seed 000: "If nobody was dealt a trump, the first seat leads"; seed 003: "If nobody was dealt a trump,
    the player after the dealer does."  A deal's first seat is the player after the dealer (the cards go out
    from it, and a match where "the fool loses the deal" deals next from the seat after the fool), so the two
    readings lead from the same seat at every table and in every deal of a match."""
    for first_seat in range(2):
        leaders = {Game.from_deck(Rules.preset(p), deal_deck(Rules.preset(p), NO_TRUMP_HANDS, "6C", first_seat),
                                  first_seat).attacker for p in ("attacker-only", "tournament")}
        assert leaders == {first_seat}
    match = Match(Rules.preset("tournament", num_players=3), seed=5)
    while not match.over:
        game = match.next_deal()
        if match.results and match.results[-1].fool is not None:
            assert game.first_seat == (match.results[-1].fool + 1) % 3  # the fool dealt: the next seat is first
        while not game.is_over:
            game.step(game.legal_actions()[0])
        match.record(game)


def test_nobody_dealt_a_trump_redeals_in_seed002():
    """Seed 002: "If nobody holds a trump, the cards are dealt again." """
    rules = Rules.preset("throw-after-take")
    with pytest.raises(ValueError, match="redeal"):
        Game.from_deck(rules, deal_deck(rules, NO_TRUMP_HANDS, "6C"))
    for seed in range(300):
        game = Game(rules, seed)
        trumps = [h & (0x1FFF << 13 * game.trump) for h in game.hands]
        assert any(trumps)
        lowest = min((t & -t, s) for s, t in enumerate(trumps) if t)[1]
        assert game.attacker == lowest  # 002: "The player holding the lowest trump shows it and leads first."


def test_lowest_trump_leads():
    """Seed 000: "The player holding the lowest trump leads the first attack." """
    for seed in range(200):
        game = Game(Rules(num_players=4), seed)
        trump_mask = 0x1FFF << 13 * game.trump
        lows = {s: (h & trump_mask) & -(h & trump_mask) for s, h in enumerate(game.hands) if h & trump_mask}
        if lows:
            assert game.attacker == min(lows, key=lows.get)
            assert game.defender == (game.attacker + 1) % 4  # "The defender is the player to their left."


def test_a_seed_deals_the_deck_the_standard_library_shuffles():
    """Seed 004: "The trump card sits at the front of the shuffled pack".  ``Game(rules, seed)`` deals the pack
    ``random.Random(seed).shuffle`` gives, so that every seed keeps its deal (the native engine draws the same)."""
    import random

    for rules in (Rules(), Rules(deck_size=52, num_players=6), Rules(deck_size=24, num_players=3)):
        for seed in range(20):
            pack = deck(rules.deck_size)
            random.Random(seed).shuffle(pack)
            game, want = Game(rules, seed), Game.from_deck(rules, pack)
            assert (game.hands, game.stock, game.trump_card) == (want.hands, want.stock, want.trump_card)


# ----- throwing in -------------------------------------------------------------------------------


def test_attacker_alone_throws_in_seed000():
    """Seed 000: "Once a card has been beaten, the attacker may throw in another"; the third seat never does."""
    rules = Rules.preset("attacker-only", num_players=3)
    game = position(rules, ["7H 8S AS", "9H KD QD", "7S 7D 9S"], "6C")
    act(game, "attack 7H")
    assert game.to_act == 1  # the defender answers at once
    act(game, "defend 9H")
    assert game.to_act == 0 and legal(game) == {"done"}
    act(game, "done")
    # Seat 2 holds two sevens and a nine but was never asked: the bout is over.
    assert game.bouts == 1 and game.attacker == 1


def test_neighbours_throw_in_seed001():
    """Seed 001: "the attacker and then the defender's other neighbour may throw in" -- not the seat across."""
    rules = Rules.preset("after-beaten", num_players=4)
    game = position(rules, ["7H 8S AS", "9H KD QD AD", "7S 8D 6S", "7D 9S 6D"], "6C")
    act(game, "attack 7H")
    act(game, "defend 9H")
    assert game.to_act == 0
    act(game, "done")
    assert game.to_act == 2 and legal(game) == {"attack 7S", "done"}
    act(game, "done")
    assert game.bouts == 1  # seat 3's 7D and 9S were never offered


def test_everyone_but_the_defender_throws_in_seed003():
    """Seed 003: "Once an attack is open, any player except the defender may throw in another card"."""
    rules = Rules.preset("tournament", num_players=4)
    game = position(rules, ["7H 8S AS", "9H KD QD AD", "7S 8D 6S", "7D 9S 6D"], "6C")
    act(game, "attack 7H")
    asked = []
    while game.to_act != 1:
        asked.append(game.to_act)
        act(game, "done")
    assert asked == [0, 2, 3]
    assert game.throwers == (0, 2, 3)


def test_several_attacks_unanswered_seed003():
    """Seed 003: "Several attacks can sit unanswered at once, and you must deal with all of them." """
    rules = Rules.preset("tournament")
    game = position(rules, ["7H 7S AS", "9H KD QD AD 10S 8S"], "6C")
    act(game, "attack 7H")
    assert legal(game) == {"attack 7S", "done"}
    act(game, "attack 7S")
    act(game, "done")
    # 004: "the game answers the leftmost unbeaten pair first": defend moves answer 7H.
    assert legal(game) == {"defend 9H", "take"}
    act(game, "defend 9H")
    assert legal(game) == {"defend 8S", "defend 10S", "take"}


def test_throw_in_waits_until_beaten_seed001():
    """Seed 001: "When everything is beaten, the attacker and then the defender's other neighbour may throw in"."""
    rules = Rules.preset("after-beaten")
    game = position(rules, ["7H 7S AS", "9H KD QD AD 10S 8S"], "6C")
    act(game, "attack 7H")
    assert game.to_act == 1  # the second seven must wait


def test_passing_reopens_on_new_card_seed003():
    """Seed 003: "A new card on the table, or covering the last open attack, lets anyone who had passed
    throw in again." """
    rules = Rules.preset("tournament", num_players=3)
    game = position(rules, ["7H 9S AS", "9H 8S KD QD", "7S 8D 6S"], "6C")
    act(game, "attack 7H")
    act(game, "done")  # seat 0
    act(game, "attack 7S")  # seat 2 adds: seat 0 may add again
    assert game.to_act == 0
    act(game, "done")
    act(game, "done")  # seat 2
    act(game, "defend 9H")
    act(game, "defend 8S")  # covering the last open attack reopens throwing in
    assert game.to_act == 0 and "attack 9S" in legal(game)


def test_nobody_passes_on_an_empty_table():
    """Seed 003: "Nobody can pass on an empty table: someone has to open." """
    for preset in Rules.presets():
        game = Game(Rules.preset(preset), seed=3)
        assert not game.attacks and "done" not in legal(game) and "take" not in legal(game)


# ----- caps --------------------------------------------------------------------------------------


def test_at_most_six_attacks():
    """Seed 000: "A bout carries at most six attacking cards"."""
    table = [("6H", "7H"), ("6S", "7S"), ("6D", "7D"), ("8H", "9H"), ("8S", "9S")]
    game = position(PODKIDNOY, ["8D 8C AS", "10D JH QD AD KH"], "6C", table=table, stock=10)
    act(game, "attack 8D")
    assert game.to_act == 1  # the sixth card: nobody is asked to add more
    act(game, "defend 10D")
    # 8C still matches, but six attack cards are down: the bout is over and the defender attacks.
    assert game.bouts == 1 and game.attacker == 1


@pytest.mark.parametrize("preset, bouts, discard_empty, cap", [
    ("tournament", 0, True, 5),   # 003: "Up to five cards may attack the first bout, six after that"
    ("tournament", 1, True, 6),
    ("throw-after-take", 1, True, 5),   # 002: "never more than six attacks in a bout, five until the first discard"
    ("throw-after-take", 1, False, 6),
])
def test_early_cap(preset, bouts, discard_empty, cap):
    rules = Rules.preset(preset)
    table = [("6H", "7H"), ("6S", "7S"), ("6D", "7D"), ("8H", "9H")]
    stock = 36 - 8 - 8 - (0 if discard_empty else 2)
    game = position(rules, ["8D 8C AS JS", "10D JH QD AD"], "6C", table=table, stock=stock, bouts=bouts)
    assert game.discard.bit_count() == (0 if discard_empty else 2)
    act(game, "attack 8D")  # the fifth attack card
    if cap == 5:
        assert game.to_act == 1  # the cap is reached: the defender answers, nobody adds
    else:
        assert game.to_act == 0 and "attack 8C" in legal(game)


def test_cap_from_defender_hand_at_bout_start_seed000():
    """Seed 000: "never more than the number of cards the defender held when the bout began"."""
    rules = Rules.preset("attacker-only")
    game = position(rules, ["7H 7S 7D AS", "9H 10S"], "6C", stock=10)
    assert game.limit == 2
    act(game, "attack 7H")
    act(game, "defend 9H")
    act(game, "attack 7S")
    act(game, "defend 10S")
    assert game.bouts == 1  # 7D stays in hand: two attacks already


def test_unbeaten_fewer_than_defender_hand_seed004():
    """Seed 004: "The cards lying unbeaten must number fewer than the cards in the defender's hand." """
    game = position(Rules.preset("podkidnoy"), ["7H 7S 7D AS", "9H 10S"], "6C", stock=10)
    act(game, "attack 7H")
    act(game, "attack 7S")
    assert game.to_act == 1  # two unbeaten against two cards: 7D cannot follow, the defender answers


# ----- transfer ----------------------------------------------------------------------------------


def test_transfer_passes_the_attack_on_seed002():
    """Seed 002: "a defender who has not beaten anything yet may pass the attack on by adding a card of the
    same rank. The next player then defends against all of them"."""
    rules = Rules.preset("perevodnoy", num_players=3)
    game = position(rules, ["7H AS KS", "7S 8H QD", "9H 10S JD"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "done")
    assert "transfer 7S" in legal(game)
    act(game, "transfer 7S")
    assert (game.attacker, game.defender) == (1, 2)
    assert [str(a) for a, d in game.table] == ["7H", "7S"] and all(d is None for a, d in game.table)


def test_transfer_needs_enough_cards_and_nothing_beaten():
    """Seed 002: "as long as they hold enough cards to cover every one"; 001: "before beating anything"."""
    rules = Rules.preset("perevodnoy", num_players=3)
    short = position(rules, ["7H AS KS", "7S 8H QD", "9H"], "6C")
    act(short, "attack 7H")
    act(short, "done")
    act(short, "done")
    assert not any(m.startswith("transfer") for m in legal(short))
    beaten = position(rules, ["7H 7D AS", "7S 8H QD 8D", "9H 10S JD"], "6C")
    act(beaten, "attack 7H")
    act(beaten, "attack 7D")
    act(beaten, "done")
    act(beaten, "done")
    assert "transfer 7S" in legal(beaten)
    act(beaten, "defend 8H")
    assert not any(m.startswith("transfer") for m in legal(beaten))


def test_transfer_back_with_two_players_seed001():
    """Seed 001: "Choose the Transfer level to play it against one computer player": the attack comes back."""
    rules = Rules.preset("after-beaten-transfer")
    game = position(rules, ["7H 7D AS", "7S 8H QD 8D"], "6C")
    act(game, "attack 7H")
    act(game, "transfer 7S")
    assert (game.attacker, game.defender, game.to_act) == (1, 0, 0)
    assert "transfer 7D" in legal(game)


def test_no_transfer_without_the_rule_seed003():
    """Seed 003: "There is no passing an attack along: covering and taking are the defender's only moves." """
    game = position(Rules.preset("tournament", num_players=3), ["7H AS KS", "7S 8H QD", "9H 10S JD"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "done")
    assert legal(game) == {"defend 8H", "take"}


# ----- taking ------------------------------------------------------------------------------------


def test_take_ends_the_bout_at_once_seed003():
    """Seed 003: "A take ends the bout at once, and nothing more can be thrown in after it. The attack passes
    to the player after you, skipping you entirely." """
    rules = Rules.preset("tournament", num_players=3)
    game = position(rules, ["7H 7S AS", "8H QD KD", "9H 10S JD"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "done")
    act(game, "take")
    assert game.bouts == 1 and "7H" in names(game.hands[1])
    assert game.attacker == 2 and game.defender == 0
    assert "7H" in names(game.known[1])  # everyone saw the pick-up


def test_throw_in_after_take_seed002():
    """Seed 002: "A defender who cannot or will not beat a card takes instead: the others may still throw in,
    then the defender picks up everything on the table and loses the lead to the player on their left." """
    rules = Rules.preset("throw-after-take")
    game = position(rules, ["7H 7S AS", "8H QD KD 9D"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "take")
    assert game.taking and game.to_act == 0 and legal(game) == {"attack 7S", "done"}
    act(game, "attack 7S")
    act(game, "done")
    assert names(game.hands[1]) == names(hand("7H 7S 8H QD KD 9D"))
    assert game.attacker == 0  # two players: the lead stays with the attacker


# ----- drawing, going out, the fool --------------------------------------------------------------


def test_refill_order_and_trump_card_last():
    """Seed 000: "players draw back up to six cards from the stock: the attacker first, then everyone else in
    turn, and the defender last. The face-up trump card is the last card taken from the stock." """
    rules = Rules(num_players=3)
    game = position(rules, ["7H 7S AS KS 10C 9C", "8H 8S 8D KD 9D JS", "7D 6S QH JH 10H 9H"], "6C", stock=4)
    for move in ("attack 7H", "attack 7S", "done", "attack 7D", "done", "done", "defend 8H", "defend 8S",
                 "defend 8D", "done", "done"):
        act(game, move)
    assert game.bouts == 1
    # Four cards for needs of 2 (attacker), 1 (seat 2) and 3 (defender): the defender gets only the last,
    # the face-up trump card, and everyone saw it go there.
    assert [game.hand_size(s) for s in range(3)] == [6, 4, 6]
    assert not game.stock
    assert "6C" in names(game.hands[1]) and names(game.known[1]) == "6C"


def test_after_a_transfer_back_the_defender_draws_last_two_players():
    """Seed 000: "the attacker first, then everyone else in turn, and the defender last"; seed 001: "first the
    player who opened the bout and the defender last".  In 2-player perevodnoy a transfer makes the opener the
    defender: the defender still draws last (docs/rules.md, "Drawing")."""
    game = position(Rules.preset("perevodnoy"), ["7H 8H 9D AS KS QS", "7D 10S JS QH KH AH"], "6C",
                    stock="6D 6H 6S 6C")
    for move in ("attack 7H", "done", "transfer 7D"):
        act(game, move)
    assert (game.attacker, game.defender, game.opener) == (1, 0, 0)
    for move in ("done", "defend 8H", "defend 9D", "done"):
        act(game, move)
    assert game.bouts == 1 and not game.stock
    # Seat 1 needs one card and draws first (6D); the defender needs three and gets the rest, the trump card last.
    assert names(game.hands[1]) == names(hand("10S JS QH KH AH 6D"))
    assert names(game.hands[0]) == names(hand("AS KS QS 6H 6S 6C"))
    assert names(game.known[0]) == "6C" and game.attacker == 0


def test_after_transfers_round_to_the_opener_the_defender_draws_last_three_players():
    """The same reading at three seats (after-beaten-transfer): 0 attacks 1, 1 passes it to 2, 2 passes it back to
    0.  0 opened the bout but defends, so the drawing starts at the seat after it and 0 draws last."""
    rules = Rules.preset("after-beaten-transfer", num_players=3)
    game = position(rules, ["7H 8H 9D 8S AS KS", "7D 10H JH QH KH AH", "7S 10D JD QD KD AD"], "6C",
                    stock="6D 6H 6S 9S 6C")
    for move in ("attack 7H", "transfer 7D", "transfer 7S"):
        act(game, move)
    assert (game.attacker, game.defender, game.opener) == (2, 0, 0)
    for move in ("defend 8H", "defend 9D", "defend 8S", "done", "done"):
        act(game, move)
    assert game.bouts == 1 and not game.stock
    assert names(game.hands[1]) == names(hand("10H JH QH KH AH 6D"))
    assert names(game.hands[2]) == names(hand("10D JD QD KD AD 6H"))
    assert names(game.hands[0]) == names(hand("AS KS 6S 9S 6C"))


def test_empty_hand_refills_while_the_stock_lasts_seed004():
    """Seed 004: "While cards remain in the stock, an empty hand means nothing at all. You draw straight back
    up to six and carry on." """
    game = position(Rules(), ["7H", "8H QD KD 9D JS AS"], "6C", stock=10)
    act(game, "attack 7H")
    act(game, "defend 8H")  # the attacker has nothing left to add: the bout ends
    assert game.hand_size(0) == 6 and not game.is_over and game.out == []


def test_last_holder_is_the_fool_seed000():
    """Seed 000: "The last player still holding cards is the Durak." """
    game = position(Rules(), ["7H", "8H QD"], "6C", stock=0)
    act(game, "attack 7H")
    act(game, "defend 8H")
    assert game.is_over and game.result.fool == 1 and game.result.rewards() == (1.0, -1.0)


def test_both_out_at_once_is_a_draw_seed000():
    """Seed 000: "If a final defence empties the last two hands at once, nobody is the Fool." """
    game = position(Rules(), ["7H", "8H"], "6C", stock=0)
    act(game, "attack 7H")
    act(game, "defend 8H")
    assert game.result.fool is None and game.result.rewards() == (0.0, 0.0)


def test_ties_score_full_points_seed003():
    """Seed 003: "If more than one hand empties in the same bout, those players tie for that placing and each
    scores its full points. Each place scores the number of players minus the place, and the fool scores
    nothing." """
    rules = Rules.preset("tournament", num_players=3)
    game = position(rules, ["7H", "8H", "9S 10S"], "6C", stock=0)
    act(game, "attack 7H")  # one unbeaten card against a one-card hand: nobody may add
    act(game, "defend 8H")
    r = game.result
    assert game.out_groups == [(0, 1)]
    assert r.placings == (1, 1, 3) and r.points == (2, 2, 0) and r.fool == 2


def test_play_continues_after_one_goes_out():
    """Seed 000: "a player who runs out of cards has gone out and takes no further part. Play continues
    between the rest." """
    rules = Rules(num_players=3)
    game = position(rules, ["7H", "8H 9S", "9D 10D"], "6C", stock=0)
    act(game, "attack 7H")
    act(game, "done")  # seat 2
    act(game, "defend 8H")
    act(game, "done")  # seat 2 again: nothing of rank 7 or 8
    assert game.out == [0] and not game.is_over
    assert (game.attacker, game.defender) == (1, 2)


def test_bout_cap_places_by_hand_size_seed003():
    """Seed 003: "A deal that reaches 150 bouts is placed by hand size, fewest cards first, and a lone player
    holding the most is the fool." """
    rules = Rules.preset("tournament", num_players=3)
    game = position(rules, ["7H 8C", "8H 9S 10S", "9D"], "6C", stock=0, bouts=149)
    act(game, "attack 7H")
    act(game, "done")
    act(game, "done")
    act(game, "defend 8H")
    act(game, "done")
    act(game, "done")
    r = game.result
    assert r.capped and r.placings == (1, 3, 1) and r.fool == 1  # one card, two cards, one card
    tie = position(rules, ["7H 8C", "8H 9S 10S", "9D JD"], "6C", stock=0, bouts=149)
    for move in ("attack 7H", "done", "done", "defend 8H", "done", "done"):
        act(tie, move)
    assert tie.result.capped and tie.result.fool is None and tie.result.placings == (1, 2, 2)


def test_five_cards_at_a_full_table_seed003():
    """Seed 003: "Six cards each, or five at a full table of six." """
    rules = Rules.preset("tournament", num_players=6)
    assert rules.deal_size == 5
    game = Game(rules, seed=1)
    assert all(game.hand_size(s) == 5 for s in range(6)) and len(game.stock) == 6
    assert Rules.preset("tournament", num_players=5).deal_size == 6


# ----- matches -----------------------------------------------------------------------------------


def _first_legal(view):
    return view.legal_actions[0]


def test_match_adds_placing_points_seed003():
    """Seed 003: "A match is five deals ... Placing points add up from deal to deal." And "the fool loses
    the deal" -- then deals the next one (the seat after the fool leads if nobody holds a trump)."""
    rules = Rules.preset("tournament", num_players=4)
    match = Match(rules, seed=7)
    seen_first = []
    while not match.over:
        game = match.next_deal()
        seen_first.append(game.first_seat)
        while not game.is_over:
            game.step(_first_legal(game.view(game.to_act)))
        match.record(game)
    assert len(match.results) == 5
    assert match.totals == [sum(r.points[s] for r in match.results) for s in range(4)]
    for prev, first in zip(match.results, seen_first[1:]):
        if prev.fool is not None:
            assert first == (prev.fool + 1) % 4
    best = max(match.totals)
    assert match.winners == [s for s in range(4) if match.totals[s] == best]  # "level on the top total share first"


def test_match_rotates_first_seat_seed000():
    """Seed 000: "The first seat rotates between games: Player 1 in the first game, Player 2 in the next"."""
    match = Match(Rules.preset("attacker-only", num_players=3, match_deals=4), seed=1)
    firsts = []
    while not match.over:
        game = match.next_deal()
        firsts.append(game.first_seat)
        while not game.is_over:
            game.step(game.legal_actions()[0])
        match.record(game)
    assert firsts == [0, 1, 2, 0]
    played = Match(Rules(match_deals=3), seed=2)
    totals = played.play([_first_legal, _first_legal])
    assert len(played.results) == 3 and totals == [sum(r.points[s] for r in played.results) for s in range(2)]
    assert sum(totals) == 3 - sum(r.fool is None for r in played.results)  # one point a deal, none for a draw
