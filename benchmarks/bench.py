"""Speed figures, measured side by side in one run (medians of several repetitions, one core unless said).

    python benchmarks/bench.py                              # full run, about 3 minutes
    python benchmarks/bench.py --quick                      # a short run
    python benchmarks/bench.py --markdown benchmarks/speed.md   # also write the table

Prints: engine random games/s and actions/s (2-player podkidnoy, 4-player, perevodnoy);
AEC environment steps/s with observation and mask, next to PettingZoo's own
connect_four_v3 in the same run (raw and with the classic wrappers, as ratios);
snapshot and clone operations/s; the training rollout's moves/s with both cores;
bot time per move (HeuristicBot, each SearchBot level, an exported policy as ONNX
and as TorchScript).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import durak_env  # noqa: E402
from baselines import make_bot  # noqa: E402
from baselines.policy_file import load_bot  # noqa: E402
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


def rollout_rate(seconds: float, workers: int) -> tuple[float, float]:
    """Training rollouts of configs/default.yaml (policy, pool and bot seats, batched inference) in
    ``workers`` processes: (moves/s, learner decisions/s), from the second collection on."""
    import torch

    from training.config import TrainConfig
    from training.policy import PolicyNet
    from training.rollout import Rollouts

    cfg = dataclasses.replace(TrainConfig.load(ROOT / "configs" / "default.yaml"), num_workers=workers)
    rules = cfg.make_rules()
    enc = durak_env.ObservationEncoder(rules)
    torch.manual_seed(0)
    state = PolicyNet(enc.size, enc.num_actions, cfg.hidden_sizes).state_dict()
    rollouts = Rollouts(cfg, rules, seed=0)
    try:
        rollouts.collect(state, [state], 0)  # warm up: processes started, games under way
        moves = decisions = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            batch = rollouts.collect(state, [state], 0)
            moves += batch.env_steps
            decisions += len(batch.action)
        elapsed = time.perf_counter() - t
    finally:
        rollouts.close()
    return moves / elapsed, decisions / elapsed


def exported_bots(tmp: Path) -> dict[str, Path]:
    """The default network (untrained weights: speed does not depend on them) exported both ways."""
    import torch

    from training.checkpoints import make_checkpoint, save_atomic
    from training.config import TrainConfig
    from training.export import export
    from training.policy import PolicyNet

    cfg = TrainConfig.load(ROOT / "configs" / "default.yaml")
    rules = cfg.make_rules()
    enc = durak_env.ObservationEncoder(rules)
    torch.manual_seed(0)
    net = PolicyNet(enc.size, enc.num_actions, cfg.hidden_sizes)
    ckpt = tmp / "bench.pt"
    save_atomic(make_checkpoint(cfg, rules, {"update": 0, "global_step": 0}, net.state_dict(), {}), ckpt)
    return {"policy (ONNX)": export(ckpt, "onnx", tmp / "bench.onnx"),
            "policy (TorchScript)": export(ckpt, "torchscript", tmp / "bench.ts")}


def main() -> None:
    p = argparse.ArgumentParser(description="durak_env speed benchmarks")
    p.add_argument("--quick", action="store_true", help="fewer games and repetitions")
    p.add_argument("--reps", type=int, default=5, help="repetitions per figure (median reported)")
    p.add_argument("--markdown", type=Path, help="also write the figures as a markdown table to this file")
    args = p.parse_args()
    if args.reps < 1:
        p.error("--reps must be at least 1")
    scale = 0.2 if args.quick else 1.0
    reps = 3 if args.quick else args.reps
    rows: list[tuple[str, str]] = []

    def report(what: str, figure: str) -> None:
        print(f"  {what:<44} {figure}")
        rows.append((what, figure))

    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}"
    print(f"machine: {machine}")

    print("\nengine, random play, no observations (one core)")
    for name, rules in (("podkidnoy 2p", Rules()), ("podkidnoy 4p", Rules(num_players=4)),
                        ("perevodnoy 2p", Rules.preset("perevodnoy"))):
        runs = [engine_games(rules, int(400 * scale))() for _ in range(reps)]
        games = statistics.median(r[0] / r[1] for r in runs)
        acts = statistics.median(r[2] / r[1] for r in runs)
        report(f"engine {name}", f"{games:,.0f} games/s, {acts:,.0f} actions/s")

    print("\nAEC environment, random masked play through env.last()/env.step() (one core)")
    steps = int(20000 * scale)
    rates = {"durak raw_env()": median_rate(aec_loop(durak_env.raw_env, steps), reps),
             "durak env()": median_rate(aec_loop(durak_env.env, steps), reps)}
    try:
        from pettingzoo.classic import connect_four_v3

        rates["connect_four_v3 raw_env()"] = median_rate(aec_loop(connect_four_v3.raw_env, steps), reps)
        rates["connect_four_v3 env()"] = median_rate(aec_loop(connect_four_v3.env, steps), reps)
    except ImportError as err:  # PettingZoo's classic games need pygame: pip install -e ".[bench]"
        print(f"  connect_four_v3 not run: {err}")
    for name, rate in rates.items():
        report(name, f"{rate:,.0f} steps/s")
    if "connect_four_v3 env()" in rates:
        report("ratio durak raw / connect four raw", f"{rates['durak raw_env()'] / rates['connect_four_v3 raw_env()']:.2f}")
        report("ratio durak env() / connect four env()", f"{rates['durak env()'] / rates['connect_four_v3 env()']:.2f}")
        report("ratio durak raw / connect four env()", f"{rates['durak raw_env()'] / rates['connect_four_v3 env()']:.2f}")

    print("\nsnapshots and clones (one core)")
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

    for name, fn in (("to_dict", game.to_dict), ("from_dict", lambda: Game.from_dict(snap)), ("clone", game.clone)):
        report(name, f"{median_rate(timed(fn), reps):,.0f} ops/s")

    print("\ntraining rollout (configs/default.yaml opponents, batched policy inference)")
    for workers in (1, 2):
        moves, decisions = rollout_rate(5 * scale + 3, workers)
        report(f"rollout, {workers} process{'es' if workers > 1 else ''}",
               f"{moves:,.0f} moves/s ({decisions:,.0f} learner decisions/s)")

    print("\nbots, time per decision (2-player podkidnoy, positions from random play, one core)")
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
    with tempfile.TemporaryDirectory() as tmp:
        bots = {spec: make_bot(spec, seed=1) for spec in ("heuristic", "search:fast", "search:medium", "search:strong")}
        bots["shipped bot (ONNX)"] = make_bot("trained", seed=1)
        bots.update({name: load_bot(path) for name, path in exported_bots(Path(tmp)).items()})
        for name, bot in bots.items():
            every = 1 if not name.startswith("search") else max(1, len(views) // (60 if name.endswith("fast") else 20))
            sample = views[::every]
            for v in sample[:20]:
                bot.act(v)  # warm up
            times = []
            for _ in range(reps if every == 1 else 1):
                t = time.perf_counter()
                for v in sample:
                    bot.act(v)
                times.append((time.perf_counter() - t) / len(sample))
            report(f"{name} per move", f"{1e6 * statistics.median(times):,.1f} µs ({len(sample)} positions)")

    if args.markdown:
        lines = [f"Machine: {machine}.  Command: `python benchmarks/bench.py{' --quick' if args.quick else ''}` "
                 f"(medians of {reps} repetitions).", "", "| what | figure |", "|---|---|"]
        lines += [f"| {what} | {figure} |" for what, figure in rows]
        args.markdown.write_text("\n".join(lines) + "\n")
        print(f"\nwrote {args.markdown}")


if __name__ == "__main__":
    main()
