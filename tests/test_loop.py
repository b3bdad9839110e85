"""The one game loop (``engine.loop.play``): forced moves are played without asking, a chooser is asked
only for real choices, ``until`` stops before a chosen seat's choice, one move limit cuts a deal off; and the
one end of an environment's step (``settle``, ``ending``)."""

import random

import pytest

from baselines import HeuristicBot
from durak_env import Game, IllegalAction, Match, Rules
from durak_env.engine.loop import CUT, ENDED, MOVE_LIMIT, PLAYING, ending, play, seated, settle


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


def test_settle_plays_the_forced_moves_and_says_how_the_deal_stands():
    game = Game(Rules(), seed=3)
    moves = 0
    while len(game.legal_actions()) > 1 or game.is_over:  # find a move after which a forced one follows
        game.step(game.legal_actions()[-1])
        moves += 1
        probe = game.clone()
        if probe.play_forced():
            break
    expected = game.clone().play_forced()
    heard = []
    total, end = settle(game, moves, MOVE_LIMIT, played=heard)
    assert heard == expected and expected and total == moves + len(expected)
    assert end == (ENDED if game.is_over else PLAYING) and (game.is_over or len(game.legal_actions()) > 1)
    assert ending(game, total, total) == (ENDED if game.is_over else CUT)  # at the limit: cut off, unless over
    assert ending(game, total, total + 1) == (ENDED if game.is_over else PLAYING)


def test_settle_with_bots_stops_at_the_learners_choice_or_the_limit():
    bot = HeuristicBot()
    game = Game(Rules(), seed=2)
    assert game.to_act == 1
    moves, end = settle(game, 0, MOVE_LIMIT, seated([bot.act, bot.act]), until=lambda g: g.to_act == 0)
    assert end == PLAYING and game.to_act == 0 and len(game.legal_actions()) > 1 and moves > 0
    game, played = Game(Rules(), seed=2), []
    replay = game.clone()
    moves, end = settle(game, 97, 100, seated([bot.act, bot.act]), until=lambda g: False, played=played)
    assert (moves, end) == (100, CUT) and not game.is_over
    assert len(played) == 3 and [seat for seat, _ in played][0] == 1  # every move played, bots' and forced alike
    for seat, action in played:
        assert replay.to_act == seat
        replay.step(action)
    game = Game(Rules(), seed=2)
    moves, end = settle(game, 0, MOVE_LIMIT, seated([bot.act, bot.act]), until=lambda g: False)
    assert end == ENDED and game.is_over


def test_every_environment_cuts_a_deal_off_at_the_same_move():
    """One step path: the AEC, Gymnasium and vector environments play the same deal with the same moves and
    all cut it off at ``max_moves`` (forced moves counted), through ``settle``."""
    import numpy as np

    import durak_env
    from durak_env.gym_env import DurakGymEnv
    from durak_env.vector_games import VectorGames

    limit = 12
    first = lambda legal: int(min(legal))  # noqa: E731
    aec = durak_env.raw_env(max_moves=limit)
    aec.reset(seed=5)
    aec_cut = None
    for step in range(limit + 1):
        if any(aec.truncations.values()):
            aec_cut = aec.moves
            break
        aec.step(first(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])))
    vec = VectorGames(Rules(), 1, max_moves=limit)
    vec.reset(5)
    while not vec.truncated[0] and not vec.ended[0]:
        vec.step([first(np.flatnonzero(vec.mask[0]))])

    class First:
        def act(self, view):
            return min(view.legal_actions)

        def reset(self, seed=None):
            pass

    gym = DurakGymEnv(opponents=First(), seat=0, max_moves=limit)
    gym.reset(options={"state": Game(Rules(), seed=__import__("random").Random(5).getrandbits(64)).to_dict()})
    truncated = False
    while not truncated:
        _, _, over, truncated, info = gym.step(first(np.flatnonzero(gym.action_masks())))
        assert not over
    assert aec_cut is not None and vec.truncated[0] and vec.final_moves[0] == aec_cut == info["moves"] == limit
