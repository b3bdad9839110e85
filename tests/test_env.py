"""The PettingZoo AEC environment: PettingZoo's own gates, illegal moves, snapshots, rendering, rewards."""

import warnings

import numpy as np
import pytest
from helpers import position
from pettingzoo.test import api_test, seed_test

import durak_env
from durak_env import Rules, observation_slices

ENV_TABLES = [(name, n) for name in Rules.presets() for n in (2, 4)]


pytestmark = pytest.mark.usefixtures("quiet")


@pytest.mark.parametrize("name, n", ENV_TABLES)
def test_pettingzoo_api_and_seed_tests(name, n):
    rules = Rules.preset(name, num_players=n)
    api_test(durak_env.env(rules), num_cycles=200)
    api_test(durak_env.raw_env(rules), num_cycles=200)
    seed_test(lambda: durak_env.env(rules), num_cycles=200)


def play_random(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        assert env.observation_space(agent).contains(obs)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return final


def test_random_episodes_end_with_placing_rewards():
    env = durak_env.raw_env(Rules(num_players=3))
    for seed in range(20):
        rewards = play_random(env, seed)
        result = env.game.result
        assert [rewards[a] for a in env.possible_agents] == list(result.rewards())
        if result.fool is not None:
            assert rewards[f"player_{result.fool}"] == -1.0


def test_two_player_rewards_are_plus_and_minus_one():
    env = durak_env.env()
    totals = set()
    for seed in range(10):
        play_random(env, seed)
        r = env.unwrapped.game.result
        totals.add(tuple(sorted(r.rewards())))
    assert totals <= {(-1.0, 1.0), (0.0, 0.0)}


def test_reset_from_a_snapshot_continues_identically():
    env = durak_env.raw_env(Rules.preset("perevodnoy", num_players=3))
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(25):
        env.step(int(rng.choice(env.game.legal_actions())))
    snap = env.game.to_dict()
    other = durak_env.raw_env(Rules.preset("perevodnoy", num_players=3))
    other.reset(options={"state": snap})
    assert other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])
    with pytest.raises(ValueError, match="other rules"):
        durak_env.raw_env().reset(options={"state": snap})


def test_forced_moves_are_auto_played_and_reported():
    env = durak_env.raw_env()
    env.reset(seed=1)
    seen_auto = False
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].sum() >= 2  # only real questions are asked
        assert info == {}  # one fixed structure from reset on (libraries store and tensorize infos)
        seen_auto |= bool(env.forced_moves)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen_auto
    manual = durak_env.raw_env(auto_play_forced=False)
    manual.reset(seed=1)
    manual.step(int(np.flatnonzero(manual.observe(manual.agent_selection)["action_mask"])[0]))
    assert manual.observe(manual.agent_selection)["action_mask"].sum() == 1  # "done": nothing else to add


def test_max_moves_truncates():
    env = durak_env.raw_env(max_moves=5)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="max_moves"):
        durak_env.raw_env(max_moves=0)


def test_render_ansi_and_human(capsys):
    env = durak_env.raw_env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    hand = " ".join(str(c) for c in env.view(env.agent_selection).hand)
    assert "Trump " in text and "stock 24" in text and text.splitlines()[-1].startswith(f"{env.agent_selection} (")
    assert sorted(text.splitlines()[-1].split(": ")[1].split()) == sorted(hand.split())  # only the acting seat's hand
    human = durak_env.raw_env(render_mode="human")
    human.reset(seed=2)
    human.render()
    assert capsys.readouterr().out.strip() == text
    with pytest.raises(ValueError, match="render_mode"):
        durak_env.raw_env(render_mode="rgb_array")


def test_rules_can_be_given_as_a_preset_name_or_dict():
    assert durak_env.raw_env("tournament").rules == Rules.preset("tournament")
    assert durak_env.raw_env({"preset": "after-beaten", "num_players": 3}).rules.num_players == 3
    with pytest.raises(ValueError, match="unknown rules field"):
        durak_env.raw_env({"player_count": 3})


