"""Speed figures, measured side by side in one run (medians of several repetitions, one core unless said).

    python benchmarks/bench.py            # add --quick for a short run

Prints: engine random games/s and actions/s (2-player podkidnoy, 4-player, perevodnoy);
AEC environment steps/s with observation and mask, next to PettingZoo's own
connect_four_v3 in the same run; snapshot and clone operations/s; bot time per move.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import durak_env  # noqa: E402
from baselines import make_bot  # noqa: E402
from durak_env import Game, Rules  # noqa: E402


def median_rate(fn, reps: int) -> float:
    """fn() returns (units, seconds); the median units/s over ``reps`` runs."""
    rates = []
    for _ in range(reps):
        units, secs = fn()
        rates.append(units / secs)
    return statistics.median(rates)


def engine_games(rules: Rules, games: int):
    def run():
        rng = random.Random(0)
        actions = 0
        t = time.perf_counter()
        for seed in range(games):
            g = Game(rules, seed)
            while g.result is None:
                g.step(rng.choice(g.legal_actions()))
                actions += 1
        return games, time.perf_counter() - t, actions

    return run


def aec_loop(make_env, steps: int):
    def run():
        env = make_env()
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        done = 0
        t = time.perf_counter()
        while done < steps:
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                done += 1
                if done >= steps:
                    break
            else:
                env.reset()
        return done, time.perf_counter() - t

    return run


def main() -> None:
    p = argparse.ArgumentParser(description="durak_env speed benchmarks")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    scale = 0.2 if args.quick else 1.0
    reps = 3 if args.quick else args.reps
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}")

    print("\nengine, random play, no observations")
    for name, rules in (("podkidnoy 2p", Rules()), ("podkidnoy 4p", Rules(num_players=4)),
                        ("perevodnoy 2p", Rules.preset("perevodnoy"))):
        runs = [engine_games(rules, int(400 * scale))() for _ in range(reps)]
        games = statistics.median(r[0] / r[1] for r in runs)
        acts = statistics.median(r[2] / r[1] for r in runs)
        print(f"  {name:<16} {games:8.0f} games/s  {acts:9.0f} actions/s")

    print("\nAEC environment, random masked play through env.last()/env.step()")
    steps = int(20000 * scale)
    raw = median_rate(aec_loop(lambda: durak_env.raw_env(), steps), reps)
    wrapped = median_rate(aec_loop(lambda: durak_env.env(), steps), reps)
    print(f"  durak raw_env      {raw:9.0f} steps/s")
    print(f"  durak env()        {wrapped:9.0f} steps/s")
    try:
        from pettingzoo.classic import connect_four_v3

        c4 = median_rate(aec_loop(lambda: connect_four_v3.raw_env(), steps), reps)
        print(f"  connect_four_v3    {c4:9.0f} steps/s (raw)   durak raw / connect four = {raw / c4:.2f}")
    except Exception as err:  # pygame missing, say
        print(f"  connect_four_v3 not run: {type(err).__name__}: {err}")

    print("\nsnapshots and clones")
    game = Game(Rules(), 3)
    rng = random.Random(3)
    for _ in range(30):
        game.step(rng.choice(game.legal_actions()))
    snap = game.to_dict()
    n = int(5000 * scale)

    def timed(fn):
        def run():
            t = time.perf_counter()
            for _ in range(n):
                fn()
            return n, time.perf_counter() - t
        return run

    print(f"  to_dict            {median_rate(timed(game.to_dict), reps):9.0f} ops/s")
    print(f"  from_dict          {median_rate(timed(lambda: Game.from_dict(snap)), reps):9.0f} ops/s")
    print(f"  clone              {median_rate(timed(game.clone), reps):9.0f} ops/s")

    print("\nbots, time per decision (2-player podkidnoy, positions from random play)")
    views = []
    for seed in range(40):
        g = Game(Rules(), seed)
        r = random.Random(seed)
        while g.result is None:
            legal = g.legal_actions()
            if len(legal) > 1:
                views.append(g.view(g.to_act))
            g.step(r.choice(legal))
    views = views[: int(2000 * scale)]
    specs = ["heuristic", "search:fast", "search:medium", "search:strong", "trained"]
    for spec in specs:
        bot = make_bot(spec, seed=1)
        sample = views if not spec.startswith("search") else views[:: max(1, len(views) // (60 if spec.endswith("fast") else 20))]
        t = time.perf_counter()
        for v in sample:
            bot.act(v)
        ms = 1000 * (time.perf_counter() - t) / len(sample)
        print(f"  {spec:<16} {ms:9.3f} ms/move  ({len(sample)} positions)")


if __name__ == "__main__":
    main()
