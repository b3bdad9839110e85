"""The native engine against the build before it, side by side in one run: the speed figures of issue 43.

    python benchmarks/native.py                      # this checkout's wheel against 55dd533's (the last build
                                                     # whose engine was mypyc's alone), about 6 minutes
    python benchmarks/native.py --baseline REF --seconds 5

Both builds are wheels, built from their commits (``git worktree``) by ``pip wheel`` and installed with
``pip install --target`` under build/bench/<commit>, as a user's ``pip install .`` builds them: the baseline's
engine compiled by mypyc, this checkout's with the native engine as well.  Each figure is measured in a child
process that imports only its build (the site folders are read without their ``.pth`` hooks, so an editable
install cannot answer for it), the two builds taking turns, and printed as the median of ``--repeats``.

Figures: the vector core with observations and masks (2-player podkidnoy, 256 deals, a random legal move per deal
chosen as argmax of fixed noise times the mask) in one process, in two processes (``workers=2``) and, native, in
two threads (``threads=2``); the engine alone (random legal moves, one thread); ``search:mcts`` playouts a second
at 1,000 playouts a move over ten positions; ``raw_env()`` AEC steps a second (random legal moves).  The machine
should be otherwise idle; the ratios are what counts.
"""

from __future__ import annotations

import argparse
import json
import os
import site
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "55dd533"
"""The last commit before the native engine: the engine of mypyc alone."""

CHILD = r"""
import json, os, sys, time
build = os.environ["DURAK_BUILD"]
sys.path.insert(0, build)
for folder in os.environ["SITE_DIRS"].split(os.pathsep):
    sys.path.append(folder)  # no .pth hooks: nothing but the build answers for durak_env
import numpy as np
import durak_env
assert durak_env.__file__.startswith(build), durak_env.__file__
work, seconds = sys.argv[1], float(sys.argv[2])

def timed(step, count):
    start = time.perf_counter()
    done = 0
    while time.perf_counter() - start < seconds:
        step()
        done += count
    return done / (time.perf_counter() - start)

if work in ("vector1", "vector2", "threads2"):
    from durak_env.vector import SelfPlayVectorEnv
    kw = {"vector1": {}, "vector2": {"workers": 2}, "threads2": {"threads": 2}}[work]
    env = SelfPlayVectorEnv("podkidnoy", num_envs=256, **kw)
    env.reset(seed=0)
    noise = np.random.default_rng(0).random((64, *env.mask.shape), dtype=np.float32)
    k = [0]
    def step():
        env.step((noise[k[0] % 64] * env.mask).argmax(1))
        k[0] += 1
    step()
    rate = timed(step, 256)
    env.close()
elif work == "engine":
    from durak_env.engine.rules import Rules
    try:
        from durak_env import _native
    except ImportError:
        _native = None
    if _native is not None:
        from durak_env.native import rules_fields
        fields = rules_fields(Rules())
        rate = 0.0
        start = time.perf_counter()
        moves = 0
        while time.perf_counter() - start < seconds:
            moves += _native.random_moves(fields, 200, moves + 1)
        rate = moves / (time.perf_counter() - start)
    else:
        import random
        from durak_env.engine.game import Game
        rng = random.Random(0)
        state = {"moves": 0}
        def deal():
            g = Game(Rules(), rng.getrandbits(64))
            while g.result is None:
                legal = g.legal_actions()
                g.play_unchecked(legal[int(rng.random() * len(legal))])
                state["moves"] += 1
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            deal()
        rate = state["moves"] / (time.perf_counter() - start)
elif work == "mcts":
    import random
    from baselines.mcts import MCTSBot
    from durak_env.engine.game import Game
    from durak_env.engine.rules import Rules
    rng = random.Random(1)
    views = []
    while len(views) < 10:
        g = Game(Rules(), rng.getrandbits(64))
        for _ in range(rng.randrange(40)):
            if g.result is not None:
                break
            g.step(rng.choice(g.legal_actions()))
        if g.result is None and len(g.legal_actions()) > 1:
            views.append(g.view(g.to_act))
    bot = MCTSBot(seed=0, playouts=1000)
    made = [0]
    k = [0]
    def step():
        bot.act(views[k[0] % 10])
        made[0] += bot.last_playouts
        k[0] += 1
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
    rate = made[0] / (time.perf_counter() - start)
elif work == "aec":
    sys.path.insert(0, sys.argv[3])
    from bench import AecRunner
    runner = AecRunner(lambda: durak_env.raw_env(rules="podkidnoy"), lean=True)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        runner.burst(200)
    rate = runner.steps / runner.seconds
print(json.dumps(rate))
"""

