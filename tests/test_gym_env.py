"""The single-agent Gymnasium environment (issue 5): registry, check_env, masks, opponents, vector envs."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import durak_env
from baselines import HeuristicBot, SHIPPED_BOTS
from durak_env import IllegalAction, Rules
from durak_env.gym_env import DurakGymEnv


def play_random(env, seed, episodes=3):
    rng = np.random.default_rng(seed)
    rewards = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
            assert info["action_mask"].sum() > 1, "forced moves are played for the learner"
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
        rewards.append(reward)
        obs, info = env.reset()
    return rewards


def test_make_by_name_and_check_env_passes_without_warnings():
    env = gymnasium.make("durak_env/Durak-v0", rules="podkidnoy", opponents="heuristic", render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    assert isinstance(env.unwrapped, DurakGymEnv)
    assert env.observation_space["observation"].shape == (309,)
    assert env.action_space.n == 110


def test_spaces_and_observation_match_the_aec_environment():
    gym_env = DurakGymEnv(rules="tournament", opponents="random", seat=1)
    aec = durak_env.raw_env(rules="tournament")
    assert gym_env.observation_space == aec.observation_space("player_0")
    assert gym_env.action_space == aec.action_space("player_0")
    obs, _ = gym_env.reset(seed=3)
    expected = aec.encoder.encode(gym_env.game.view(1))
    assert np.array_equal(obs["observation"], expected)


def test_random_learner_loses_to_heuristic_and_episodes_end_with_the_result():
    env = gymnasium.make("durak_env/Durak-v0", opponents="heuristic")
    rewards = play_random(env, seed=0, episodes=12)
    assert set(rewards) <= {-1.0, 0.0, 1.0}
    assert sum(rewards) < 0  # seed 004's heuristic beats random play about 9 times in 10


def test_same_seed_same_episode_and_random_seat_varies():
    def trajectory(seed):
        env = DurakGymEnv(opponents="easy", seat="random")
        obs, info = env.reset(seed=seed)
        seats, out = [info["seat"]], [obs["observation"].copy()]
        rng = np.random.default_rng(1)
        for _ in range(3):
            done = False
            while not done:
                obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
                out.append(obs["observation"].copy())
                done = term or trunc
            obs, info = env.reset()
            seats.append(info["seat"])
        return seats, out

    seats, a = trajectory(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, trajectory(5)[1]))
    assert len(set(trajectory(6)[0] + seats)) == 2


class CountingBot(HeuristicBot):
    def __init__(self):
        self.seats = set()

    def act(self, view):
        self.seats.add(view.seat)
        return super().act(view)


def test_opponents_by_name_object_list_and_exported_file():
    """Each other seat is played by the bot given for it, seen through that seat's view."""
    counted = CountingBot()
    env = DurakGymEnv(rules=Rules(num_players=3), opponents=[counted, "random"], seat=0)
    rewards = play_random(env, 1, episodes=2)
    assert counted.seats == {1} and set(rewards) <= {-1.0, -0.5, 0.0, 0.5, 1.0}
    assert type(env.opponents[1]).__name__ == "RandomBot"
    env = DurakGymEnv(opponents=str(SHIPPED_BOTS["podkidnoy"][0]))
    assert env.opponents[0].rules == Rules() and env.opponents[0].name == "podkidnoy.onnx"
    assert set(play_random(env, 2, episodes=2)) <= {-1.0, 0.0, 1.0}
    assert DurakGymEnv(opponents="trained").opponents[0].rules == Rules()
    with pytest.raises(ValueError, match="needs 2"):
        DurakGymEnv(rules=Rules(num_players=3), opponents=["random"])
    with pytest.raises(ValueError, match="unknown bot"):
        DurakGymEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="seat must be"):
        DurakGymEnv(seat=2)


def test_illegal_action_loses_or_raises_and_changes_nothing():
    env = DurakGymEnv(opponents="heuristic", seat=0)
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, term, trunc, info = env.step(illegal)
    assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, illegal)
    assert info["refusal"] == env.game.refusal(illegal)[0] != "not_legal"
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)

    env = DurakGymEnv(opponents="heuristic", seat=0, illegal_action="raise")
    obs, info = env.reset(seed=1)
    before = env.game.to_dict()
    with pytest.raises(IllegalAction, match="legal") as err:
        env.step(illegal)
    assert env.game.to_dict() == before and err.value.code == env.game.refusal(illegal)[0]


def test_reset_from_a_saved_position():
    env = DurakGymEnv(opponents="heuristic", seat=0)
    env.reset(seed=4)
    snap = env.game.to_dict()
    obs, info = env.reset(seed=9, options={"state": snap, "seat": 0})
    assert env.game.to_dict() == snap and info["seat"] == 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs_run_many_games(mode):
    envs = gymnasium.make_vec("durak_env/Durak-v0", num_envs=3, vectorization_mode=mode, opponents="heuristic")
    try:
        obs, info = envs.reset(seed=0)
        assert obs["observation"].shape == (3, 309) and info["action_mask"].shape == (3, 110)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(120):
            actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]]
            obs, rewards, term, trunc, info = envs.step(np.array(actions))
            finished += int(np.sum(term | trunc))
        assert finished > 0
    finally:
        envs.close()


def test_pettingzoo_registry_makes_the_aec_env():
    import pettingzoo

    env = pettingzoo.make("aec", "durak_env/Durak-v0", rules="perevodnoy")
    env.reset(seed=1)
    assert env.unwrapped.rules == Rules.preset("perevodnoy")


def masked_sample(mask, rng) -> int:
    """A masked sampler as learners write one: a softmax over the allowed actions (NaN if none is allowed)."""
    logits = np.where(np.asarray(mask) == 1, 0.0, -np.inf)
    p = np.exp(logits - logits.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def test_an_episodes_last_observation_has_the_idle_mask_a_masked_sampler_can_use():
    """PufferLib's emulation and Gymnasium's next-step autoreset hand the last observation to the policy, which
    samples on it before the reset: an all-zero mask there made a masked sampler fail.  The last observation of
    an ended, cut off or illegal-ended episode allows every action; none is played."""
    rng = np.random.default_rng(0)
    for env, mode in [(DurakGymEnv("podkidnoy", opponents="random"), "ended"),
                      (DurakGymEnv("podkidnoy", opponents="random", max_moves=6), "cut"),
                      (DurakGymEnv("podkidnoy", opponents="random"), "illegal")]:
        obs, info = env.reset(seed=1)
        done = False
        while not done:
            legal = obs["action_mask"]
            assert 0 < legal.sum() < len(legal)  # a real decision: its own legal moves
            action = int(np.flatnonzero(legal == 0)[0]) if mode == "illegal" else masked_sample(legal, rng)
            obs, reward, term, trunc, info = env.step(action)
            done = term or trunc
        assert (term, trunc) == ((True, False) if mode != "cut" else (False, True))
        assert obs["action_mask"].all() and info["action_mask"].all() and env.action_masks().all()
        masked_sample(obs["action_mask"], rng)
    vec = gymnasium.make_vec("durak_env/Durak-v0", num_envs=2, vectorization_mode="sync", opponents="random")
    obs, info = vec.reset(seed=0)
    ends = 0
    for _ in range(300):  # every row sampled, the last observations included (next-step autoreset)
        obs, _, term, trunc, info = vec.step(np.array([masked_sample(m, rng) for m in obs["action_mask"]]))
        ends += int(np.sum(term | trunc))
    vec.close()
    assert ends >= 2
