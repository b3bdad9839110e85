"""Terminal play: the table as the human's seat sees it (seed 004's hand order), every move and every bout's
end told, only legal moves taken, and an illegal entry answered with the engine's reason."""

import json

import pytest

from helpers import act, position

from baselines import make_bot
from durak_env import Rules, encode_action
from durak_env.engine.record import load_record
from durak_env.engine.render import render
from frontends.cli import main
from frontends.terminal import play_game, read_answer


def names(n, me=0):
    return ["you" if s == me else f"player_{s}" for s in range(n)]


def test_read_answer_keys_of_seed001():
    """Seed 001: "With a keyboard, use the arrow keys and Enter, T to take and D for Done"."""
    game = position(Rules(), ["7H 9S", "8D QC 6S 9H"], "6C", table=[("7D", None)], stock=10, attacker=0, defender=1)
    act(game, "done")
    view = game.view(1)
    rules = game.rules
    options = [encode_action(t, rules) for t in ("defend 8D", "defend QC", "take")]
    assert read_answer("T", options, view) == (encode_action("take", rules), "")
    assert read_answer("2", options, view) == (encode_action("defend QC", rules), "")
    assert read_answer("8d", options, view) == (encode_action("defend 8D", rules), "")
    assert read_answer("6S", options, view)[0] == encode_action("defend 6S", rules)  # named, though illegal
    assert read_answer("D", options, view)[0] == encode_action("done", rules)
    assert read_answer("9", options, view) == (None, "there is no move number 9")
    assert read_answer("xx", options, view)[0] is None and read_answer("", options, view)[0] is None


def test_the_table_shows_roles_known_cards_the_turned_card_and_the_open_discard():
    """Seed 004's hand order; seed 000's trump kept after the card is drawn; roles said right."""
    game = position(Rules(), ["7C 9H 6D AH QC 6S", "8H 8S 8D KD 9D JS"], "10C", stock=0)
    text = render(game.view(0), names(2))
    assert text.splitlines()[-1] == "you (leading): 6D 9H AH 6S 7C QC"
    assert "Trump ♣ C (turned card 10C, drawn)" in text and "player_1: 6 cards · defending" in text
    assert "discard 24: 7D 10D" in text  # the rules show the beaten cards, so the table lists them
    hidden = position(Rules.preset("tournament"), ["7C 9H", "8H 8S"], "10C", stock=0)
    assert "discard 32 ·" in render(hidden.view(0), names(2))  # seed 003: "only their number is shown"


def test_roles_after_a_take_and_while_throwing_in_and_plural_cards():
    """It said "waiting" when the human could throw in, "defending" after the defender said take, "1 cards"."""
    rules = Rules.preset("throw-after-take")
    game = position(rules, ["7H 7C 8D", "9S 10S"], "6C", stock=0)
    act(game, "attack 7H")
    assert render(game.view(0), names(2)).splitlines()[-1].startswith("you (may throw in)")
    act(game, "done")
    act(game, "take")
    text = render(game.view(0), names(2))
    assert "player_1: 2 cards · taking" in text and "defending" not in text
    assert text.splitlines()[-1].startswith("you (may throw in)")
    one = position(rules, ["7H 7C", "9S"], "6C", stock=0)
    assert "player_1: 1 card · defending" in render(one.view(0), names(2))


def test_the_drawn_trump_card_is_not_listed_as_picked_up():
    game = position(Rules(), ["7H 8C 9C 10C JC QC", "8H 8S 8D KD 9D JS"], "6S", stock="6S")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "defend 8H")
    act(game, "done")
    text = render(game.view(1), names(2, 1))
    assert "drew the turned card 6S" in text and "seen picking up" not in text


def test_a_whole_game_tells_every_bout_the_seed_and_the_result(capsys, monkeypatch):
    answers = iter(["nonsense", "99", "take"] + ["1"] * 500)
    said = []
    bots = [None, make_bot("heuristic")]
    game = play_game(Rules(), bots, 0, lambda prompt: next(answers), said.append, seed=3)
    assert game is not None and game.is_over
    assert any("is not a move" in s or "bad card" in s for s in said)
    assert any(s.startswith("Bout 1: ") for s in said) and any("drew: " in s for s in said)
    assert sum(s.startswith("Bout ") for s in said) == game.bouts
    assert any("fool" in s or "draw" in s for s in said)