WORKLOADS = {
    "vector1": "vector core, 1 process (decisions/s)",
    "vector2": "vector core, 2 processes (decisions/s)",
    "threads2": "vector core, 1 process, 2 threads (decisions/s)",
    "engine": "engine alone, random legal moves (moves/s)",
    "mcts": "search:mcts at 1,000 playouts a move (playouts/s)",
    "aec": "raw_env() AEC steps (steps/s)",
}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def build(ref: str | None) -> Path:
    """The wheel of ``ref`` (None: this checkout, as it is on disk) installed under build/bench/; kept by commit."""
    label = git("rev-parse", "--short", ref) if ref else "checkout"
    target = ROOT / "build" / "bench" / label
    if ref and (target / "durak_env").is_dir():
        return target
    source = ROOT
    if ref:
        source = ROOT / "build" / "bench" / f"{label}-src"
        if not source.is_dir():
            subprocess.run(["git", "worktree", "add", "--detach", "-f", str(source), ref], cwd=ROOT, check=True,
                           capture_output=True)
    wheels = ROOT / "build" / "bench" / f"{label}-wheel"
    subprocess.run(["rm", "-rf", str(wheels), str(target)], check=True)
    print(f"building the wheel of {label} ...", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w", str(wheels)],
                   check=True, cwd="/")
    wheel = next(wheels.glob("*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True)
    return target


def measure(folder: Path, work: str, seconds: float) -> float | None:
    env = {**os.environ, "DURAK_BUILD": str(folder), "SITE_DIRS": os.pathsep.join(site.getsitepackages()),
           "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-P", "-S", "-c", CHILD, work, str(seconds), str(ROOT / "benchmarks")],
                         capture_output=True, text=True, env=env, timeout=600)
    if run.returncode:
        if "threads" in run.stderr and work == "threads2":
            return None  # a build without the native vector core's threads
        raise SystemExit(f"native: {work} failed in {folder}:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit to compare with (default {BASELINE})")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds a measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="measurements a figure, alternating (default 3)")
    parser.add_argument("--work", action="append", choices=list(WORKLOADS), help="default: every figure")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    builds = {"baseline": build(args.baseline), "native": build(None)}
    print(f"load before: {os.getloadavg()[0]:.2f}; baseline {args.baseline}, native: this checkout "
          f"({git('rev-parse', '--short', 'HEAD')}{' + changes' if git('status', '--porcelain') else ''})")
    print(f"| figure | {args.baseline} (mypyc) | this build (native) | ratio |")
    print("|---|---:|---:|---:|")
    for work in args.work or list(WORKLOADS):
        rates: dict[str, list[float]] = {name: [] for name in builds}
        for _ in range(args.repeats):
            for name, folder in builds.items():
                rate = measure(folder, work, args.seconds)
                if rate is not None:
                    rates[name].append(rate)
        base = statistics.median(rates["baseline"]) if rates["baseline"] else None
        new = statistics.median(rates["native"])
        ratio = f"{new / base:.1f}x" if base else "-"
        print(f"| {WORKLOADS[work]} | {f'{base:,.0f}' if base else 'n/a'} | {new:,.0f} | {ratio} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
