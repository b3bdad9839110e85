"""The vector environment: the same deals, observations, masks and rewards as the AEC environment given
the same seeds and actions; finished deals dealt again at once; the Gymnasium face; worker processes;
illegal actions refused without playing anything."""

import gymnasium
import numpy as np
import pytest

import durak_env
from durak_env import IllegalAction, Refusal, Rules
from durak_env.vector import DurakVectorEnv, SelfPlayVectorEnv


def aec_decision(env):
    """The AEC env's pending decision: (seat, observation, mask), after stepping dead agents away."""
    agent = env.agent_selection
    obs = env.observe(agent)
    return int(agent.split("_")[1]), obs["observation"], obs["action_mask"]


@pytest.mark.parametrize("preset, players, workers", [("podkidnoy", 2, 1), ("perevodnoy", 3, 1), ("tournament", 4, 2)])
def test_the_vector_env_equals_aec_envs_on_the_same_seeds_and_actions(preset, players, workers):
    rules = Rules.preset(preset, num_players=players)
    n_envs, seed = 5, 40
    venv = SelfPlayVectorEnv(rules, num_envs=n_envs, workers=workers)
    aecs = [durak_env.raw_env(rules) for _ in range(n_envs)]
    try:
        obs, mask, seats = venv.reset(seed=seed)
        for i, env in enumerate(aecs):
            env.reset(seed=seed + i)
        rng = np.random.default_rng(1)
        ended = 0
        for step in range(400):
            for i, env in enumerate(aecs):
                seat, aobs, amask = aec_decision(env)
                assert seats[i] == seat, (step, i)
                np.testing.assert_array_equal(obs[i], aobs)
                np.testing.assert_array_equal(mask[i], amask)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, seats, rewards, done, cut = venv.step(actions)
            for i, env in enumerate(aecs):
                env.step(int(actions[i]))
                if env.game.result is not None:
                    assert done[i] and (rewards[i] == np.float32(env.game.result.rewards())).all()
                    ended += 1
                    env.reset()  # the next deal of the same generator, as the vector env deals it
                else:
                    assert not done[i] and not rewards[i].any()
        assert ended >= 5
    finally:
        venv.close()


def test_an_illegal_action_names_the_deal_and_plays_nothing():
    why = None
    for workers in (1, 2):
        venv = SelfPlayVectorEnv(num_envs=4, workers=workers)
        try:
            obs, mask, seats = venv.reset(seed=3)
            before = obs.copy()
            actions = np.array([np.flatnonzero(m)[0] for m in mask])
            actions[2] = int(np.flatnonzero(mask[2] == 0)[0])
            with pytest.raises(IllegalAction, match="deal 2") as err:
                venv.step(actions)
            # Why, as the engine says it: from this process's deal, and the same where a worker holds it.
            why = why or venv._deals().games[2].refusal(int(actions[2]))[0]
            assert err.value.code == why and why not in (Refusal.NOT_AN_ACTION, Refusal.NOT_LEGAL, None)
            np.testing.assert_array_equal(venv.obs, before)
            with pytest.raises(IllegalAction, match="4 integer actions"):
                venv.step([0, 1])
            venv.step(np.array([np.flatnonzero(m)[0] for m in mask]))  # still usable
        finally:
            venv.close()


def test_the_arrays_are_read_only_views_written_in_place():
    with SelfPlayVectorEnv(num_envs=3) as venv:
        obs, mask, seats = venv.reset(seed=0)
        with pytest.raises(ValueError):
            obs[0, 0] = 5.0
        venv.step(np.array([np.flatnonzero(m)[-1] for m in mask]))
        assert venv.obs is obs and obs.shape == (3, 309) and mask.dtype == np.int8


def test_bad_settings_are_refused():
    for kwargs, words in (({"num_envs": 0}, "num_envs"), ({"workers": 0}, "workers"), ({"workers": "many"}, "workers"),
                          ({"rules": "chess"}, "unknown rules preset")):
        with pytest.raises(ValueError, match=words):
            SelfPlayVectorEnv(**kwargs)


def test_a_dead_worker_is_reported_not_waited_for():
    import os
    import signal

    venv = SelfPlayVectorEnv(num_envs=4, workers=2)
    try:
        obs, mask, _ = venv.reset(seed=1)
        os.kill(venv._helpers.procs[0].pid, signal.SIGKILL)
        venv._helpers.procs[0].join(5)
        with pytest.raises(RuntimeError, match="worker died"):
            venv.step(np.array([np.flatnonzero(m)[0] for m in mask]))
    finally:
        venv.close()


