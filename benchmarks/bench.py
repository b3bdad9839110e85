"""Speed figures, measured side by side in one run (medians of several repetitions, one core unless said).

    python benchmarks/bench.py                              # full run, about 5 minutes
    python benchmarks/bench.py --quick                      # a short run
    python benchmarks/bench.py --markdown benchmarks/speed.md   # also write the table
    python benchmarks/bench.py --compiled                   # the package as a wheel installs it

The figures are of the ``durak_env`` this Python imports, and the first line says which engine the environments
play on (native where it is built, else the Python reference) and where it was imported from.  ``--compiled``
builds this checkout's wheel into a temporary folder and runs the benchmark again with it first on the path.
``Game`` (the engine's own figures) is the Python reference either way.

Prints: engine random games/s and actions/s (2-player podkidnoy, 4-player, perevodnoy);
AEC environment steps/s with observation and mask next to PettingZoo's own connect_four_v3,
measured in interleaved bursts in one run (raw and with the classic wrappers, as ratios; with
a lean move picker and with rng.choice as PettingZoo's examples do); the vector environment
in one and two processes; snapshot and clone operations/s; the training rollouts in one and
two processes; the whole trainer idle and with one busy program started in another session;
bot time per move (HeuristicBot, each SearchBot level, search:policy, exported policies).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # last: an installed durak_env (a wheel on PYTHONPATH) comes first

import numpy as np  # noqa: E402

import durak_env  # noqa: E402
from baselines import make_bot  # noqa: E402
from baselines.policy_file import load_bot  # noqa: E402
from durak_env import Game, Rules  # noqa: E402


def engine_kind() -> str:
    """Which engine the environments of ``durak_env`` play on, and where it was imported from."""
    from durak_env.native import engine_name

    return f"{engine_name()} ({Path(durak_env.__file__).parent})"


def run_compiled(argv: list[str]) -> int:
    """Build the wheel of this checkout, install it (without dependencies: they are installed) into a
    temporary folder, and run this benchmark again with that folder first on the path."""
    with tempfile.TemporaryDirectory() as tmp:
        wheels, target = Path(tmp) / "wheels", Path(tmp) / "site"
        pip = [sys.executable, "-m", "pip", "-q"]
        subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(ROOT)], check=True)
        subprocess.run([*pip, "install", "--no-deps", "--target", str(target), *map(str, wheels.glob("*.whl"))],
                       check=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")]))}
        return subprocess.run([sys.executable, __file__, *argv], env=env).returncode


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


class AecRunner:
    """One AEC environment kept playing random masked moves across bursts, so that environments measured
    in turn share the machine's good and bad seconds alike (this machine's speed drifts by 2x over minutes)."""

    def __init__(self, make_env, lean: bool):
        self.env = make_env()
        self.env.reset(seed=0)
        self.rng = np.random.default_rng(0)
        self.lean = lean  # pick with rng.integers (lean) or with rng.choice (PettingZoo's own examples)
        self.seconds = 0.0
        self.steps = 0

    def burst(self, steps: int) -> None:
        env, rng = self.env, self.rng
        done = 0
        t = time.perf_counter()
        while done < steps:
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]) if self.lean else int(rng.choice(legal)))
                done += 1
                if done >= steps:
                    break
            else:
                env.reset()
        self.seconds += time.perf_counter() - t
        self.steps += done


def aec_rates(makers: dict, lean: bool, bursts: int, steps: int = 250) -> dict[str, float]:
    """Steps/s of each environment, measured in interleaved bursts."""
    runners = {name: AecRunner(make, lean) for name, make in makers.items()}
    for _ in range(bursts):
        for runner in runners.values():
            runner.burst(steps)
    return {name: r.steps / r.seconds for name, r in runners.items()}


def vector_rate(workers: int, seconds: float, num_envs: int = 512) -> float:
    """Decisions/s of SelfPlayVectorEnv with random masked moves chosen for all games at once."""
    from durak_env.vector import SelfPlayVectorEnv

    venv = SelfPlayVectorEnv("podkidnoy", num_envs=num_envs, workers=workers)
    try:
        venv.reset(seed=0)
        rng = np.random.default_rng(0)

        def pick(mask):
            return (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)

        for _ in range(10):
            venv.step(pick(venv.mask))
        steps = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            venv.step(pick(venv.mask))
            steps += 1
        return steps * num_envs / (time.perf_counter() - t)
    finally:
        venv.close()


def trainer_rate(updates: int) -> float:
    """End-to-end learner decisions/s of ``durak train`` on configs/default.yaml (no warm start, no
    evaluations): two runs of 2 and 2 + ``updates`` updates, so start-up cost cancels out; NaN where the longer run
    took no longer (start-up time varied by more than the updates took)."""
    from training.config import TrainConfig
    from training.train import train_ppo

    cfg = dataclasses.replace(TrainConfig.load(ROOT / "configs" / "default.yaml"), pretrain_games=0, eval_every=0,
                              checkpoint_every=10_000, time_budget=None)
    cfg = dataclasses.replace(cfg, total_steps=cfg.rollout_steps * 10_000)
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, n in enumerate((2, 2 + updates)):
            t = time.perf_counter()
            train_ppo(cfg, run_dir=Path(tmp) / f"r{i}", progress=False, export_onnx=False, stop_after=n)
            times.append(time.perf_counter() - t)
    spent = times[1] - times[0]
    return updates * cfg.rollout_steps / spent if spent > 0 else float("nan")


def busy_elsewhere():
    """A CPU-bound program in its own session, as if started from another terminal (nice cannot slow it)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)


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
    p.add_argument("--compiled", action="store_true",
                   help="build this checkout's wheel and benchmark that")
    args = p.parse_args()
    if args.reps < 1:
        p.error("--reps must be at least 1")
    if args.compiled:
        sys.exit(run_compiled([a for a in sys.argv[1:] if a != "--compiled"]))
    scale = 0.2 if args.quick else 1.0
    reps = 3 if args.quick else args.reps
    rows: list[tuple[str, str]] = []

    def report(what: str, figure: str) -> None:
        print(f"  {what:<44} {figure}")
        rows.append((what, figure))

    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}"
    print(f"machine: {machine}")
    report("engine", engine_kind())

    print("\nengine, random play, no observations (one core)")
    for name, rules in (("podkidnoy 2p", Rules()), ("podkidnoy 4p", Rules(num_players=4)),
                        ("perevodnoy 2p", Rules.preset("perevodnoy"))):
        runs = [engine_games(rules, int(400 * scale))() for _ in range(reps)]
        games = statistics.median(r[0] / r[1] for r in runs)
        acts = statistics.median(r[2] / r[1] for r in runs)
        report(f"engine {name}", f"{games:,.0f} games/s, {acts:,.0f} actions/s")

    print("\nAEC environment, random masked play through env.last()/env.step(), interleaved bursts (one core)")
    makers = {"durak raw_env()": durak_env.raw_env, "durak env()": durak_env.env}
    try:
        from pettingzoo.classic import connect_four_v3

        makers.update({"connect_four_v3 raw_env()": connect_four_v3.raw_env, "connect_four_v3 env()": connect_four_v3.env})
    except ImportError as err:  # PettingZoo's classic games need pygame: pip install -e ".[bench]"
        print(f"  connect_four_v3 not run: {err}")
    for lean, how in ((True, "rng.integers"), (False, "rng.choice")):
        rates = aec_rates(makers, lean, bursts=int(80 * scale))
        for name, rate in rates.items():
            report(f"{name}, {how}", f"{rate:,.0f} steps/s")
        if "connect_four_v3 env()" in rates:
            report(f"ratio durak / connect four, raw_env(), {how}",
                   f"{rates['durak raw_env()'] / rates['connect_four_v3 raw_env()']:.2f}")
            report(f"ratio durak / connect four, env(), {how}",
                   f"{rates['durak env()'] / rates['connect_four_v3 env()']:.2f}")

    print("\nvector environment, SelfPlayVectorEnv, 512 games, random masked moves")
    for workers in (1, 2):
        report(f"vector env, {workers} process{'es' if workers > 1 else ''}",
               f"{vector_rate(workers, 6 * scale + 2):,.0f} decisions/s")

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

    print("\ntrainer end to end (configs/default.yaml without warm start), idle and with a busy program")
    updates = 8 if args.quick else 30  # the difference of two runs: long enough that start-up noise is small
    idle = trainer_rate(updates)
    hog = busy_elsewhere()
    try:
        time.sleep(1)
        busy = trainer_rate(updates)
    finally:
        hog.kill()
        hog.wait()
    if math.isnan(idle) or math.isnan(busy):
        report("trainer", "not measured: start-up time varied by more than the updates took (run without --quick)")
    else:
        report("trainer, idle", f"{idle:,.0f} learner decisions/s")
        report("trainer, one busy program in another session",
               f"{busy:,.0f} learner decisions/s ({busy / idle:.0%} of idle)")

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
        bots = {spec: make_bot(spec, seed=1) for spec in ("heuristic", "search:fast", "search:medium", "search:strong",
                                                     "search:policy")}
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
        flags = (" --compiled" if rows[0][1].startswith("compiled") else "") + (" --quick" if args.quick else "")
        lines = [f"Machine: {machine}.  Command: `python benchmarks/bench.py{flags}` "
                 f"(medians of {reps} repetitions).", "", "| what | figure |", "|---|---|"]
        lines += [f"| {what} | {figure} |" for what, figure in rows]
        args.markdown.write_text("\n".join(lines) + "\n")
        print(f"\nwrote {args.markdown}")


if __name__ == "__main__":
    main()
