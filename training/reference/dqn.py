"""DQN by Tianshou, as its tic-tac-toe example trains it: ``PettingZooEnv`` over ``durak_env.env()``, the DQN
learner at one seat and Tianshou's masked random player at the other, epsilon-greedy collection into its
replay buffer, n-step returns and a target network.  The learner sits at ``player_0``; who leads the first
bout is the rules' (the lowest trump), so it plays both roles."""

from __future__ import annotations

import time
from typing import Any

import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode
from torch import nn

import durak_env
from durak_env.engine.rules import Rules
from training.policy import MASKED_LOGIT


class QPlayer(nn.Module):
    """(observation, int8 mask) -> (probabilities, value) from a Q-network over the observation: the best
    legal move most probable (a softmax at temperature ``0.01``), the value its Q."""

    def __init__(self, net: nn.Module, temperature: float = 0.01):
        super().__init__()
        self.net, self.temperature = net, temperature

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q, _ = self.net(obs)
        q = q.masked_fill(mask == 0, MASKED_LOGIT)
        return torch.softmax(q / self.temperature, dim=1), q.max(dim=1).values.clamp(-1.0, 1.0)


class TianshouDQN:
    """The learner (``training.reference.harness.Learner``)."""

    name = "dqn"

    def __init__(self, rules: Rules, seed: int, num_envs: int = 8, hidden_sizes: tuple[int, ...] = (256, 256),
                 epsilon: float = 0.1, learning_rate: float = 1e-4, gamma: float = 1.0, n_step: int = 3,
                 target_update: int = 500, buffer_size: int = 200_000, batch_size: int = 256,
                 collect_steps: int = 64, updates_per_collect: int = 4):
        torch.manual_seed(seed)
        self.hidden_sizes = list(hidden_sizes)
        self.batch_size, self.collect_steps, self.updates_per_collect = batch_size, collect_steps, updates_per_collect

        self._learner_moves = [0]

        def make_env():
            return _LearnerCounting(durak_env.env(rules=rules), self._learner_moves)

        env = make_env()
        self.net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
                       hidden_sizes=self.hidden_sizes)
        policy = DiscreteQLearningPolicy(model=self.net, action_space=env.action_space, eps_training=epsilon,
                                         eps_inference=0.0)
        self.learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=learning_rate), gamma=gamma,
                           n_step_return_horizon=n_step, target_update_freq=target_update)
        opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        self.algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[self.learner, opponent], env=env)
        envs = DummyVectorEnv([make_env for _ in range(num_envs)])
        envs.seed(seed)
        self.buffer = VectorReplayBuffer(buffer_size, num_envs)
        self.collector = Collector[CollectStats](self.algorithm, envs, self.buffer, exploration_noise=True)
        self.collector.reset()
    @property
    def decisions(self) -> int:
        return self._learner_moves[0]

    def train(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        policy = self.algorithm.policy
        with policy_within_training_step(policy), torch_train_mode(policy):
            while time.perf_counter() < end:
                self.collector.collect(n_step=self.collect_steps)
                if len(self.buffer) >= self.batch_size:
                    for _ in range(self.updates_per_collect):
                        self.algorithm.update(self.buffer, self.batch_size)

    def player(self) -> nn.Module:
        return QPlayer(self.net).eval()

    def state_dict(self) -> dict[str, Any]:
        return {"algorithm": self.learner.state_dict(), "decisions": self.decisions}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """The learner's networks and optimizer; the replay buffer fills again."""
        self.learner.load_state_dict(state["algorithm"])
        self._learner_moves[0] = int(state["decisions"])


class _LearnerCounting(PettingZooEnv):
    """Tianshou's ``PettingZooEnv``, counting the moves of ``player_0`` (the learner) into ``count[0]``."""

    def __init__(self, env, count: list[int]):
        self.count = count
        super().__init__(env)

    def step(self, action):
        if self.env.agent_selection == "player_0":
            self.count[0] += 1
        return super().step(action)