# ----- the Gymnasium face --------------------------------------------------------------------

def test_the_gymnasium_vector_env_plays_the_learner_seat_against_bots():
    envs = DurakVectorEnv(num_envs=4, rules="podkidnoy", opponents="heuristic", seat=1)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    obs, info = envs.reset(seed=0)
    assert obs["observation"].shape == (4, 309) and obs["action_mask"].shape == (4, 110)
    assert envs.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    finished, rewards = 0, []
    for _ in range(400):
        game_seats = [g.to_act for g in envs.core.games]
        assert game_seats == [1, 1, 1, 1]  # every deal waits on the learner
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, reward, term, trunc, info = envs.step(actions)
        for i in np.flatnonzero(term):
            assert info["_final_obs"][i] and info["final_obs"][i]["observation"].shape == (309,)
            assert info["final_obs"][i]["action_mask"].all()  # no decision left: the idle mask, samplable
            rewards.append(reward[i])
        finished += int(term.sum())
    assert finished > 5 and set(rewards) <= {-1.0, 0.0, 1.0}
    assert np.mean(rewards) < 0  # random play loses to seed 004's heuristic


def test_the_gymnasium_vector_env_matches_single_gym_envs_with_a_deterministic_bot():
    """Deal i of the vector env is the deal of DurakGymEnv... both seat the learner at seat 0 and a heuristic
    at seat 1, so the same actions give the same observations."""
    from durak_env.gym_env import DurakGymEnv

    envs = DurakVectorEnv(num_envs=3, opponents="heuristic", seat=0)
    obs, _ = envs.reset(seed=7)
    for i in range(3):
        single = DurakGymEnv(opponents="heuristic", seat=0)
        deal = durak_env.Game(Rules(), seed=__import__("random").Random(7 + i).getrandbits(64))
        first, _ = single.reset(seed=0, options={"state": deal.to_dict()})
        np.testing.assert_array_equal(first["observation"], obs["observation"][i])


def test_gymnasium_make_vec_builds_the_batched_env_by_name():
    """``gymnasium.make_vec("durak_env/Durak-v0", ...)`` uses the vector entry point (one batched core, not
    N copies of the single env) with the same keyword arguments as ``gymnasium.make``."""
    envs = gymnasium.make_vec("durak_env/Durak-v0", num_envs=5, rules="perevodnoy", opponents="heuristic", seat=0)
    assert isinstance(envs.unwrapped, DurakVectorEnv) and envs.num_envs == 5
    assert envs.unwrapped.rules == Rules.preset("perevodnoy")
    obs, _ = envs.reset(seed=3)
    assert obs["action_mask"].shape == (5, 110) and (obs["action_mask"].sum(1) > 1).all()
    envs.close()


@pytest.mark.parametrize("engine", ["auto", "python"])
def test_every_worker_refuses_with_the_engines_code_and_words(engine):
    """Issue 44: with helper processes (workers=3), an illegal action in any share is refused with the code and
    the words one process gives (the engine's), not a generic "not legal"; nothing is played."""
    rules = Rules.preset("perevodnoy")
    one = SelfPlayVectorEnv(rules, num_envs=6, engine=engine)
    three = SelfPlayVectorEnv(rules, num_envs=6, workers=3, engine=engine)
    try:
        one.reset(seed=4)
        three.reset(seed=4)
        assert (one.mask == three.mask).all()
        for deal in range(6):  # deals 0-1 this process's, 2-3 and 4-5 a helper's each
            acts = one.mask.argmax(axis=1)
            acts[deal] = int(np.flatnonzero(one.mask[deal] == 0)[deal % 3])
            refused = []
            for venv in (one, three):
                before = venv.obs.copy()
                with pytest.raises(IllegalAction) as err:
                    venv.step(acts)
                refused.append((err.value.code, str(err.value)))
                assert (venv.obs == before).all()
            assert refused[0] == refused[1] and refused[0][0] != Refusal.NOT_LEGAL
            assert refused[0][1].startswith(f"deal {deal}: ")
    finally:
        one.close()
        three.close()
