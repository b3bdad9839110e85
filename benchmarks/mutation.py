"""Mutation testing of the engine: would the tests notice a wrong rule?

    python benchmarks/mutation.py                  # every mutant (hours on 2 cores): score and survivors
    python benchmarks/mutation.py --report         # the last run's figures again, without running
    python benchmarks/mutation.py --sample         # the fixed sample CI runs: exit 1 if any of it survives
    python benchmarks/mutation.py --pick-sample 40 # choose a new fixed sample from the last full run
    python benchmarks/mutation.py --random 400     # a random sample of all mutants: the score estimated,
                                                   # with its 95% interval (minutes instead of hours)

mutmut (configured in pyproject.toml, ``[tool.mutmut]``) changes one thing at a time in
``durak_env/engine/`` (cards, rules, actions, game, snapshot, view, determinize, match) and
``durak_env/observation.py``: an operator, a comparison, a constant, a string, an argument, a
returned value.  Each mutant is run against the engine's tests (``pytest_add_cli_args_test_selection``:
scenarios, rules, actions, snapshots, replays, illegal moves, invariants, information, records),
and only against the tests that call the mutated function, as mutmut's own bookkeeping records.
mutmut rather than cosmic-ray: it runs only the tests that reach the mutated function, in a forked
process per mutant, which makes a full run of about 2,500 mutants fit in hours on two cores.
The text of raise statements (a refusal's wording, not a rule) is not mutated.  The tests run on the Python
engine alone (``DURAK_PURE_PYTHON=1``): the mutants are of the reference, and the native engine is held to it by
the differential test.

A mutant that survives either gets a test that kills it (``tests/test_engine_mutants.py``,
quoting the rule it protects) or is listed as equivalent in ``benchmarks/equivalent_mutants.txt``:
one line each, the mutant's name and why no test can tell it from the original.  The score is
killed / (all - equivalent).  The figures of the last full run are in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baselines.evaluate import wilson  # noqa: E402
EQUIVALENT = ROOT / "benchmarks" / "equivalent_mutants.txt"
SAMPLE = ROOT / "benchmarks" / "mutation_sample.txt"
KILLED = {"killed", "timeout", "caught by type check", "segfault"}


def status_of(exit_code) -> str:
    from mutmut.stats import status_by_exit_code

    return status_by_exit_code[exit_code]


def results() -> dict[str, str]:
    """Every mutant of the last run and its status ("killed", "survived", "no tests", "not checked", ...)."""
    found = {}
    for meta in sorted((ROOT / "mutants").rglob("*.meta")):
        data = json.loads(meta.read_text())
        for name, code in data.get("exit_code_by_key", {}).items():
            found[name] = status_of(code)
    return found


def read_list(path: Path) -> dict[str, str]:
    """``name  note`` lines (``#`` starts a comment)."""
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
            if line:
                name, _, note = line.partition(" ")
                out[name] = note.strip()
    return out


def run_mutmut(names: list[str], children: int) -> None:
    cmd = ["mutmut", "run", "--max-children", str(children), *names]
    # The mutants are of the Python reference engine: every test plays on it (DURAK_PURE_PYTHON), environments
    # included, so that none passes on the native engine alone.  The native engine is held to the reference by
    # the differential test (tests/test_native.py).
    proc = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "DURAK_PURE_PYTHON": "1"})
    if proc.returncode not in (0, 1):
        sys.exit(f"mutation: mutmut failed with exit status {proc.returncode}")


