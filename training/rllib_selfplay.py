"""Multi-agent PPO self-play on Ray RLlib, for training past one machine.  Needs the ``rllib`` extra.

    durak train --backend rllib --config configs/default.yaml                  # a local Ray on this machine
    durak train --backend rllib --config configs/default.yaml --address auto   # the Ray cluster this node is in
    durak train --backend rllib --config configs/default.yaml --env-runners 8 --learners 2

Every seat of the PettingZoo AEC environment is played by one shared policy
(RLlib's ``PettingZooEnv`` wrapper, one module ``"shared"``).  The mask reaches
RLlib's action-masking module through ``RLlibObservations``, which renames the
observation to RLlib's ``{"observations", "action_mask"}`` with a float mask.
From the YAML config it reads the rules, seed, total_steps, hidden_sizes and the
PPO settings (learning_rate, gamma, gae_lambda, clip_coef, ent_coef, vf_coef,
max_grad_norm, update_epochs, minibatch_size, rollout_steps as the batch per
learner, eval_every, eval_games); the opponent mix does not apply: this is pure
self-play.  Every ``eval_every`` iterations the shared policy plays HeuristicBot
over duplicate deals (the project's evaluator, in the driver); results go to
``<run_dir>/evals.jsonl``, RLlib's checkpoint to ``<run_dir>/checkpoint`` and the trained
policy, as a bot file like the torch backend's, to ``<run_dir>/bot.onnx``.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from baselines.policy_file import PolicyBot
from durak_env.cores import usable_cores

from .config import TrainConfig

POLICY = "shared"
ENV_NAME = "durak_selfplay"
RESTARTS = 10
"""Env runner restarts RLlib allows before the run fails."""


class RLlibObservations(BaseWrapper):
    """The AEC environment with observations as RLlib's masking module reads them:
    ``{"observations": float32, "action_mask": float32}`` (PettingZoo's are ``observation`` and int8)."""

    def __init__(self, env):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, dtype=np.float32),
        })

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(env_config: dict):
    """The env each RLlib env runner builds (registered as ``durak_selfplay``)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from durak_env.environment import env

    # PettingZoo's classic wrapping: an illegal action (RLlib's env check samples unmasked ones) ends the
    # deal with -1 for the seat that tried it instead of raising.
    return PettingZooEnv(RLlibObservations(env(rules=env_config["rules"])))


def build_config(cfg: TrainConfig, env_runners: int, learners: int, envs_per_runner: int):
    """The ``PPOConfig`` for shared-policy self-play with action masking."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    rules = cfg.make_rules().to_dict()
    batch = cfg.rollout_steps
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"rules": rules})
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(cfg.hidden_sizes), "fcnet_activation": "relu",
                          "head_fcnet_hiddens": [], "vf_share_layers": True},
        )}))
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                     rollout_fragment_length="auto")
        # A dead env runner (killed, out of memory) is restarted by RLlib and the iteration goes on without its
        # samples; RESTARTS bounds it, then the run fails (tests/test_rllib.py kills one).
        .fault_tolerance(restart_failed_env_runners=True, max_num_env_runner_restarts=RESTARTS,
                         delay_between_env_runner_restarts_s=1.0)
        .learners(num_learners=learners)
        .training(lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda, clip_param=cfg.clip_coef,
                  entropy_coeff=cfg.ent_coef, vf_loss_coeff=cfg.vf_coef, grad_clip=cfg.max_grad_norm,
                  num_epochs=cfg.update_epochs, minibatch_size=min(cfg.minibatch_size, batch),
                  train_batch_size_per_learner=batch)
        .debugging(seed=cfg.seed)
    )


class Probabilities(torch.nn.Module):
    """The shared RLlib module as (observation, int8 mask) -> (action probabilities, value): what the bot file
    holds."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, obs, mask):
        batch = lambda: {"obs": {"observations": obs, "action_mask": mask.float()}}  # noqa: E731  (RLlib edits it)
        out = self.module.forward_inference(batch())
        return torch.softmax(out["action_dist_inputs"], dim=-1), self.module.compute_values(batch())


class RLlibBot(PolicyBot):
    """The shared RLlib module behind the project's bot interface (greedy), for the evaluator."""

    def __init__(self, module, rules):
        model = Probabilities(module).eval()

        def probabilities(obs, mask):
            with torch.no_grad():
                return model(torch.from_numpy(obs), torch.from_numpy(mask))[0].numpy()

        super().__init__(probabilities, rules, "rllib")


