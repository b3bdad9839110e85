"""PufferLib as its documentation runs an environment: its PettingZoo emulation over the parallel face, and
the native ``DurakPufferEnv`` through ``pufferlib.vector`` (one call steps every deal), each rolled out with a
masked sampler over the whole batch.  Before the parallel face, the emulation failed at reset (an AEC
environment's reset returns nothing)."""

import numpy as np
import pufferlib
import pufferlib.emulation
import pufferlib.pytorch
import pufferlib.vector
import pytest
import torch

import durak_env
from durak_env import IllegalAction
from durak_env.puffer import DurakPufferEnv


pytestmark = pytest.mark.usefixtures("quiet")


def sample(mask: torch.Tensor) -> np.ndarray:
    """A masked sampler over the batch: NaN, and an error, on a row that allows nothing."""
    logits = torch.zeros(mask.shape).masked_fill(~mask.bool(), -torch.inf)
    return torch.distributions.Categorical(logits=logits).sample().numpy().astype(np.int32)


def make_emulated(buf=None, seed=0):
    return pufferlib.emulation.PettingZooPufferEnv(env=durak_env.parallel_env("podkidnoy"), buf=buf, seed=seed)


@pytest.mark.parametrize("backend", [pufferlib.vector.Serial, pufferlib.vector.Multiprocessing])
def test_the_pettingzoo_emulation_of_the_parallel_face_rolls_out_masked(backend):
    extra = {"num_workers": 2} if backend is pufferlib.vector.Multiprocessing else {}
    vecenv = pufferlib.vector.make(make_emulated, num_envs=4, backend=backend, **extra)
    layout = pufferlib.pytorch.nativize_dtype(vecenv.driver_env.emulated)
    vecenv.async_reset(seed=0)
    ends = 0
    for _ in range(300):
        obs, rewards, terminals, truncations, _, _, _, _ = vecenv.recv()
        ends += int(terminals.sum())
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        fields = pufferlib.pytorch.nativize_tensor(torch.as_tensor(obs), layout)
        vecenv.send(sample(fields["action_mask"]))
    vecenv.close()
    assert ends >= 4 * 2  # whole deals, both seats' ends reported


def test_the_native_puffer_env_steps_every_deal_in_one_call():
    """Each seat is an agent; only the acting seat's row is live, its mask the engine's; a deal's end gives every
    seat of it the engine's reward; the rows already hold the next deal."""
    vecenv = pufferlib.vector.make(DurakPufferEnv, backend=pufferlib.vector.PufferEnv,
                                   env_kwargs={"rules": "podkidnoy", "num_envs": 32})
    assert isinstance(vecenv, pufferlib.PufferEnv) and vecenv.num_agents == 64
    obs, infos = vecenv.reset(seed=0)
    size = vecenv.obs_size
    games = vecenv.deals.games()
    ends, totals = 0, np.zeros(2)
    for _ in range(400):
        live = np.flatnonzero(vecenv.masks)
        assert len(live) == 32 and set(live // 2) == set(range(32))  # one acting seat per deal
        for row in live[:4]:
            game = games[row // 2]
            assert game.to_act == row % 2
            legal = np.flatnonzero(obs[row, size:])
            assert legal.tolist() == sorted(game.legal_actions())
        idle = np.setdiff1d(np.arange(64), live)
        assert (obs[idle, size:] == 1).all() and (obs[idle, :size] == 0).all()
        obs, rewards, terminals, truncations, infos = vecenv.step(sample(torch.as_tensor(obs[:, size:])))
        games = vecenv.deals.games()
        ended = terminals.reshape(32, 2).all(axis=1)
        ends += int(ended.sum())
        totals += rewards.reshape(32, 2)[ended].sum(axis=0)
        assert (rewards.reshape(32, 2)[ended].sum(axis=1) == 0).all()  # a fool and a winner, or a draw
        assert infos == []
    assert ends >= 32


def test_an_illegal_action_of_an_acting_seat_is_refused():
    env = DurakPufferEnv("podkidnoy", num_envs=4)
    obs, _ = env.reset(seed=1)
    actions = np.zeros(8, dtype=np.int32)
    row = int(np.flatnonzero(env.masks)[0])
    actions[row] = int(np.flatnonzero(obs[row, env.obs_size:] == 0)[0])
    before = [g.to_dict() for g in env.deals.games()]
    with pytest.raises(IllegalAction, match="deal"):
        env.step(actions)
    assert [g.to_dict() for g in env.deals.games()] == before