def report(found: dict[str, str], only: list[str] | None = None, estimate: bool = False) -> int:
    """Print the score and the unexplained survivors; returns how many survivors are unexplained."""
    equivalent = read_list(EQUIVALENT)
    names = only if only is not None else sorted(found)
    missing = [n for n in names if n not in found]
    if missing:
        print(f"mutation: {len(missing)} mutants of the list no longer exist, e.g. {missing[0]}: "
              "pick a new sample (--pick-sample)", file=sys.stderr)
    gone = [n for n in equivalent if n not in found]
    if gone:  # an edit renumbers a function's mutants: each listed name must be checked again (mutmut show)
        print(f"mutation: {len(gone)} mutants listed as equivalent no longer exist, e.g. {gone[0]}: "
              f"remove them from {EQUIVALENT.name}, and check the names of the functions edited", file=sys.stderr)
    counts = Counter(found[n] for n in names if n in found)
    unchecked = counts.get("not checked", 0)
    survivors = [n for n in names if n in found and found[n] not in KILLED | {"not checked", "skipped"}]
    unexplained = [n for n in survivors if n not in equivalent]
    killed = sum(counts[s] for s in KILLED)
    judged = len([n for n in names if n in found and found[n] not in {"not checked", "skipped"}])
    eligible = judged - (len(survivors) - len(unexplained))
    by_file = Counter(n.rsplit(".", 1)[0].replace("durak_env.", "") for n in unexplained)
    print(f"mutants: {len(names)}; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"equivalent (listed in {EQUIVALENT.name}): {len(survivors) - len(unexplained)}")
    if eligible:
        print(f"score: {killed} of {eligible} non-equivalent mutants killed = {killed / eligible:.1%}")
        if estimate:
            low, high = wilson(killed, eligible)
            print(f"estimated score of all mutants: {killed / eligible:.1%}, 95% interval [{low:.1%}, {high:.1%}]")
    if unchecked:
        print(f"not checked yet: {unchecked}")
    if unexplained:
        print(f"survivors without a killing test or an equivalence note ({len(unexplained)}), by module: "
              + ", ".join(f"{k} {v}" for k, v in by_file.most_common()))
        for n in unexplained[:200]:
            print(f"  {n}  ({found[n]})")
    return len(unexplained) + len(missing)


def all_names() -> list[str]:
    """Every mutant's name, generating the mutants first if there are none yet (mutmut writes them all out,
    with their tests mapped, before it runs the one it is asked for)."""
    if not results():
        run_mutmut(["durak_env.engine.cards.x_parse_cards__mutmut_1"], 1)
    return sorted(results())


def durations() -> dict[str, float]:
    """Seconds each judged mutant's tests took in the last run (mutmut's bookkeeping)."""
    found = {}
    for meta in (ROOT / "mutants").rglob("*.meta"):
        found.update(json.loads(meta.read_text()).get("durations_by_key", {}))
    return found


def pick_sample(found: dict[str, str], size: int, quick: float = 5.0) -> list[str]:
    """A fixed, spread-out sample of killed mutants: the same names for the same code (ordered by a hash of
    the name), at least one from every mutated module, each killed within ``quick`` seconds last time (so
    that CI's share of the run stays short)."""
    took = durations()
    killed = sorted((n for n, s in found.items() if s in KILLED and took.get(n, 0.0) <= quick),
                    key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    modules = sorted({n.split(".x")[0] for n in killed})
    chosen = [next(n for n in killed if n.split(".x")[0] == m) for m in modules]
    for n in killed:
        if len(chosen) >= size:
            break
        if n not in chosen:
            chosen.append(n)
    return sorted(chosen)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="mutation testing of the engine (mutmut)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--report", action="store_true", help="the last run's figures, without running")
    mode.add_argument("--sample", action="store_true", help=f"run the fixed sample in {SAMPLE.name} only")
    mode.add_argument("--pick-sample", type=int, metavar="N", help="write a new sample of N killed mutants")
    mode.add_argument("--random", type=int, metavar="N", help="run N mutants drawn at random; estimate the score")
    p.add_argument("--seed", type=int, default=0, help="which random sample (--random)")
    p.add_argument("--children", type=int, default=len(os.sched_getaffinity(0)), help="processes (default: cores)")
    args = p.parse_args(argv)
    if args.children < 1:
        p.error("--children must be at least 1")
    if args.pick_sample is not None:
        if args.pick_sample < 1:
            p.error("--pick-sample must be at least 1")
        chosen = pick_sample(results(), args.pick_sample)
        SAMPLE.write_text("# Mutants that CI runs (benchmarks/mutation.py --sample); every one must be killed.\n"
                          + "".join(f"{n}\n" for n in chosen))
        print(f"wrote {len(chosen)} mutants to {SAMPLE}")
        return 0
    if args.random is not None:
        if args.random < 1:
            p.error("--random must be at least 1")
        population = all_names()
        names = sorted(random.Random(args.seed).sample(population, min(args.random, len(population))))
        found = results()  # a sample run again goes on where it stopped, and retries its survivors
        todo = [n for n in names if found.get(n) not in KILLED]
        if todo:
            run_mutmut(todo, args.children)
        return 1 if report(results(), names, estimate=True) else 0
    if args.sample:
        names = list(read_list(SAMPLE))
        if not names:
            p.error(f"no sample in {SAMPLE}: run the full set, then --pick-sample")
        run_mutmut(names, args.children)
        return 1 if report(results(), names) else 0
    if not args.report:
        run_mutmut([], args.children)
    return 1 if report(results()) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
