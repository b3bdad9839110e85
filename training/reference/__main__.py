"""``python -m training.reference ALGORITHM --minutes M --run-dir DIR``: see ``training.reference``."""

from __future__ import annotations

import argparse
import sys

from . import ALGORITHMS


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.reference",
                                description="Train a standard algorithm on 2-player podkidnoy for a wall-clock "
                                            "budget, with a learning curve against HeuristicBot (docs/baselines.md).")
    p.add_argument("algorithm", choices=sorted(ALGORITHMS))
    p.add_argument("--minutes", type=float, default=30.0, help="training time, evaluations not counted (30)")
    p.add_argument("--run-dir", required=True, help="where the checkpoint, bot.onnx and curve.jsonl go")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-every", type=float, default=5.0, help="minutes of training between evaluations (5)")
    p.add_argument("--eval-games", type=int, default=1000, help="duplicate-deal games against heuristic (1000)")
    p.add_argument("--resume", action="store_true", help="continue the run in --run-dir from its checkpoint")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.eval_every <= 0 or args.eval_games < 2:
        p.error("--minutes and --eval-every must be positive and --eval-games at least 2")
    from .harness import run

    try:
        run(args.algorithm, args.minutes, args.run_dir, seed=args.seed, eval_every=args.eval_every,
            eval_games=args.eval_games, resume=args.resume)
    except ValueError as err:
        p.error(str(err))
    except KeyboardInterrupt:
        print("stopped; --resume continues from the last checkpoint", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
