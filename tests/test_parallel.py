"""The parallel face (``durak_env.parallel_env``): PettingZoo's own checks, one move a step, honest
observations, idle masks a masked sampler can use, rewards at the end, refusals."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import durak_env
from durak_env import IllegalAction, Refusal, Rules

TABLES = [("podkidnoy", 2), ("perevodnoy", 4), ("tournament", 3), ("throw-after-take", 6)]


pytestmark = pytest.mark.usefixtures("quiet")


@pytest.mark.parametrize("name, n", TABLES)
def test_pettingzoo_parallel_api_and_seed_tests(name, n):
    rules = Rules.preset(name, num_players=n, **({"deck_size": 52} if n == 6 else {}))
    parallel_api_test(durak_env.parallel_env(rules), num_cycles=3000)
    parallel_seed_test(lambda: durak_env.parallel_env(rules), num_cycles=300)


def masked_sample(mask: np.ndarray, rng) -> int:
    """What a masked sampler does: a softmax over the allowed actions (NaN where none is allowed)."""
    logits = np.where(mask == 1, 0.0, -np.inf)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def test_whole_deals_play_the_acting_seat_as_the_aec_face_does():
    """Same seed, same moves: the parallel face's acting seat sees what the AEC face's agent_selection sees,
    every other seat has the idle mask, and the rewards at the end are the AEC face's."""
    rng = np.random.default_rng(0)
    for seed in range(5):
        par = durak_env.parallel_env("perevodnoy")
        aec = durak_env.raw_env("perevodnoy")
        obs, infos = par.reset(seed=seed)
        aec.reset(seed=seed)
        steps = 0
        while par.agents:
            acting = aec.agent_selection
            assert [a for a in par.agents if infos[a]["acting"]] == [acting]
            for agent in par.agents:
                expected = aec.observe(agent)
                np.testing.assert_array_equal(obs[agent]["observation"], expected["observation"])
                if agent == acting:
                    np.testing.assert_array_equal(obs[agent]["action_mask"], expected["action_mask"])
                else:
                    assert obs[agent]["action_mask"].all()  # idle: every action allowed, none played
            # Every seat samples from its mask, as a batched policy does; only the acting seat's action counts.
            actions = {a: masked_sample(obs[a]["action_mask"], rng) for a in par.agents}
            assert aec.observe(acting)["action_mask"][actions[acting]] == 1
            obs, rewards, terms, truncs, infos = par.step(actions)
            aec.step(actions[acting])
            steps += 1
        assert steps > 10 and all(terms.values())
        assert rewards == aec.rewards
        assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
        assert all(o["action_mask"].all() for o in obs.values())  # the final observations: idle masks
        assert infos == {a: {"acting": False} for a in par.possible_agents}


def test_infos_keep_one_structure_from_reset_on():
    par = durak_env.parallel_env(Rules.preset("podkidnoy", num_players=3))
    _, infos = par.reset(seed=3)
    rng = np.random.default_rng(3)
    while par.agents:
        assert set(infos) == set(par.agents) and all(set(i) == {"acting"} for i in infos.values())
        acting = next(a for a in par.agents if infos[a]["acting"])
        mask = par.aec.observe(acting)["action_mask"]
        _, _, _, _, infos = par.step({acting: int(rng.choice(np.flatnonzero(mask)))})


def test_an_illegal_action_loses_the_deal_or_raises_and_changes_nothing():
    par = durak_env.parallel_env("podkidnoy")
    obs, infos = par.reset(seed=1)
    acting = par.agent_selection
    illegal = int(np.flatnonzero(obs[acting]["action_mask"] == 0)[0])
    obs, rewards, terms, truncs, infos = par.step({acting: illegal})
    assert rewards[acting] == -1.0 and sum(rewards.values()) == -1.0 and all(terms.values()) and not par.agents
    assert par.refusal[0] in set(Refusal) and par.refusal[1]
    strict = durak_env.parallel_env("podkidnoy", illegal_action="raise")
    obs, _ = strict.reset(seed=1)
    before = strict.game.to_dict()
    with pytest.raises(IllegalAction):
        strict.step({acting: illegal})
    assert strict.game.to_dict() == before and strict.agents
    with pytest.raises(IllegalAction, match="is to act"):
        strict.step({})
    with pytest.raises(ValueError, match="illegal_action"):
        durak_env.parallel_env(illegal_action="ignore")


def test_registered_with_pettingzoo_by_name():
    env = pettingzoo.make("parallel", "durak_env/Durak-v0", rules="perevodnoy")
    assert isinstance(env, durak_env.DurakParallelEnv) and env.rules == Rules.preset("perevodnoy")


def test_human_rendering_prints_the_table_once_a_move(capsys):
    par = durak_env.parallel_env("podkidnoy", render_mode="human")
    obs, _ = par.reset(seed=2)
    acting = par.agent_selection
    capsys.readouterr()
    par.step({acting: int(np.flatnonzero(obs[acting]["action_mask"])[0])})
    assert capsys.readouterr().out.count("Trump ") == 1  # the AEC environment renders the move; nothing again
