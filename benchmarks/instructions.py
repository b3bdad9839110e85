"""Instructions per decision of the vector environment's core or of the AEC environment, counted by valgrind's
callgrind: a figure that does not move with the machine's load (this host's speed swings by a third between
runs), for comparing two versions of the code.

    python benchmarks/instructions.py                  # the durak_env this Python imports
    python benchmarks/instructions.py --env aec        # raw_env(), one decision at a time
    PYTHONPATH=DIR python benchmarks/instructions.py   # e.g. a wheel installed with pip install --target DIR

It runs ``VectorGames`` (``--envs`` deals) or ``raw_env()`` (one deal after another) with random legal actions
chosen as bench.py chooses them under callgrind twice, for 0 and for ``--steps`` steps, and prints the
difference per decision, so that start-up and imports cancel out.  Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import site
import subprocess
import sys

SITE = """
import os
import site
for folder in os.environ["SITE_DIRS"].split(os.pathsep):
    site.addsitedir(folder)
"""

VECTOR = SITE + """
import sys
import numpy as np
from durak_env.environment import make_rules
from durak_env.vector import VectorGames  # where every version has it

games = VectorGames(make_rules(sys.argv[1]), int(sys.argv[2]))
games.reset(0)
rng = np.random.default_rng(0)
for _ in range(int(sys.argv[3])):
    games.step((rng.random(games.mask.shape, dtype=np.float32) * games.mask).argmax(1))
import durak_env.engine.game
print(durak_env.engine.game.__file__)
"""

AEC = SITE + """
import sys
import durak_env
sys.path.insert(0, sys.argv[4])
from bench import AecRunner  # the loop bench.py times

AecRunner(lambda: durak_env.raw_env(rules=sys.argv[1]), lean=True).burst(int(sys.argv[3]))
import durak_env.engine.game
print(durak_env.engine.game.__file__)
"""
WORKLOADS = {"vector": VECTOR, "aec": AEC}


def instructions(workload: str, rules: str, envs: int, steps: int, engine_file: str) -> int:
    """Instructions callgrind counts for the whole run of ``steps`` steps, which must run ``engine_file``."""
    # -P: the working directory does not go first on the child's path.  Run from a checkout, it did, and the
    # child counted the checkout's Python source while this process reported the wheel it imports.
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", os.path.realpath(sys.executable),
           "-P", "-c", WORKLOADS[workload], rules, str(envs), str(steps), os.path.dirname(os.path.abspath(__file__))]
    if shutil.which("setarch"):
        # Addresses fixed from run to run: sets of objects hash by address, and their order moves the count.
        cmd = ["setarch", platform.machine(), "--addr-no-randomize", *cmd]
    # valgrind runs the interpreter's real file, which does not know the virtual environment it was started
    # from: the child adds its packages' folders (SITE_DIRS, after PYTHONPATH, so that a build given there still
    # comes first; as site folders, so that an editable install's .pth hook runs), and the hash seed is fixed so
    # that two runs build their sets and dicts alike.  One BLAS thread: numpy's idle ones spin for as long as
    # the host's load makes them, and callgrind counts what they run.
    env = {**os.environ, "SITE_DIRS": os.pathsep.join(site.getsitepackages()), "PYTHONHASHSEED": "0",
           "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None or run.returncode:
        sys.exit(f"instructions: the counted run failed:\n{run.stderr[-2000:]}")
    if run.stdout.strip() != engine_file:
        sys.exit(f"instructions: the count is of {run.stdout.strip()}, not of {engine_file}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="instructions per environment decision, by callgrind")
    p.add_argument("--env", choices=sorted(WORKLOADS), default="vector",
                   help="the vector core (VectorGames, default) or the AEC environment (raw_env)")
    p.add_argument("--rules", default="podkidnoy", help="rules preset (default podkidnoy)")
    p.add_argument("--envs", type=int, default=256, help="deals stepped together (default 256)")
    p.add_argument("--steps", type=int, default=40, help="steps counted (default 40)")
    args = p.parse_args(argv)
    if args.envs < 1 or args.steps < 1:
        p.error("--envs and --steps must be at least 1")
    if shutil.which("valgrind") is None:
        p.error("valgrind is not installed (apt-get install valgrind)")
    import durak_env.engine.game as engine

    kind = "compiled" if engine.__file__.endswith(".so") else "Python source"
    base = instructions(args.env, args.rules, args.envs, 0, engine.__file__)
    total = instructions(args.env, args.rules, args.envs, args.steps, engine.__file__)
    decisions = args.envs * args.steps if args.env == "vector" else args.steps
    where = f"{args.envs} deals, {args.steps} steps" if args.env == "vector" else f"raw_env(), {args.steps} decisions"
    print(f"{(total - base) / decisions:,.0f} instructions per decision ({kind}: {engine.__file__}; {args.rules}, "
          f"{where})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
