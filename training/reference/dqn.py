"""DQN by Tianshou, two ways.

* ``TianshouDQN`` (``dqn``): Tianshou's single-agent DQN on the Gymnasium environment, the learner at a random
  seat against the random player, so that each transition runs from one of the learner's decisions to its next
  (the random player's moves happen inside the step).  Tianshou reads an action mask from ``obs.mask``, so a
  three-line observation wrapper (``TianshouObservation``) renames the keys.
* ``TianshouMultiAgentDQN`` (``dqn-marl``): its tic-tac-toe example's pattern: ``PettingZooEnv`` over
  ``durak_env.env()``, the DQN learner at ``player_0`` and Tianshou's masked random player at the other seat.
  Tianshou's multi-agent buffer interleaves the seats' moves, so a learner's n-step target reaches into the
  other seat's moves and bootstraps on the other seat's observation.

Both: epsilon-greedy collection into Tianshou's replay buffer, n-step returns and a target network."""

from __future__ import annotations

import time
from typing import Any

import gymnasium
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
from durak_env.gym_env import DurakGymEnv

from .harness import greedy


class QPlayer(nn.Module):
    """(observation, int8 mask) -> (probabilities, value) from a Tianshou Q-network over the observation
    (``harness.greedy``)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return greedy(self.net(obs)[0], mask)


class TianshouObservation(gymnasium.ObservationWrapper):
    """The Gymnasium environment's observation under the keys Tianshou reads: ``obs`` and a bool ``mask``."""

    def __init__(self, env: gymnasium.Env):
        super().__init__(env)
        inner = env.observation_space
        self.observation_space = gymnasium.spaces.Dict({"obs": inner["observation"],
                                                        "mask": gymnasium.spaces.MultiBinary(int(env.action_space.n))})

    def observation(self, observation: dict) -> dict:
        return {"obs": observation["observation"], "mask": observation["action_mask"].astype(bool)}


class TianshouDQN:
    """The learner of ``dqn`` (``training.reference.harness.Learner``); ``TianshouMultiAgentDQN`` changes only
    the environment, what the collector runs and how the learner's moves are counted."""

    name = "dqn"

    def __init__(self, rules: Rules, seed: int, num_envs: int = 8, hidden_sizes: tuple[int, ...] = (256, 256),
                 epsilon: float = 0.1, learning_rate: float = 1e-4, gamma: float = 1.0, n_step: int = 3,
                 target_update: int = 500, buffer_size: int = 200_000, batch_size: int = 256,
                 collect_steps: int = 64, updates_per_collect: int = 4):
        torch.manual_seed(seed)
        self.rules, self.hidden_sizes = rules, list(hidden_sizes)
        self.batch_size, self.collect_steps, self.updates_per_collect = batch_size, collect_steps, updates_per_collect
        self.decisions = 0
        env = self._make_env()
        self.net = Net(state_shape=env.observation_space[self._observation_key].shape,
                       action_shape=env.action_space.n, hidden_sizes=self.hidden_sizes)
        policy = DiscreteQLearningPolicy(model=self.net, action_space=env.action_space, eps_training=epsilon,
                                         eps_inference=0.0)
        self.learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=learning_rate), gamma=gamma,
                           n_step_return_horizon=n_step, target_update_freq=target_update)
        self.algorithm = self._collecting(env)
        """What the collector runs: the learner, or the learner beside its opponent."""
        envs = DummyVectorEnv([self._make_env for _ in range(num_envs)])
        envs.seed(seed)
        self.buffer = VectorReplayBuffer(buffer_size, num_envs)
        self.collector = Collector[CollectStats](self.algorithm, envs, self.buffer, exploration_noise=True)
        self.collector.reset()

    _observation_key = "obs"

    def _make_env(self) -> gymnasium.Env:
        return TianshouObservation(DurakGymEnv(self.rules, opponents="random"))

    def _collecting(self, env) -> Any:
        return self.learner

    def _count(self, stats: CollectStats) -> None:
        """Add the learner's moves of one collection to ``decisions``: here every step is one."""
        self.decisions += stats.n_collected_steps

    def train(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        policy = self.algorithm.policy
        with policy_within_training_step(policy), torch_train_mode(policy):
            while time.perf_counter() < end:
                self._count(self.collector.collect(n_step=self.collect_steps))
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
        self.decisions = int(state["decisions"])


class TianshouMultiAgentDQN(TianshouDQN):
    """The learner of ``dqn-marl``: ``PettingZooEnv`` over ``durak_env.env()``, the learner at ``player_0`` and
    Tianshou's masked random player at the other seat."""

    name = "dqn-marl"
    _observation_key = "observation"

    def _make_env(self) -> PettingZooEnv:
        return _LearnerCounting(durak_env.env(rules=self.rules), self)

    def _collecting(self, env) -> Any:
        opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        return MultiAgentOffPolicyAlgorithm(algorithms=[self.learner, opponent], env=env)

    def _count(self, stats: CollectStats) -> None:
        """Nothing: the environments count the learner's moves as they are played (both seats' are steps)."""


class _LearnerCounting(PettingZooEnv):
    """Tianshou's ``PettingZooEnv``, adding each move of ``player_0`` (the learner) to ``learner.decisions``."""

    def __init__(self, env, learner: TianshouDQN):
        self.learner = learner
        super().__init__(env)

    def step(self, action):
        if self.env.agent_selection == "player_0":
            self.learner.decisions += 1
        return super().step(action)