def export_bot(module, cfg: TrainConfig, out: Path, iteration: int, env_steps: float) -> Path:
    """The shared module as a playable ONNX bot (``durak play --opponent <file>``, ``make_bot(<file>)``)."""
    from durak_env.observation import ObservationEncoder

    from .checkpoints import policy_metadata
    from .export import write_bot

    rules = cfg.make_rules()
    enc = ObservationEncoder(rules)
    meta = policy_metadata(cfg, rules, "rllib", iteration, int(env_steps))
    meta["opponents"] = {"self": 1.0}  # RLlib's backend is pure self-play
    return write_bot(Probabilities(module), meta, enc.size, enc.num_actions, "onnx", out)


def summary(result: dict) -> dict[str, float]:
    """The figures of one ``algo.train()`` result that the log and the tests read."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY, {})
    return {
        "episodes": float(runners.get("num_episodes", 0)),
        "episodes_lifetime": float(runners.get("num_episodes_lifetime", 0)),
        "env_steps_lifetime": float(result.get("num_env_steps_sampled_lifetime",
                                               runners.get("num_env_steps_sampled_lifetime", 0))),
        "policy_loss": float(learner.get("policy_loss", math.nan)),
        "vf_loss": float(learner.get("vf_loss", math.nan)),
        "entropy": float(learner.get("entropy", math.nan)),
    }


def train_rllib(cfg: TrainConfig, run_dir: str | Path, address: str | None = None, env_runners: int | None = None,
          learners: int = 0, envs_per_runner: int = 32, iterations: int | None = None,
          progress: bool = True) -> list[dict]:
    """Run self-play PPO on Ray; returns each iteration's summary (evaluations included where run)."""
    import ray
    from ray.tune.registry import register_env

    from baselines.evaluate import evaluate

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    local = address is None
    if env_runners is None:
        env_runners = max(0, usable_cores() - 1) if local else cfg.workers()
    init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if local:
        init["num_cpus"] = max(usable_cores(), env_runners + 1)
    else:
        import baselines
        import durak_env
        import training

        init["address"] = address
        # The nodes need our code: ship the three packages' folders (paths, which Ray Client can send too).
        init["runtime_env"] = {"py_modules": [str(Path(m.__file__).parent) for m in (durak_env, baselines, training)]}
    ray.init(**init)
    try:
        register_env(ENV_NAME, make_env)
        algo = build_config(cfg, env_runners, learners, envs_per_runner).build_algo()
        rules = cfg.make_rules()
        history: list[dict] = []
        started = time.perf_counter()
        it = 0
        while True:
            it += 1
            row = {"iteration": it, **summary(algo.train()), "seconds": time.perf_counter() - started}
            if cfg.eval_every and it % cfg.eval_every == 0 or _done(cfg, row, it, iterations):
                bot = RLlibBot(algo.get_module(POLICY), rules)
                report = evaluate([bot, "heuristic"], rules, games=cfg.eval_games, seed=cfg.seed + it, workers=1)
                row["eval_not_fool"] = report.head_to_head["a_not_fool"] if report.head_to_head else \
                    1.0 - report.stats[0].fool_rate
                with open(run_dir / "evals.jsonl", "a") as f:
                    f.write(json.dumps({"iteration": it, "env_steps": row["env_steps_lifetime"],
                                        "not_fool": row["eval_not_fool"]}) + "\n")
            history.append(row)
            if progress:
                evaluated = f"  vs heuristic {row['eval_not_fool']:.3f}" if "eval_not_fool" in row else ""
                print(f"iter {it}: {row['env_steps_lifetime']:,.0f} steps, {row['episodes']:.0f} episodes, "
                      f"policy loss {row['policy_loss']:.4f}, vf loss {row['vf_loss']:.4f}{evaluated}", flush=True)
            if _done(cfg, row, it, iterations):
                break
        algo.save_to_path(str((run_dir / "checkpoint").resolve()))
        export_bot(algo.get_module(POLICY), cfg, run_dir / "bot.onnx", it, history[-1]["env_steps_lifetime"])
        algo.stop()
        return history
    finally:
        ray.shutdown()


def _done(cfg: TrainConfig, row: dict, it: int, iterations: int | None) -> bool:
    if iterations is not None:
        return it >= iterations
    return row["env_steps_lifetime"] >= cfg.total_steps
