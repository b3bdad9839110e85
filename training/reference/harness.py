"""The run of one reference algorithm: a wall-clock budget, checkpoints, a learning curve, a bot file.

A learner (``Learner``) trains for a number of seconds at a time; between stretches the harness checkpoints
it, exports its greedy policy and evaluates it.  Only the stretches count against the budget.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import torch

from baselines.evaluate import evaluate
from baselines.policy_file import bot_metadata
from durak_env.engine.rules import Rules
from durak_env.observation import network_shape
from training.export import write_bot
from training.policy import MASKED_LOGIT

from . import ALGORITHMS

CURVE = "curve.jsonl"
RUN_LOG = "run.jsonl"
"""One line per start or resume of the run: when, the command line, the settings and the machine's cores."""
CHECKPOINT = "checkpoint.pt"
BOT = "bot.onnx"


class Learner(Protocol):
    """What the harness asks of an algorithm."""

    name: str
    decisions: int
    """Decisions (moves chosen by a policy, forced ones not counted) consumed by training so far."""
    hidden_sizes: list[int]

    def train(self, seconds: float) -> None:
        """Train for about ``seconds`` of wall clock."""

    def player(self) -> torch.nn.Module:
        """The greedy policy as a module (float32 observation, int8 mask) -> (action probabilities, value),
        what ``training.export.write_bot`` writes."""

    def state_dict(self) -> dict[str, Any]:
        """Everything to resume from: tensors, numbers and strings only (checkpoints load with
        ``weights_only=True``)."""

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from ``state_dict()``."""


def greedy(q: torch.Tensor, mask: torch.Tensor, temperature: float = 0.01) -> tuple[torch.Tensor, torch.Tensor]:
    """A bot file's outputs from action values ``q``: the best legal move most probable (a softmax at a low
    ``temperature``; bots play the most probable move) and the value the best legal move's, in [-1, 1]."""
    q = q.masked_fill(mask == 0, MASKED_LOGIT)
    return torch.softmax(q / temperature, dim=1), q.max(dim=1).values.clamp(-1.0, 1.0)


def make_learner(algorithm: str, rules: Rules, seed: int) -> Learner:
    """The learner of ``algorithm`` (a key of ``ALGORITHMS``) for ``rules``."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; algorithms: {', '.join(ALGORITHMS)}")
    module, _, name = ALGORITHMS[algorithm].partition(":")
    return getattr(importlib.import_module(module), name)(rules, seed)


def run(algorithm: str, minutes: float, run_dir: str | Path, seed: int = 0, eval_every: float = 5.0,
        eval_games: int = 1000, resume: bool = False, rules: Rules | None = None, log=print) -> list[dict]:
    """Train ``algorithm`` for ``minutes`` of wall clock into ``run_dir``; returns the curve (one dict a point)."""
    rules = rules or Rules()
    run_dir = Path(run_dir)
    curve_path, checkpoint_path = run_dir / CURVE, run_dir / CHECKPOINT
    learner = make_learner(algorithm, rules, seed)
    trained, curve = 0.0, []
    if resume:
        if not checkpoint_path.is_file():
            raise ValueError(f"--resume: {run_dir} has no {CHECKPOINT} to resume from")
        saved = torch.load(checkpoint_path, weights_only=True)
        if saved["algorithm"] != algorithm or saved["seed"] != seed:
            raise ValueError(f"--resume: {run_dir} holds a {saved['algorithm']} run of seed {saved['seed']}")
        learner.load_state_dict(saved["learner"])
        trained = saved["seconds"]
        curve = [json.loads(line) for line in curve_path.read_text().splitlines() if line.strip()]
    elif checkpoint_path.exists():
        raise ValueError(f"{run_dir} already holds a run; pass --resume to continue it, or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / RUN_LOG).open("a") as f:
        f.write(json.dumps({"event": "resume" if resume else "start", "at": time.strftime("%Y-%m-%d %H:%M:%S"),
                            "argv": sys.argv, "algorithm": algorithm, "minutes": minutes, "seed": seed,
                            "eval_every": eval_every, "eval_games": eval_games, "cores": os.cpu_count(),
                            "trained_minutes": round(trained / 60, 3)}) + "\n")
    budget = minutes * 60.0
    while trained < budget - 1e-6:
        stretch = min(eval_every * 60.0, budget - trained)
        started = time.perf_counter()
        learner.train(stretch)
        trained += time.perf_counter() - started
        point = _checkpoint_and_evaluate(learner, algorithm, seed, rules, run_dir, trained, eval_games)
        curve.append(point)
        with curve_path.open("a") as f:
            f.write(json.dumps(point) + "\n")
        log(f"{algorithm}: {point['minutes']:.1f} min, {point['decisions']:,} decisions, not the fool in "
            f"{point['not_fool']:.3f} [{point['ci'][0]:.3f}, {point['ci'][1]:.3f}] of {point['games']} games "
            f"against heuristic")
    return curve


def _checkpoint_and_evaluate(learner: Learner, algorithm: str, seed: int, rules: Rules, run_dir: Path,
                             trained: float, games: int) -> dict:
    """Save, export and evaluate the learner after ``trained`` seconds; the curve's point."""
    tmp = run_dir / (CHECKPOINT + ".tmp")
    torch.save({"algorithm": algorithm, "seed": seed, "seconds": trained, "learner": learner.state_dict()}, tmp)
    tmp.replace(run_dir / CHECKPOINT)
    meta = bot_metadata(rules, learner.hidden_sizes, trainer=f"training.reference:{algorithm}",
                        global_step=learner.decisions, seed=seed, minutes=round(trained / 60, 2))
    size, actions = network_shape(rules)
    bot = write_bot(learner.player(), meta, size, actions, "onnx", run_dir / BOT)
    report = evaluate([str(bot), "heuristic"], rules, games=games, seed=seed, duplicate=True)
    h = report.head_to_head
    return {"minutes": round(trained / 60, 3), "decisions": int(learner.decisions), "not_fool": h["a_not_fool"],
            "ci": list(h["a_not_fool_ci"]), "games": report.games, "opponent": "heuristic"}
