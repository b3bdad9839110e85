"""Would the differential test notice a wrong native rule?  Hand-made mutants of the native engine, each built and
held to the Python reference by ``benchmarks/differential.py``: every one must be caught.

    python benchmarks/native_mutants.py                 # every mutant, 20,000 decisions each at most
    python benchmarks/native_mutants.py --decisions 5000 --only cap

Each mutant changes one rule of native/durak.hpp (an off-by-one in the cap, trumps that do not beat, the wrong
seat drawing first...), is compiled into a copy of the files git tracks under build/native-mutants/, and the
differential comparison runs there.  The mutants of the Python reference are benchmarks/mutation.py's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "native-mutants"

MUTANTS = {
    # name: (the rule, the text in native/durak.hpp, what it becomes)
    "cap": ("the attack cap (000: at most six attacking cards)", "if (na >= cap) return false;",
            "if (na > cap) return false;"),
    "trumps": ("a trump beats any plain card (000)", "beaters[t][c] = suit == t ? higher : higher | suit_mask[t];",
               "beaters[t][c] = higher;"),
    "limit": ("the defender's limit (004: fewer unbeaten cards than the defender holds)",
              "return open_count < popcount(hands[defender]);", "return open_count <= popcount(hands[defender]);"),
    "transfer": ("the next seat must hold enough cards to cover every attack (002)",
                 "if (popcount(hands[next(defender)]) < na + 1) return NO_TRANSFER_HAND;",
                 "if (popcount(hands[next(defender)]) < na) return NO_TRANSFER_HAND;"),
    "draw-order": ("the defender draws last (000, 001)", "        order[count++] = defender;\n        for (int k",
                   "        order[count++] = defender;\n        std::swap(order[0], order[count - 1]);\n        for (int k"),
    "took-leads": ("a defender who took forfeits the next attack (000)",
                   "open_bout(took || (out_mask >> d & 1) ? next(d) : d);", "open_bout(out_mask >> d & 1 ? next(d) : d);"),
    # (``lowest(trumps) <= best`` would be equivalent: no two seats hold the same lowest trump)
    "lead": ("the lowest trump leads (000)",
             "if (trumps && lowest(trumps) < best) best = lowest(trumps), best_seat = seat;",
             "if (trumps && 63 - __builtin_clzll(trumps) < best) best = 63 - __builtin_clzll(trumps), best_seat = seat;"),
    "neighbours": ("the defender's other neighbour throws in (002)", "int other = next(d);", "int other = next(a);"),
    "fool": ("a lone last seat is the fool; a tie is a draw (003)", "bool has_fool = last_size == 1 &&",
             "bool has_fool = last_size <= 2 &&"),
    "shuffle": ("the same cards for the same seed (Python's shuffle)", "while (j >= below) j = rng.getrandbits(bits);",
                "while (j > below) j = rng.getrandbits(bits);"),
    "observation": ("the stock's size in the observation", "*out++ = static_cast<float>(g.stock_len / deck);",
                    "*out++ = static_cast<float>((g.stock_len + 1) / deck);"),
    "refusal": ("a card not held is refused as not held", "if (!(hands[seat] >> card & 1)) return NOT_HELD;",
                "if (!(hands[seat] >> card & 1)) return WRONG_RANK;"),
}


def copy_tree() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (ROOT / name).is_file():
            (WORK / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, WORK / name)


def nanobind_object() -> Path:
    """nanobind's library, compiled once for every mutant."""
    import nanobind

    nb = Path(nanobind.__file__).parent
    obj = ROOT / "build" / "nanobind.o"
    if not obj.exists():
        obj.parent.mkdir(exist_ok=True)
        subprocess.run(["g++", *flags(nb), "-c", str(nb / "src" / "nb_combined.cpp"), "-o", str(obj)], check=True)
    return obj


def flags(nb: Path) -> list[str]:
    return ["-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-fno-strict-aliasing", "-DNDEBUG",
            "-DNB_COMPACT_ASSERTIONS", f"-I{sysconfig.get_paths()['include']}", f"-I{nb / 'include'}",
            f"-I{nb / 'ext' / 'robin_map' / 'include'}", f"-I{numpy.get_include()}"]


def build(source: str, nb_obj: Path) -> None:
    import nanobind

    nb = Path(nanobind.__file__).parent
    (WORK / "native" / "durak.hpp").write_text(source)
    target = WORK / "durak_env" / f"_native{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(["g++", *flags(nb), "-shared", str(WORK / "native" / "module.cpp"), str(nb_obj), "-o",
                    str(target)], check=True)


def caught(decisions: int) -> tuple[bool, str]:
    """Whether the differential comparison, run in the mutated copy, finds a disagreement; its first line."""
    env = {**os.environ, "PYTHONPATH": str(WORK)}
    env.pop("DURAK_PURE_PYTHON", None)
    run = subprocess.run([sys.executable, "-P", str(WORK / "benchmarks" / "differential.py"), "--decisions",
                          str(decisions), "--log", os.devnull], capture_output=True, text=True, env=env, cwd=WORK)
    said = (run.stderr.strip() or run.stdout.strip()).splitlines()
    return run.returncode != 0, said[0][:160] if said else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=20_000, help="decisions compared per mutant at most")
    parser.add_argument("--only", action="append", choices=list(MUTANTS))
    args = parser.parse_args(argv)
    copy_tree()
    original = (ROOT / "native" / "durak.hpp").read_text()
    nb_obj = nanobind_object()
    build(original, nb_obj)
    clean, said = caught(args.decisions)
    if clean:
        sys.exit(f"native_mutants: the unmutated engine already disagrees: {said}")
    missed = []
    started = time.time()
    for name in args.only or list(MUTANTS):
        rule, old, new = MUTANTS[name]
        if original.count(old) != 1:
            sys.exit(f"native_mutants: {name}: its text is not in native/durak.hpp exactly once: {old!r}")
        build(original.replace(old, new), nb_obj)
        found, said = caught(args.decisions)
        print(f"{'caught' if found else 'MISSED'}  {name:12} {rule}: {said}", flush=True)
        if not found:
            missed.append(name)
    total = len(args.only or MUTANTS)
    print(f"native_mutants: {total - len(missed)} of {total} caught ({time.time() - started:,.0f} s)")
    return 1 if missed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
