"""Baseline bots: seed 004's opponent exactly, the easy player, search that cannot see hidden cards."""


import pytest
from helpers import act, legal, position, twins

from baselines import EasyBot, HeuristicBot, RandomBot, SearchBot, make_bot
from durak_env import Game, Rules, decode_action

HEURISTIC = HeuristicBot()


def bot_move(game, bot=HEURISTIC) -> str:
    return str(decode_action(bot.act(game.view(game.to_act)), game.rules))


def play_forced(game):
    while not game.is_over and len(game.legal_actions()) == 1:
        game.step(game.legal_actions()[0])


def test_seed004_walkthrough_against_the_heuristic():
    """Seed 004: "It leads the six of diamonds. You beat it with the eight of diamonds. Now only ranks 6 and 8
    may be added, and the one card in its hand with either rank is the eight of clubs. So it attacks with a
    trump. ... none of those match. The attack is finished, the four table cards are thrown away"."""
    from test_scenarios import deal_deck

    rules = Rules.preset("podkidnoy")
    game = Game.from_deck(rules, deal_deck(rules, ["6D 7S 9H KS 8C JC", "QC 8D 10H AS 7D 9S"], "7C"))
    assert bot_move(game) == "attack 6D"  # "so it leads its smallest plain card"
    act(game, "attack 6D")
    assert bot_move(game) == "done"
    act(game, "done")
    act(game, "defend 8D")
    assert bot_move(game) == "attack 8C"
    act(game, "attack 8C")
    assert bot_move(game) == "done"
    act(game, "done")
    act(game, "defend QC")
    assert bot_move(game) == "done"  # "it has nothing matching 6, 8 or Q"
    act(game, "done")
    assert game.discard.bit_count() == 4 and len(game.stock) == 20
    assert game.hand_size(0) == game.hand_size(1) == 6


def test_defends_with_the_cheapest_beater_plain_before_trump():
    """Seed 004: "it spends the cheapest card that works and only reaches for a trump when no plain card can
    do the job"."""
    game = position(Rules(), ["7H AS", "6C 9H KH 8S"], "10C", stock=10)
    act(game, "attack 7H")
    act(game, "done")
    assert bot_move(game) == "defend 9H"
    game = position(Rules(), ["7D AS", "6C 9H KH 8S"], "10C", stock=10)
    act(game, "attack 7D")
    act(game, "done")
    assert bot_move(game) == "defend 6C"


def test_the_brake():
    """Seed 004: "If the stock is empty, the attack card is a plain card, and the trump it was about to spend is
    the only trump left in its hand, it picks up the whole table instead. Holding two trumps switches the brake
    off, and it plays the lower one." """
    one = position(Rules(), ["7H AS", "6C 9S KS"], "10C", stock=0)
    act(one, "attack 7H")
    act(one, "done")
    assert bot_move(one) == "take"
    two = position(Rules(), ["7H AS", "6C JC 9S"], "10C", stock=0)
    act(two, "attack 7H")
    act(two, "done")
    assert bot_move(two) == "defend 6C"
    stock_left = position(Rules(), ["7H AS", "6C 9S KS"], "10C", stock=5)
    act(stock_left, "attack 7H")
    act(stock_left, "done")
    assert bot_move(stock_left) == "defend 6C"  # the brake needs an empty stock
    trump_attack = position(Rules(), ["7C AS", "JC 9S KS"], "10C", stock=0)
    act(trump_attack, "attack 7C")
    act(trump_attack, "done")
    assert bot_move(trump_attack) == "defend JC"  # and a plain attack card


def test_leads_lowest_plain_card_and_trump_only_when_forced():
    """Seed 004: "To attack it takes the top card of the list, so it leads its smallest plain card." """
    game = position(Rules(), ["6C 9D 8S QH", "7H 8H 9H 10H"], "10C", stock=10)
    assert bot_move(game) == "attack 8S"
    trumps = position(Rules(), ["6C 9C", "7H 8H 9H 10H"], "10C", stock=10)
    assert bot_move(trumps) == "attack 6C"


def test_answers_leftmost_pair_first():
    """Seed 004: "the game answers the leftmost unbeaten pair first"."""
    game = position(Rules(), ["7H 7S AD", "8H 8S QD 9D KC"], "10C", stock=10)
    act(game, "attack 7H")
    act(game, "attack 7S")
    act(game, "done")
    assert bot_move(game) == "defend 8H"


