"""The RLlib backend's environment steps per second with 1 and with 2 env runners on a local Ray.

    python benchmarks/rllib_scaling.py                  # configs/default.yaml, 6 iterations each, 32 games a runner
    python benchmarks/rllib_scaling.py --iterations 10 --envs-per-runner 8

Each setting trains ``--iterations`` iterations of ``durak train --backend rllib`` (multi-agent PPO
self-play through RLlib's PettingZooEnv, the learner in the driver) from scratch and reports the env
steps sampled per second of wall time from the second iteration on (the first includes Ray's start and
the modules' first compilation), next to the whole run's.  Evaluations are off so that only sampling
and learning count.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(runners: int, iterations: int, envs_per_runner: int) -> dict:
    from training.config import TrainConfig
    from training.rllib_selfplay import train_rllib

    cfg = dataclasses.replace(TrainConfig.load(ROOT / "configs" / "default.yaml"), pretrain_games=0, eval_every=0)
    with tempfile.TemporaryDirectory() as tmp:
        history = train_rllib(cfg, Path(tmp) / "run", env_runners=runners, envs_per_runner=envs_per_runner,
                              iterations=iterations, progress=False)
    first, last = history[0], history[-1]
    steady = (last["env_steps_lifetime"] - first["env_steps_lifetime"]) / (last["seconds"] - first["seconds"])
    return {"env_runners": runners, "iterations": len(history), "env_steps": last["env_steps_lifetime"],
            "seconds": last["seconds"], "steps_per_s_steady": steady,
            "steps_per_s_overall": last["env_steps_lifetime"] / last["seconds"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=6)
    p.add_argument("--envs-per-runner", type=int, default=32)
    args = p.parse_args()
    if args.iterations < 2:
        p.error("--iterations must be at least 2 (the first is start-up)")
    rows = [measure(n, args.iterations, args.envs_per_runner) for n in (1, 2)]
    for r in rows:
        print(f"{r['env_runners']} env runner{'s' if r['env_runners'] > 1 else ''}: "
              f"{r['steps_per_s_steady']:,.0f} env steps/s from the second iteration on "
              f"({r['steps_per_s_overall']:,.0f} over the whole run: {r['env_steps']:,} steps in {r['seconds']:.0f} s)")
    print(f"2 runners / 1 runner: {rows[1]['steps_per_s_steady'] / rows[0]['steps_per_s_steady']:.2f}")


if __name__ == "__main__":
    main()
