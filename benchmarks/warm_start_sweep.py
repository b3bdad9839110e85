"""PPO settings compared from one warm start: every variant continues the same run's first checkpoint.

    python benchmarks/warm_start_sweep.py runs/default-a --variant learning_rate=0.0004 \\
        --variant learning_rate=0.0015 --variant "opponents={self: 0.1, heuristic: 0.9}"

RUN_DIR is a run of `durak train` with a warm start (``pretrain_games``): its checkpoint of update 0, the
policy straight after the imitation, is what every variant starts from, so the teacher's games are
played once for the whole sweep.  Each variant is the run's config with KEY=VALUE changed (YAML values,
validated like a config file), in a new run folder under ``--out-dir`` that holds that checkpoint as its
``latest.pt``; ``durak train --resume`` then runs its PPO.  The warm start's minutes count as spent, so
under a ``time_budget`` every variant gets the minutes of PPO the original run had.  Variants run one
after another, each with the whole machine.  Prints and writes (``--json``) each variant's last
evaluation against HeuristicBot.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.config import ConfigError, TrainConfig  # noqa: E402
from training.train import train_ppo  # noqa: E402


def variant_config(run_dir: Path, changes: list[str]) -> TrainConfig:
    """The run's config with ``KEY=VALUE`` changes; a bad key or value raises ConfigError naming it."""
    data = yaml.safe_load((run_dir / "config.yaml").read_text())
    for change in changes:
        key, sep, value = change.partition("=")
        if not sep:
            raise ConfigError(f"{change!r}: a change is KEY=VALUE")
        data[key] = yaml.safe_load(value)
    return TrainConfig.from_dict(data, where=" ".join(changes))


def warm_start_checkpoint(run_dir: Path) -> Path:
    """``run_dir``'s checkpoint of update 0: the policy straight after its warm start."""
    if not (run_dir / "config.yaml").exists():
        raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
    first = run_dir / "checkpoints" / "update_000000.pt"
    if not first.exists():
        raise ConfigError(f"{run_dir} has no checkpoint of update 0 (was it trained with a warm start?)")
    return first


def start_from_warm_start(run_dir: Path, cfg: TrainConfig, to: Path) -> None:
    """A run folder at ``to`` whose last checkpoint is ``run_dir``'s update 0, with config ``cfg``."""
    first = warm_start_checkpoint(run_dir)
    shutil.rmtree(to, ignore_errors=True)
    (to / "checkpoints").mkdir(parents=True)
    (to / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    shutil.copy(first, to / "checkpoints" / "latest.pt")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path, help="a run of durak train with a warm start")
    p.add_argument("--variant", action="append", nargs="+", metavar="KEY=VALUE", required=True,
                   help="one variant: the config changes it makes (repeat for more variants)")
    p.add_argument("--out-dir", type=Path, default=Path("runs/sweep"), help="where the variants' runs go")
    p.add_argument("--json", type=Path, help="also write the results here")
    args = p.parse_args()
    try:
        warm_start_checkpoint(args.run_dir)
        configs = [(changes, variant_config(args.run_dir, changes)) for changes in args.variant]
    except (OSError, ConfigError) as err:
        p.error(str(err))
    results = []
    try:
        for i, (changes, cfg) in enumerate(configs):
            run = args.out_dir / f"variant-{i}"
            start_from_warm_start(args.run_dir, cfg, run)
            started = time.monotonic()
            train_ppo(resume=run, progress=False, export_onnx=False)
            last = json.loads((run / "evals.jsonl").read_text().splitlines()[-1])
            results.append({"changes": changes, "run_dir": str(run), "decisions": last["global_step"],
                            "not_fool": last["not_fool"], "not_fool_ci": last["not_fool_ci"],
                            "seconds": round(time.monotonic() - started)})
            print(f"{' '.join(changes):50s} {last['global_step'] / 1e6:5.2f}M decisions  not the fool "
                  f"{last['not_fool']:.3f} [{last['not_fool_ci'][0]:.3f}, {last['not_fool_ci'][1]:.3f}]", flush=True)
    except KeyboardInterrupt:
        sys.exit(130)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
