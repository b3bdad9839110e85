"""Tianshou as its tic-tac-toe example wraps a PettingZoo game (``PettingZooEnv`` and a multi-agent
algorithm): whole deals collected with masked policies into its replay buffer, then DQN updates by its own
trainer.  Before the infos kept one structure, the buffer refused the first forced move's info."""

import numpy as np
import pytest
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import durak_env


pytestmark = pytest.mark.usefixtures("quiet")


def make_env(rules="podkidnoy"):
    return PettingZooEnv(durak_env.env(rules=rules))


def dqn_against_random(env):
    """A DQN learner at seat 0 and Tianshou's masked random player at the other seats."""
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[64, 64])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-4), n_step_return_horizon=3, gamma=0.9,
                  target_update_freq=50)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
              for _ in env.agents[1:]]
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env), learner


@pytest.mark.parametrize("rules, seats", [("podkidnoy", 2)])
def test_whole_deals_collected_with_masked_policies_then_dqn_updates(rules, seats):
    """The default environment; tests/test_torchrl.py and tests/test_parallel.py cover the larger tables."""
    torch.manual_seed(0)
    env = make_env(rules)
    algorithm, learner = dqn_against_random(env)
    envs = DummyVectorEnv([lambda: make_env(rules) for _ in range(3)])
    envs.seed(0)
    buffer = VectorReplayBuffer(20_000, len(envs))
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes >= 6 and stats.n_collected_steps > 100
    returns = np.asarray(stats.returns).reshape(-1, seats)
    # Every deal ended by the rules (a fool -1, or a draw): an illegal move would end one with a refusal.
    assert all((r == -1).sum() <= 1 and sorted(r)[0] in (-1.0, 0.0) for r in returns)
    stored = buffer.sample(0)[0]
    assert len(stored) == len(buffer) and not any("refusal" in k for k in stored.info.keys())
    legal = stored.obs.mask[np.arange(len(stored)), stored.act]
    assert legal.all()  # every move the policies chose was inside its mask
    before = [p.detach().clone() for p in learner.policy.model.parameters()]
    test = Collector[CollectStats](algorithm, DummyVectorEnv([lambda: make_env(rules) for _ in range(2)]),
                                   exploration_noise=True)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, test_collector=test, max_epochs=1, epoch_num_steps=100,
        collection_step_num_env_steps=20, test_step_num_episodes=2, batch_size=32,
        update_step_num_gradient_steps_per_sample=0.5, test_in_training=False,
        multi_agent_return_reduction=lambda r: r[:, 0], show_progress=False))
    assert result.update_step >= 2
    after = list(learner.policy.model.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(after, before))  # the updates moved the network
