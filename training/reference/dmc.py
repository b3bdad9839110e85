"""Deep Monte-Carlo (DouZero: Zha et al., 2021): a Q-network over state-action features, fitted to the
Monte-Carlo return of every move in epsilon-greedy self-play.

A move's features are its kind (attack, defend, transfer, take, done) and its card, one-hot, appended to the
seat's observation; ``Q(observation, move)`` is one output.  Every seat of every deal plays the current
network's greedy move (a random legal one with probability ``epsilon``), deals run on the native self-play
vector core, and when a deal ends each of its moves is stored with its seat's final reward (no discount, no
bootstrapping).  The network learns by mean squared error on batches drawn from the latest moves.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from torch import nn

from durak_env.engine.actions import KINDS, decode_action, layout_for
from durak_env.engine.rules import Rules
from durak_env.vector import SelfPlayVectorEnv
from training.policy import mlp

from .harness import greedy

HISTORY = 512
"""Decisions of one deal kept for its returns; a longer deal keeps its last ``HISTORY``."""


def move_features(rules: Rules) -> np.ndarray:
    """float32 [actions, kinds + deck]: each move of the layout as its kind and card, one-hot."""
    layout = layout_for(rules.deck_size)
    out = np.zeros((layout.size, len(KINDS) + rules.deck_size), dtype=np.float32)
    for action in range(layout.size):
        move = decode_action(action, rules)
        out[action, KINDS.index(move.kind)] = 1.0
        if move.card is not None:
            out[action, len(KINDS) + layout.slot_of[move.card]] = 1.0
    return out


class QNet(nn.Module):
    """Q(observation, move) for the rows of ``x``: the observation and the move's features side by side."""

    def __init__(self, width: int, hidden_sizes: list[int]):
        super().__init__()
        self.trunk, out = mlp(width, hidden_sizes)
        self.head = nn.Linear(out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(x)).squeeze(-1)


class GreedyPlayer(nn.Module):
    """(observation, int8 mask) -> (probabilities, value): every move scored by the Q-network
    (``harness.greedy``)."""

    def __init__(self, net: QNet, features: np.ndarray):
        super().__init__()
        self.net = net
        self.register_buffer("features", torch.from_numpy(features))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, (moves, width) = obs.shape[0], self.features.shape
        x = torch.cat([obs.unsqueeze(1).expand(batch, moves, obs.shape[1]),
                       self.features.unsqueeze(0).expand(batch, moves, width)], dim=2)
        return greedy(self.net(x), mask)


class DeepMonteCarlo:
    """The learner (``training.reference.harness.Learner``)."""

    name = "dmc"

    def __init__(self, rules: Rules, seed: int, num_envs: int = 256, hidden_sizes: tuple[int, ...] = (256, 256),
                 epsilon: float = 0.05, batch_size: int = 2048, learning_rate: float = 3e-4,
                 buffer_size: int = 300_000, replay: float = 2.0):
        torch.manual_seed(seed)
        self.rules, self.seed, self.epsilon, self.batch_size, self.replay = rules, seed, epsilon, batch_size, replay
        self.hidden_sizes = list(hidden_sizes)
        self.deals = SelfPlayVectorEnv(rules, num_envs=num_envs)
        self.deals.reset(seed=seed)
        self.features = move_features(rules)
        self.obs_size = self.deals.obs_size
        self.net = QNet(self.obs_size + self.features.shape[1], self.hidden_sizes)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=learning_rate)
        self.rng = np.random.default_rng(seed)
        self.decisions, self.updates, self.step_count = 0, 0, 0
        n = num_envs
        self._obs = np.zeros((HISTORY, n, self.obs_size), dtype=np.float32)
        self._acts = np.zeros((HISTORY, n), dtype=np.int64)
        self._seats = np.zeros((HISTORY, n), dtype=np.int64)
        self._start = np.zeros(n, dtype=np.int64)
        self._buffer_obs = np.zeros((buffer_size, self.obs_size), dtype=np.float32)
        self._buffer_acts = np.zeros(buffer_size, dtype=np.int64)
        self._buffer_returns = np.zeros(buffer_size, dtype=np.float32)
        self._stored, self._fresh = 0, 0
        self._features_t = torch.from_numpy(self.features)

    # ----- acting ---------------------------------------------------------------------------------------

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each deal's move: the greedy one by Q, or with probability epsilon a random legal one."""
        rows, moves = np.nonzero(mask)
        with torch.no_grad():
            x = torch.cat([torch.from_numpy(obs[rows]), self._features_t[moves]], dim=1)
            q = self.net(x).numpy()
        scores = np.full(mask.shape, -np.inf, dtype=np.float32)
        scores[rows, moves] = q
        greedy = scores.argmax(axis=1)
        noise = np.where(mask == 1, self.rng.random(mask.shape), -1.0)
        explore = self.rng.random(len(mask)) < self.epsilon
        return np.where(explore, noise.argmax(axis=1), greedy)

    def _act(self) -> None:
        """One move in every deal, its history kept; finished deals' moves go to the buffer with their returns."""
        deals = self.deals
        actions = self._choose(deals.obs, deals.mask)
        slot = self.step_count % HISTORY
        self._obs[slot], self._acts[slot], self._seats[slot] = deals.obs, actions, deals.seats
        deals.step(actions)
        self.step_count += 1
        self.decisions += len(actions)
        for i in np.flatnonzero(deals.ended | deals.truncated):
            steps = np.arange(max(self._start[i], self.step_count - HISTORY), self.step_count) % HISTORY
            returns = deals.rewards[i, self._seats[steps, i]] if deals.ended[i] else np.zeros(len(steps))
            self._store(self._obs[steps, i], self._acts[steps, i], returns)
            self._start[i] = self.step_count

    def _store(self, obs: np.ndarray, acts: np.ndarray, returns: np.ndarray) -> None:
        size = len(self._buffer_acts)
        where = (self._stored + np.arange(len(acts))) % size
        self._buffer_obs[where], self._buffer_acts[where], self._buffer_returns[where] = obs, acts, returns
        self._stored += len(acts)
        self._fresh += len(acts)

    # ----- learning -------------------------------------------------------------------------------------

    def _learn(self) -> None:
        """Gradient steps while the buffer has fresh moves: ``replay`` samples per fresh move."""
        while self._fresh >= self.batch_size:
            self._fresh -= int(self.batch_size / self.replay)
            pick = self.rng.integers(min(self._stored, len(self._buffer_acts)), size=self.batch_size)
            acts = torch.from_numpy(self._buffer_acts[pick])
            x = torch.cat([torch.from_numpy(self._buffer_obs[pick]), self._features_t[acts]], dim=1)
            loss = nn.functional.mse_loss(self.net(x), torch.from_numpy(self._buffer_returns[pick]))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.updates += 1

    def train(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            self._act()
            self._learn()

    def player(self) -> nn.Module:
        return GreedyPlayer(self.net, self.features).eval()

    def state_dict(self) -> dict[str, Any]:
        return {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "decisions": self.decisions,
                "updates": self.updates}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """The network and its optimizer; the deals are dealt afresh (seeded by the decisions so far) and the
        buffer fills again."""
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.decisions, self.updates = int(state["decisions"]), int(state["updates"])
        self.deals.reset(seed=self.seed + self.decisions)
