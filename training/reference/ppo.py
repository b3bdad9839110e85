"""PPO by an outside library: sb3-contrib's ``MaskablePPO`` on the Gymnasium environment, as its documentation
trains a masked game (the mask read from ``action_masks()``), the learner at a random seat against the random
player (no bot of this project as opponent or teacher)."""

from __future__ import annotations

import time
from typing import Any

import torch
from stable_baselines3.common.callbacks import BaseCallback
from torch import nn

from durak_env.engine.rules import Rules
from training.policy import MASKED_LOGIT


class _Deadline(BaseCallback):
    """Stops ``learn`` at a wall-clock time (checked every environment step)."""

    def __init__(self, end: float):
        super().__init__()
        self.end = end

    def _on_step(self) -> bool:
        return time.perf_counter() < self.end


class MaskablePlayer(nn.Module):
    """(observation, int8 mask) -> (probabilities, value) from a MaskablePPO policy, as its ``forward`` computes
    them."""

    def __init__(self, policy: nn.Module):
        super().__init__()
        self.policy = policy

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.policy.extract_features({"observation": obs, "action_mask": mask.float()})
        latent_pi, latent_vf = self.policy.mlp_extractor(features)
        logits = self.policy.action_net(latent_pi).masked_fill(mask == 0, MASKED_LOGIT)
        return torch.softmax(logits, dim=1), self.policy.value_net(latent_vf).squeeze(-1)


class MaskablePPOLearner:
    """The learner (``training.reference.harness.Learner``)."""

    name = "ppo"

    def __init__(self, rules: Rules, seed: int, envs: int = 8, hidden_sizes: tuple[int, ...] = (256, 256)):
        from sb3_contrib import MaskablePPO

        from training.sb3_maskable_ppo import make_env

        torch.manual_seed(seed)
        self.hidden_sizes = list(hidden_sizes)
        venv = make_env(rules, "random", envs, seed)
        self.model = MaskablePPO("MultiInputPolicy", venv, n_steps=512, batch_size=512, gamma=1.0, gae_lambda=0.95,
                                 ent_coef=0.01, learning_rate=3e-4, seed=seed, device="cpu",
                                 policy_kwargs={"net_arch": self.hidden_sizes})

    @property
    def decisions(self) -> int:
        return int(self.model.num_timesteps)

    def train(self, seconds: float) -> None:
        self.model.learn(total_timesteps=10**12, callback=_Deadline(time.perf_counter() + seconds),
                         reset_num_timesteps=False)

    def player(self) -> nn.Module:
        return MaskablePlayer(self.model.policy).eval()

    def state_dict(self) -> dict[str, Any]:
        return {"policy": self.model.policy.state_dict(),
                "optimizer": self.model.policy.optimizer.state_dict(), "decisions": self.decisions}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.model.policy.load_state_dict(state["policy"])
        self.model.policy.optimizer.load_state_dict(state["optimizer"])
        self.model.num_timesteps = int(state["decisions"])
