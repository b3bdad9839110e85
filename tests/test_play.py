"""Terminal play: the table as seed 004 shows it, only legal moves offered, bad input answered."""

from baselines import make_bot
from durak_env import Rules, encode_action
from durak_env.play import describe, parse_choice, play_game
from helpers import position


def test_parse_choice_keys_of_seed001():
    rules = Rules()
    options = [encode_action(t, rules) for t in ("defend 8D", "defend QC", "take")]
    assert parse_choice("T", options, rules) == encode_action("take", rules)
    assert parse_choice("2", options, rules) == encode_action("defend QC", rules)
    assert parse_choice("8d", options, rules) == encode_action("defend 8D", rules)
    assert parse_choice("D", options, rules) is None  # done is not legal here
    assert parse_choice("9", options, rules) is None and parse_choice("xx", options, rules) is None
    assert parse_choice("", options, rules) is None


def test_describe_sorts_the_hand_trumps_last_and_keeps_the_trump_marker():
    game = position(Rules(), ["7C 9H 6D AH QC 6S", "8H 8S 8D KD 9D JS"], "10C", stock=0)
    text = describe(game, 0)
    assert "Your hand" in text and text.splitlines()[-1].endswith("6D 9H AH 6S 7C QC")
    assert "Trump ♣ C" in text and "10C, drawn" in text
    assert "player_1: 6 cards" in text


def test_a_whole_game_with_typed_answers_including_nonsense():
    answers = iter(["nonsense", "99"] + ["1"] * 500)
    said = []
    bots = [None, make_bot("heuristic")]
    game = play_game(Rules(), bots, 0, lambda prompt: next(answers), said.append, seed=3)
    assert game is not None and game.is_over
    assert any("Not a legal move here" in s for s in said)
    assert any("fool" in s or "draw" in s for s in said)


def test_quitting_and_end_of_input():
    bots = [None, make_bot("random", seed=1)]
    assert play_game(Rules(), bots, 0, lambda p: "q", lambda s: None, seed=1) is None

    def eof(prompt):
        raise EOFError

    assert play_game(Rules(), bots, 0, eof, lambda s: None, seed=1) is None