def test_transfer_extension_uses_a_plain_card():
    rules = Rules.preset("perevodnoy", num_players=3)
    game = position(rules, ["7H AS KS", "7S 7C 8H QD", "9H 10S JD QS"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "done")
    assert "transfer 7C" in legal(game)
    assert bot_move(game) == "transfer 7S"


def test_no_trumps_thrown_at_a_taker():
    game = position(Rules.preset("throw-after-take"), ["7H 7C 8D", "9S QD KD 9D"], "6C", stock=10)
    act(game, "attack 7H")
    act(game, "done")
    act(game, "take")
    assert legal(game) == {"attack 7C", "done"}
    assert bot_move(game) == "done"


@pytest.mark.parametrize("spec", ["random", "heuristic", "easy", "easy:1", "search:4", "search:4:python"])
@pytest.mark.parametrize("preset, players", [("podkidnoy", 2), ("perevodnoy", 3), ("after-beaten", 4), ("tournament", 4)])
def test_bots_only_play_legal_moves(spec, preset, players):
    rules = Rules.preset(preset, num_players=players)
    bot = make_bot(spec, seed=3)
    for seed in range(2 if spec.startswith("search") else 6):
        game = Game(rules, seed)
        while not game.is_over:
            view = game.view(game.to_act)
            action = bot.act(view)
            assert action in view.legal_actions
            game.step(action)


def test_easy_mixes_random_moves():
    always_random = EasyBot(seed=1, randomness=1.0)
    never_random = EasyBot(seed=1, randomness=0.0)
    differ = 0
    for seed in range(30):
        game = Game(Rules(), seed)
        view = game.view(game.to_act)
        assert never_random.act(view) == HEURISTIC.act(view)
        differ += always_random.act(view) != HEURISTIC.act(view)
    assert differ > 10
    with pytest.raises(ValueError, match="randomness"):
        EasyBot(randomness=2)


@pytest.mark.parametrize("engine", ["native", "python"])
def test_search_bot_sees_only_its_information_set(engine):
    """Two positions the seat cannot tell apart give the same move for the same seed."""
    checked = 0
    for game, twin, seat in twins(Rules(num_players=3), range(40)):
        assert twin.to_dict() != game.to_dict() or not game.stock
        assert (SearchBot(seed=5, worlds=6, engine=engine).act(game.view(seat))
                == SearchBot(seed=5, worlds=6, engine=engine).act(twin.view(seat)))
        checked += 1
    assert checked > 10


def test_search_beats_the_heuristic_it_rolls_out_with():
    from baselines.evaluate import evaluate

    report = evaluate(["search:4", "heuristic"], Rules(), games=40, seed=1, workers=1)
    assert report.stats[0].fool_rate < report.stats[1].fool_rate


def test_a_rollout_of_a_deal_that_never_ends_stops_at_the_rollout_limit(monkeypatch):
    """Deal 243 of after-beaten-transfer for three seats never ends when HeuristicBots play every seat: the
    same cards go round for ever.  A search rollout of it stops at ``ROLLOUT_LIMIT`` and scores a draw,
    where without the cap every move tried would play on to the game's limit of 10,000 moves."""
    import baselines.search as search
    from durak_env.engine.loop import MOVE_LIMIT, play

    played = []
    monkeypatch.setattr(search, "play", lambda *a, **k: played.append(play(*a, **k)) or played[-1])
    rules = Rules.preset("after-beaten-transfer", num_players=3)
    endless = Game(rules, seed=243)
    assert play(endless.clone(), search.heuristic_everywhere) == MOVE_LIMIT  # it really does not end
    assert search.rollout(endless, 0) == 0.0 and endless.result is None
    assert played == [search.ROLLOUT_LIMIT] and search.ROLLOUT_LIMIT < MOVE_LIMIT
    ended = Game(rules, seed=0)
    assert search.rollout(ended, 0) == ended.result.rewards()[0]
    assert played[-1] < search.ROLLOUT_LIMIT
    # the native rollout (native/search.hpp: heuristic_rollout) stops at the same limit and scores the same draw
    from durak_env.native import _native, native_game

    endless = native_game(rules, 243)
    assert _native.heuristic_rollout(endless, 0) == 0.0 and endless.result is None
    assert _native.heuristic_rollout(native_game(rules, 0), 0) == search.rollout(Game(rules, seed=0), 0)


def test_make_bot_names():
    assert isinstance(make_bot("random"), RandomBot)
    assert make_bot("search:strong").worlds == 64
    for bad in ("nope", "easy:x", "search:huge", "heuristic:3"):
        with pytest.raises(ValueError):
            make_bot(bad)


def test_a_bot_class_of_your_own_by_name(tmp_path, monkeypatch):
    """``py:<module>.<Class>`` (the ladder tutorial): made, reset with the seed, and playing legal moves; a name that
    is no bot is refused in one line naming it."""
    from baselines import make_bot

    (tmp_path / "my_bots.py").write_text(
        "import random\n"
        "class Picky:\n"
        "    def reset(self, seed=None):\n"
        "        self.rng = random.Random(seed)\n"
        "    def act(self, view):\n"
        "        return self.rng.choice(view.legal_actions)\n"
        "class NotABot:\n"
        "    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bot = make_bot("py:my_bots.Picky", seed=3)
    game = Game(Rules(), seed=1)
    first = bot.act(game.view(game.to_act))
    assert first in game.legal_actions()
    bot.reset(3)
    assert bot.act(game.view(game.to_act)) == first  # the seed given is the bot's
    for bad, says in (("py:my_bots.NotABot", "not a bot"), ("py:my_bots.Missing", "Missing"),
                      ("py:no_such_module.X", "PYTHONPATH"), ("py:Picky", "py:<module>.<Class>")):
        with pytest.raises(ValueError, match=says) as err:
            make_bot(bad)
        assert "\n" not in str(err.value)
