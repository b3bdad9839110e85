"""The policy network: a shared MLP trunk with a masked policy head and a value head.

Illegal actions are masked out of the logits (set to a large negative number), never
penalised: the policy cannot sample them and they get no gradient.
"""

from __future__ import annotations

import torch
from torch import nn

MASKED_LOGIT = -1e9


class PolicyNet(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden_sizes: list[int]):
        super().__init__()
        self.obs_size, self.num_actions, self.hidden_sizes = obs_size, num_actions, list(hidden_sizes)
        layers: list[nn.Module] = []
        width = obs_size
        for h in hidden_sizes:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.pi = nn.Linear(width, num_actions)
        self.v = nn.Linear(width, 1)
        nn.init.orthogonal_(self.pi.weight, gain=0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v.weight, gain=1.0)
        nn.init.zeros_(self.v.bias)

    @torch.no_grad()
    def sharpen(self, temperature: float) -> None:
        """Divide the policy's logits by ``temperature`` (below 1: closer to its most likely move)."""
        self.pi.weight /= temperature
        self.pi.bias /= temperature

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and the value estimate."""
        h = self.trunk(obs)
        logits = self.pi(h).masked_fill(mask == 0, MASKED_LOGIT)
        return logits, self.v(h).squeeze(-1)


class ActionProbabilities(nn.Module):
    """What an exported bot computes: the masked policy's action probabilities, and the value head's
    estimate of the deal's outcome for the seat (for hints)."""

    def __init__(self, net: PolicyNet):
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(obs, mask)
        return torch.softmax(logits, dim=-1), value


def sample_masked(logits: torch.Tensor, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample from masked logits; returns actions and their log-probabilities.  (Probabilities come from
    softmax, not from exponentiating log-probabilities: exp of the masked entries' huge negative logs takes
    the CPU's slow underflow path.)"""
    actions = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
    logp = torch.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return actions, logp
