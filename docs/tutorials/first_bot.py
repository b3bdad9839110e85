"""Your first bot in 15 minutes: train one by self-play, measure it against HeuristicBot, play it.

    python docs/tutorials/first_bot.py            # about 15 minutes on 2 cores (configs/default.yaml)
    python docs/tutorials/first_bot.py --tiny     # a minute: the tests run this
"""

import argparse
import time

from baselines.evaluate import evaluate
from training.config import TrainConfig
from training.train import train_ppo

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a few updates of a small network, to see it run")
    args = parser.parse_args()

    # 1. Train: the default recipe (a warm start that imitates search:fast, then self-play PPO), as
    #    `durak train --config configs/default.yaml` runs it.  The run folder keeps checkpoints, TensorBoard logs,
    #    every evaluation and, at the end, the exported bot.
    config = TrainConfig.load("configs/tiny.yaml" if args.tiny else "configs/default.yaml")
    run = train_ppo(config, run_dir=f"runs/first-bot-{time.strftime('%Y%m%d-%H%M%S')}", progress=not args.tiny)
    bot = run / "bot.onnx"
    print(f"trained: {bot}")

    # 2. Measure it: duplicate deals (each deck played once from each side) against HeuristicBot, with 95% intervals.
    report = evaluate([str(bot), "heuristic"], games=40 if args.tiny else 1000, seed=1)
    print(report.table())

    # 3. Play it, in the terminal or the browser.
    print(f"play it:  durak play --opponent {bot}")
    print(f"          durak serve --bot mine={bot} --opponent mine")


if __name__ == "__main__":  # the evaluator's worker processes import this file: run only once
    main()
