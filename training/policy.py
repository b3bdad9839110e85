"""The policy network: a shared MLP trunk with a masked policy head and a value head.

Illegal actions are masked out of the logits (set to a large negative number), never
penalised: the policy cannot sample them and they get no gradient.
"""

from __future__ import annotations

import torch
from torch import nn

MASKED_LOGIT = -1e9


def mlp(width: int, hidden_sizes: list[int]) -> tuple[nn.Sequential, int]:
    """Linear layers of ``hidden_sizes`` with ReLUs over inputs ``width`` wide; and the width it puts out."""
    layers: list[nn.Module] = []
    for h in hidden_sizes:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers), width


class PolicyNet(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden_sizes: list[int]):
        super().__init__()
        self.obs_size, self.num_actions, self.hidden_sizes = obs_size, num_actions, list(hidden_sizes)
        self.trunk, width = mlp(obs_size, hidden_sizes)
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


class FullCritic(nn.Module):
    """The value of a deal for the seat to act from its observation and the cards hidden from it
    (``durak_env.privileged``): the critic of an asymmetric actor-critic, used in training only (a config's
    ``critic: full``).  The policy's own value head still learns the same returns from the observation alone,
    so a bot file's value (what ``search:net`` and the hints read) never rests on hidden cards."""

    def __init__(self, obs_size: int, hidden_size: int, hidden_sizes: list[int]):
        super().__init__()
        self.trunk, width = mlp(obs_size + hidden_size, hidden_sizes)
        self.v = nn.Linear(width, 1)
        nn.init.orthogonal_(self.v.weight, gain=1.0)
        nn.init.zeros_(self.v.bias)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        return self.v(self.trunk(torch.cat([obs, hidden], dim=-1))).squeeze(-1)


@torch.no_grad()
def widen(net: PolicyNet, hidden_sizes: list[int], seed: int = 0, noise: float = 0.01) -> PolicyNet:
    """``net`` with wider hidden layers that computes the same function (Net2WiderNet: Chen, Goodfellow and
    Shlens, "Net2Net", 2016): each new unit copies a unit of the layer, drawn at random, and the layer above
    shares that unit's outgoing weights among its copies.  So a network trained further from it starts where
    ``net`` is, with more capacity.  ``noise`` (relative to each incoming weight row's scale) is added to the
    copies' incoming weights, so that copies can learn apart; 0 keeps the function exact."""
    if len(hidden_sizes) != len(net.hidden_sizes) or any(w < h for w, h in zip(hidden_sizes, net.hidden_sizes)):
        raise ValueError(f"widen: {list(hidden_sizes)} does not widen {net.hidden_sizes} (as many layers, none "
                         f"narrower)")
    gen = torch.Generator().manual_seed(seed)
    wide = PolicyNet(net.obs_size, net.num_actions, hidden_sizes)
    old = [m for m in net.trunk if isinstance(m, nn.Linear)]
    new = [m for m in wide.trunk if isinstance(m, nn.Linear)]
    source = torch.arange(net.obs_size)  # which unit of the old layer below each unit of the new one copies
    for before, after, h, w in zip(old, new, net.hidden_sizes, hidden_sizes):
        units = torch.cat([torch.arange(h), torch.randint(h, (w - h,), generator=gen)])
        copies = torch.bincount(source, minlength=before.in_features).float()
        weight = before.weight[units][:, source] / copies[source]
        jitter = noise * weight.abs().mean(dim=1, keepdim=True) * torch.randn(weight.shape, generator=gen)
        jitter[:h] = 0  # the originals stay as they are; only their copies move
        after.weight.copy_(weight + jitter)
        after.bias.copy_(before.bias[units])
        source = units
    copies = torch.bincount(source).float()
    for head_before, head_after in ((net.pi, wide.pi), (net.v, wide.v)):
        head_after.weight.copy_(head_before.weight[:, source] / copies[source])
        head_after.bias.copy_(head_before.bias)
    wide.eval()
    return wide


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
