"""Distil an expert-iteration run's deals again with other settings, to see which target teaches the search best
(issue 47, item 2): the deals are played once (``python -m training.expert``), each distillation takes seconds.

    python benchmarks/distil_sweep.py runs/expert out.onnx --rounds 1 --temperature 0 --epochs 8 --learning-rate 1e-4
    durak eval out.onnx trained:podkidnoy-0.3 --games 4000

It prints the distillation's figures (the held-out policy loss, value loss and agreement with the search's move,
before and after) and writes the bot file.  The network starts from the run's start bot (widened to
``--hidden-sizes``), as round 1 of the run did.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

try:  # the installed package (a wheel) when there is one, else this checkout's source
    import training  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from training.expert import PART_KEYS, ExpertConfig, distil, read_parts, widths  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="an expert-iteration run folder (its config.json names the start bot)")
    p.add_argument("out", help="the bot file to write")
    p.add_argument("--rounds", default="1", help="the rounds whose deals it learns from, e.g. 1,2 (default 1)")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--hidden-sizes", type=widths, default=None)
    args = p.parse_args(argv)
    run = Path(args.run)
    try:
        recorded = json.loads((run / "config.json").read_text())
        rounds = [int(k) for k in args.rounds.split(",")]
        parts = [read_parts(run / f"round-{k}") for k in rounds]
    except (OSError, ValueError) as err:
        p.error(f"{run} is not an expert-iteration run with rounds {args.rounds} ({err})")
    torch.set_num_threads(1)
    cfg = ExpertConfig(recorded["start"], str(run), temperature=args.temperature, epochs=args.epochs,
                       learning_rate=args.learning_rate, hidden_sizes=args.hidden_sizes, seed=recorded["seed"])
    data = {key: np.concatenate([part[key] for part in parts]) for key in PART_KEYS}
    print(json.dumps(distil(cfg.start, data, cfg, Path(args.out))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