def test_an_illegal_entry_gets_the_engines_reason():
    """It never said why an entry was illegal; the engine's reason is there to use."""
    game = position(Rules(), ["7H 9S", "8D QC 6S 9H"], "6C", stock=10)
    said = []
    answers = iter(["attack 8D", "9H", "q"])
    bots = [None, make_bot("heuristic")]
    from frontends import terminal

    real = terminal.Game
    terminal.Game = lambda rules, seed=None: game
    try:
        assert play_game(Rules(), bots, 0, lambda p: next(answers), said.append, seed=1) is None
    finally:
        terminal.Game = real
    assert any("attack 8D is not legal: player 0 does not hold 8D" in s for s in said)
    assert any("attack 9H is not legal: player 0 does not hold 9H" in s for s in said)


def test_bad_card_strings_typed_in_play_are_answered():
    answers = iter(["1Z", "attack 11S", "ZZZ", "", "-1", "q"])
    said = []
    bots = [None, make_bot("heuristic")]
    assert play_game(Rules(), bots, 0, lambda prompt: next(answers), said.append, seed=2) is None
    assert sum("Type a number" in s for s in said) >= 4


def test_quitting_and_end_of_input():
    bots = [None, make_bot("random", seed=1)]
    assert play_game(Rules(), bots, 0, lambda p: "q", lambda s: None, seed=1) is None

    def eof(prompt):
        raise EOFError

    assert play_game(Rules(), bots, 0, eof, lambda s: None, seed=1) is None


def test_durak_play_names_the_preset_tells_the_seed_at_the_end_and_saves_a_record(tmp_path, monkeypatch, capsys):
    answers = iter(["1"] * 2000)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    path = tmp_path / "game.json"
    assert main(["play", "--rules", "perevodnoy", "--seed", "5", "--opponent", "heuristic", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Durak · perevodnoy · 2 players · 36 cards")
    assert "Deal seed 5" in out.splitlines()[-2]
    record = load_record(json.loads(path.read_text()))
    assert record.seed == 5 and record.players == ("you", "heuristic") and record.game().is_over


def test_durak_play_perevodnoy_against_the_shipped_perevodnoy_bot(tmp_path, monkeypatch, capsys):
    """Issue 12: `durak play --rules perevodnoy --opponent trained` seats the bot trained for transfer Durak."""
    answers = iter(["1"] * 2000)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    path = tmp_path / "game.json"
    assert main(["play", "--rules", "perevodnoy", "--seed", "8", "--opponent", "trained", "--save", str(path)]) == 0
    record = load_record(json.loads(path.read_text()))
    assert record.players == ("you", "trained") and record.rules == Rules.preset("perevodnoy") and record.game().is_over
    assert make_bot("trained", rules=record.rules).metadata["trained_for"] == "perevodnoy, 2 players"


@pytest.mark.parametrize("preset, players", [("after-beaten-transfer", 3), ("tournament", 4)])
def test_durak_play_seats_the_shipped_bot_made_for_a_bigger_table(preset, players, tmp_path, monkeypatch):
    """Issue 12: `durak play --rules after-beaten-transfer --players 3 --opponent trained` (or tournament at 4) puts
    the bot made for that table at every other seat; the 2-seat bots are not made for it."""
    answers = iter(["1"] * 3000)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    path = tmp_path / "game.json"
    assert main(["play", "--rules", preset, "--players", str(players), "--seed", "4", "--opponent", "trained",
                 "--save", str(path)]) == 0
    record = load_record(json.loads(path.read_text()))
    rules = Rules.preset(preset, num_players=players)
    assert record.players == ("you",) + ("trained",) * (players - 1) and record.rules == rules
    assert record.game().is_over
    assert make_bot("trained", rules=rules).metadata["trained_for"] == f"{preset}, {players} players"
