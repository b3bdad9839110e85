"""TorchRL as its documentation wraps a PettingZoo game (``PettingZooWrapper(env=..., use_mask=True)``): the
default AEC environment and the parallel face pass ``check_env_specs`` and play whole deals with masked
actions.  Before the infos kept one structure, the first forced move crashed the rollout (a variable-length
``auto_played`` list turned into a tensor)."""

import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import durak_env

FACES = {"aec": durak_env.env, "raw aec": durak_env.raw_env, "parallel": durak_env.parallel_env}


pytestmark = pytest.mark.usefixtures("quiet")


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("rules", ["podkidnoy", {"preset": "perevodnoy", "num_players": 3}])
def test_check_env_specs_and_a_masked_rollout_through_whole_deals(face, rules):
    """The raw AEC face raises on an illegal action, so its rollout also shows that every sampled move was
    legal; every deal ends with the engine's rewards (a fool -1, or a draw)."""
    env = PettingZooWrapper(env=FACES[face](rules=rules), use_mask=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(600, break_when_any_done=False)
    done = rollout["next", "done"].squeeze(-1)
    assert rollout.batch_size == torch.Size([600]) and int(done.sum()) >= 2
    for group in env.group_map:
        action, mask = rollout[group, "action"], rollout[group, "action_mask"]
        assert bool(mask.gather(-1, action.unsqueeze(-1)).all())  # no move outside its mask
    rewards = torch.cat([rollout["next", group, "reward"] for group in env.group_map], dim=1).squeeze(-1)
    assert set(rewards[~done].unique().tolist()) == {0.0}
    final = rewards[done]
    assert final.min() == -1.0 and ((final == -1).sum(dim=1) <= 1).all()
