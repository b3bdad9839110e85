"""The one game loop (``engine.loop.play``): forced moves are played without asking, a chooser is asked
only for real choices, ``until`` stops before a chosen seat's choice, one move limit cuts a deal off."""

import random

import pytest

from baselines import HeuristicBot
from durak_env import Game, IllegalAction, Match, Rules
from durak_env.engine.loop import MOVE_LIMIT, play, seated


def test_the_chooser_is_asked_only_real_choices_and_hears_of_every_move():
    game = Game(Rules(num_players=3), seed=4)
    asked, told = [], []

    def choose(g):
        asked.append(len(g.legal_actions()))
        return random.Random(len(asked)).choice(g.legal_actions())

    moves = play(game, choose, on_move=lambda seat, action, forced: told.append(forced))
    assert game.is_over and moves == len(told) and told.count(False) == len(asked)
    assert min(asked) >= 2 and told.count(True) > 0  # forced moves happened and were never asked


def test_until_stops_before_the_seat_has_a_choice():
    game = Game(Rules(), seed=2)
    bot = HeuristicBot()
    play(game, seated([bot.act, bot.act]), until=lambda g: g.to_act == 1)
    assert not game.is_over and game.to_act == 1 and len(game.legal_actions()) > 1


def test_seated_hands_each_bot_its_own_seats_view():
    game = Game(Rules(num_players=3), seed=1)
    seen = {0: set(), 1: set(), 2: set()}

    def policy(seat):
        def act(view):
            seen[seat].add(view.seat)
            return view.legal_actions[0]
        return act

    play(game, seated([policy(0), policy(1), policy(2)]))
    assert seen == {0: {0}, 1: {1}, 2: {2}}


def test_the_move_limit_cuts_a_deal_off_and_checked_moves_refuse_illegal_ones():
    game = Game(Rules(), seed=3)
    assert play(game, lambda g: g.legal_actions()[0], limit=5) == 5 and not game.is_over
    game.play_forced()
    before = game.to_dict()
    with pytest.raises(IllegalAction):
        play(game, lambda g: -1)
    assert game.to_dict() == before
    assert MOVE_LIMIT == 10_000


def test_match_environment_and_evaluator_share_the_limit():
    """One constant: the environments truncate, OpenSpiel ends and the evaluator gives up at MOVE_LIMIT."""
    import inspect

    import durak_env
    from baselines import evaluate
    from durak_env.gym_env import DurakGymEnv

    assert durak_env.raw_env().max_moves == MOVE_LIMIT == DurakGymEnv(opponents="random").max_moves
    assert "MOVE_LIMIT" in inspect.getsource(evaluate.play_deal)
    totals = Match(Rules(match_deals=2), seed=1).play([lambda v: v.legal_actions[-1]] * 2)
    assert sum(totals) in (1, 2)
