"""Neural Fictitious Self-Play (Heinrich and Silver, 2016) by OpenSpiel: its PyTorch ``NFSP`` agents, one per
seat, in self-play on ``python_durak`` through its ``rl_environment``, as its examples train them.  The bot
file is seat 0's average-policy network (the policy NFSP converges with), played greedily as every bot file is
by default.  OpenSpiel's own ``save``/``restore`` do not read back what they write, so a checkpoint holds the
agents' networks and optimizers directly."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import nfsp
from torch import nn

import durak_env.openspiel  # noqa: F401 - registers python_durak
from durak_env.engine.rules import Rules
from training.policy import MASKED_LOGIT

PARTS = ("_avg_network", "_optimizer")
RL_PARTS = ("_q_network", "_target_q_network", "_optimizer")


class AveragePlayer(nn.Module):
    """(observation, int8 mask) -> (probabilities, value) from NFSP's average-policy network (no value: 0)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.net(obs).masked_fill(mask == 0, MASKED_LOGIT)
        return torch.softmax(logits, dim=1), torch.zeros(obs.shape[0])


class OpenSpielNFSP:
    """The learner (``training.reference.harness.Learner``)."""

    name = "nfsp"

    def __init__(self, rules: Rules, seed: int, hidden_sizes: tuple[int, ...] = (256, 256)):
        if rules != Rules():
            raise ValueError("the NFSP reference trains on the default rules (python_durak's defaults)")
        torch.manual_seed(seed)
        np.random.seed(seed)  # NFSP draws its modes and exploration from numpy's global generator
        self.hidden_sizes = list(hidden_sizes)
        self.env = rl_environment.Environment("python_durak",
                                              chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
        size, actions = self.env.observation_spec()["info_state"][0], self.env.action_spec()["num_actions"]
        self.agents = [nfsp.NFSP(p, size, actions, self.hidden_sizes, reservoir_buffer_capacity=200_000,
                                 anticipatory_param=0.1, batch_size=128, learn_every=64, rl_learning_rate=0.01,
                                 sl_learning_rate=0.01, min_buffer_size_to_learn=1000,
                                 replay_buffer_capacity=200_000, epsilon_start=0.06, epsilon_end=0.001,
                                 seed=seed + p)
                       for p in range(self.env.num_players)]
        self.decisions = 0

    def train(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            step = self.env.reset()
            while not step.last():
                player = step.observations["current_player"]
                step = self.env.step([self.agents[player].step(step).action])
                self.decisions += 1
            for agent in self.agents:
                agent.step(step)

    def player(self) -> nn.Module:
        return AveragePlayer(self.agents[0]._avg_network).eval()

    def state_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"decisions": self.decisions}
        for p, agent in enumerate(self.agents):
            for part in PARTS:
                out[f"{p}{part}"] = getattr(agent, part).state_dict()
            for part in RL_PARTS:
                out[f"{p}_rl{part}"] = getattr(agent._rl_agent, part).state_dict()
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Every agent's networks and optimizers; the buffers fill again."""
        for p, agent in enumerate(self.agents):
            for part in PARTS:
                getattr(agent, part).load_state_dict(state[f"{p}{part}"])
            for part in RL_PARTS:
                getattr(agent._rl_agent, part).load_state_dict(state[f"{p}_rl{part}"])
        self.decisions = int(state["decisions"])