def test_observation_slices_tile_the_vector():
    for n in (2, 3, 6):
        for deck in (36, 52):
            try:
                rules = Rules(num_players=n, deck_size=deck)
            except ValueError:
                continue
            slices = list(observation_slices(rules).values())
            assert slices[0].start == 0
            assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
            env = durak_env.raw_env(rules)
            assert slices[-1].stop == env.observation_space("player_0")["observation"].shape[0]
            assert slices[-1].stop == (7 + n - 1) * deck + 4 + 6 * n + 5
    assert durak_env.raw_env().observation_space("player_0")["observation"].shape == (309,)


def test_observation_reads_the_seat_relative_table():
    rules = Rules()
    game = position(rules, ["7H 8S AS", "9H KD QD AD"], "6C", table=[("7D", None)], stock=10)
    env = durak_env.raw_env(rules)
    env.reset(options={"state": game.to_dict()})
    s = observation_slices(rules)
    obs = env.observe("player_1")["observation"]
    lay = env.layout
    slot = lambda text: lay.slot_of[durak_env.Card.parse(text)]  # noqa: E731
    assert obs[s["hand"]][[slot("9H"), slot("KD")]].tolist() == [1, 1] and obs[s["hand"]].sum() == 4
    assert obs[s["table_open"]][slot("7D")] == 1 and obs[s["next_to_beat"]][slot("7D")] == 1
    assert obs[s["trump_card"]][slot("6C")] == 1 and obs[s["trump_suit"]].tolist() == [1, 0, 0, 0]
    assert obs[s["defender"]].tolist() == [1, 0] and obs[s["attacker"]].tolist() == [0, 1]
    assert obs[s["to_act"]].tolist() == [0, 1]  # the attacker may still add 7H


def test_view_matches_the_engine():
    env = durak_env.raw_env()
    env.reset(seed=5)
    agent = env.agent_selection
    view = env.view(agent)
    assert view.legal_actions == tuple(env.game.legal_actions())
    assert len(view.hand) == 6 and view.stock_size == 24 and view.trump_card == env.game.trump_card
    other = [a for a in env.possible_agents if a != agent][0]
    assert env.view(other).legal_actions == ()
    with pytest.raises(Exception):
        view.seat = 3  # read-only


def three_wrappers(rules):
    from pettingzoo.utils import wrappers

    e = wrappers.TerminateIllegalWrapper(durak_env.raw_env(rules), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


@pytest.mark.parametrize("seed", range(8))
def test_the_one_layer_wrapper_behaves_as_pettingzoos_three(seed):
    """durak_env.env() is one ClassicWrapper; step for step it matches TerminateIllegalWrapper +
    AssertOutOfBoundsWrapper + OrderEnforcingWrapper, illegal moves and moves after the end included (an action
    outside the space is where it departs: refused with the engine's code, not an AssertionError)."""
    from durak_env.environment import ClassicWrapper

    rules = Rules.preset("perevodnoy", num_players=3)
    ours, theirs = durak_env.env(rules), three_wrappers(rules)
    assert isinstance(ours, ClassicWrapper)
    rng = np.random.default_rng(seed)
    for env in (ours, theirs):
        env.reset(seed=seed)
    trace = {id(ours): [], id(theirs): []}
    illegal_at = int(rng.integers(5, 60)) if seed % 2 else -1
    for step in range(5000):
        actions = None
        for env in (ours, theirs):
            if not env.agents:
                continue
            obs, reward, term, trunc, info = env.last()
            trace[id(env)].append((env.agent_selection, obs["observation"].tobytes(), reward, term, trunc,
                                   dict(env.rewards), sorted(env.agents)))
            if actions is None:
                mask = obs["action_mask"]
                legal, illegal = np.flatnonzero(mask), np.flatnonzero(mask == 0)
                actions = None if term or trunc else int(illegal[0] if step == illegal_at else rng.choice(legal))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(actions)
        assert trace[id(ours)] == trace[id(theirs)]
        if not ours.agents:
            break
    assert not ours.agents and not theirs.agents
    # Past PettingZoo's stack: an index outside the layout is refused as an illegal move, with the engine's code
    # (AssertOutOfBoundsWrapper would raise an AssertionError).
    fresh = durak_env.env(rules)
    fresh.reset(seed=1)
    agent = fresh.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh.step(10_000)
    assert fresh.infos[agent]["refusal"] == "not_an_action" and fresh.rewards[agent] == -1
