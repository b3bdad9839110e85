"""Instructions per decision of the vector environment's core or of the AEC environment, counted by valgrind's
callgrind: a figure that does not move with the machine's load (this host's speed swings by a third between
runs), for comparing two versions of the code.

    python benchmarks/instructions.py                  # the durak_env this Python imports
    python benchmarks/instructions.py --env aec        # raw_env(), one decision at a time
    python benchmarks/instructions.py --build DIR      # the durak_env in DIR (pip install --target DIR a wheel)

``--build`` puts DIR first on the counted process's path and reads the site folders without their ``.pth`` hooks:
an editable install's import hook would otherwise answer for any module the build in DIR lacks (the native
engine, in a build from before it).

It runs the vector core (``--envs`` deals: the native one where it is built, ``durak_env.native``) or
``raw_env()`` (one deal after another) with random legal actions under callgrind twice, for 0 and for ``--steps``
steps, and prints the difference per decision, so that start-up and imports cancel out.  The vector core's moves
are the argmax of fixed noise times the mask (the noise drawn before either count, so that drawing it is not
counted).  Needs valgrind.
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
import sys
build = os.environ.get("DURAK_BUILD")
if build:
    sys.path.insert(0, build)
for folder in os.environ["SITE_DIRS"].split(os.pathsep):
    if build:
        sys.path.append(folder)  # no .pth hooks: nothing but DIR answers for durak_env
    else:
        site.addsitedir(folder)
"""

VECTOR = SITE + """
import sys
import numpy as np
from durak_env.environment import make_rules
try:
    from durak_env.vector_games import make_vector_games as VectorGames  # the engine the environments play on
except ImportError:
    try:
        from durak_env.native import make_vector_games as VectorGames  # the first native builds
    except ImportError:
        from durak_env.vector import VectorGames  # a version before the native engine

games = VectorGames(make_rules(sys.argv[1]), int(sys.argv[2]))
games.reset(0)
noise = np.random.default_rng(0).random((64, *games.mask.shape), dtype=np.float32)  # made before either count
for step in range(int(sys.argv[3])):
    games.step((noise[step % 64] * games.mask).argmax(1))  # a random legal move per deal
import durak_env.engine.game
print(getattr(games, "core", None).__class__.__module__ == "durak_env._native"
      and sys.modules["durak_env._native"].__file__ or durak_env.engine.game.__file__)
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
LOOP = SITE + """
import sys
import numpy as np
from pettingzoo import AECEnv
sys.path.insert(0, sys.argv[4])
from bench import AecRunner  # the loop bench.py times, over an environment that does nothing


class Still(AECEnv):
    \"\"\"The same observation every time, always one agent's turn (PettingZoo's own ``agent_iter``): what remains
    is the caller's loop.\"\"\"

    def __init__(self):
        mask = np.zeros(110, np.int8)
        mask[[3, 7, 9]] = 1
        self.done = ({"observation": np.zeros(309, np.float32), "action_mask": mask}, 0.0, False, False, {})
        self.agents, self.agent_selection = ["player_0"], "player_0"

    def reset(self, seed=None):
        pass

    def last(self):
        return self.done

    def step(self, action):
        pass


AecRunner(Still, lean=True).burst(int(sys.argv[3]))
print("loop")
"""
WORKLOADS = {"vector": VECTOR, "aec": AEC, "loop": LOOP}


def instructions(workload: str, rules: str, envs: int, steps: int, engine_file: str, build: str | None = None) -> int:
    """Instructions callgrind counts for the whole run of ``steps`` steps, which must run ``engine_file`` (with
    ``build``: a file under that folder)."""
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
           "OPENBLAS_NUM_THREADS": "1", **({"DURAK_BUILD": os.path.abspath(build)} if build else {})}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None or run.returncode:
        sys.exit(f"instructions: the counted run failed:\n{run.stderr[-2000:]}")
    ran = run.stdout.strip()
    if build is not None:
        if not ran.startswith(os.path.abspath(build) + os.sep):
            sys.exit(f"instructions: the count is of {ran}, not of the build in {build}")
    elif ran != engine_file:
        sys.exit(f"instructions: the count is of {run.stdout.strip()}, not of {engine_file}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="instructions per environment decision, by callgrind")
    p.add_argument("--env", choices=sorted(WORKLOADS), default="vector",
                   help="the vector core (VectorGames, default), the AEC environment (raw_env), or the loop that "
                        "drives it alone over an environment that does nothing (what --env aec spends outside it)")
    p.add_argument("--rules", default="podkidnoy", help="rules preset (default podkidnoy)")
    p.add_argument("--envs", type=int, default=256, help="deals stepped together (default 256)")
    p.add_argument("--steps", type=int, default=40, help="steps counted (default 40)")
    p.add_argument("--build", help="count the durak_env installed in this folder (pip install --target)")
    args = p.parse_args(argv)
    if args.envs < 1 or args.steps < 1:
        p.error("--envs and --steps must be at least 1")
    if shutil.which("valgrind") is None:
        p.error("valgrind is not installed (apt-get install valgrind)")
    import durak_env.engine.game as engine

    engine_file = engine.__file__
    kind = "compiled" if engine.__file__.endswith(".so") else "Python source"
    if args.env == "vector":
        try:
            from durak_env import native
        except ImportError:  # a version before the native engine
            native = None
        if native is not None and native.available():
            engine_file, kind = native._native.__file__, "native"
    if args.build:
        engine_file, kind = args.build, f"the build in {args.build}"
    if args.env == "loop":
        engine_file, kind = "loop", "no environment"
    base = instructions(args.env, args.rules, args.envs, 0, engine_file, args.build)
    total = instructions(args.env, args.rules, args.envs, args.steps, engine_file, args.build)
    decisions = args.envs * args.steps if args.env == "vector" else args.steps
    where = (f"{args.envs} deals, {args.steps} steps" if args.env == "vector"
             else f"{'raw_env()' if args.env == 'aec' else 'the loop'}, {args.steps} decisions")
    print(f"{(total - base) / decisions:,.0f} instructions per decision ({kind}: {engine_file}; {args.rules}, "
          f"{where})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
