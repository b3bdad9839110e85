"""Fuzz the native engine: native/fuzz.cpp built with clang's libFuzzer, AddressSanitizer and
UndefinedBehaviorSanitizer, run for a time, and what it tried and found reported.

    python benchmarks/fuzz_native.py --minutes 60          # appends a line to benchmarks/fuzz.log
    python benchmarks/fuzz_native.py --minutes 5 --jobs 2

Needs clang (Debian: apt-get install clang libclang-rt-14-dev).  The corpus is kept in build/fuzz-corpus between
runs, so a later run starts from what earlier ones reached; a crash leaves its input in build/fuzz-crashes and
this script exits 1 naming it (rerun it with ``build/fuzz-native FILE``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
FLAGS = ["-std=c++17", "-O1", "-g", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer"]


def compiler() -> str:
    for name in ("clang++", "clang++-16", "clang++-15", "clang++-14"):
        if shutil.which(name):
            return name
    sys.exit("fuzz_native: no clang++ here (apt-get install clang libclang-rt-14-dev)")


def build() -> Path:
    BUILD.mkdir(exist_ok=True)
    target = BUILD / "fuzz-native"
    subprocess.run([compiler(), *FLAGS, str(ROOT / "native" / "fuzz.cpp"), "-o", str(target)], check=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=1, help="fuzzing processes side by side")
    parser.add_argument("--log", default=str(ROOT / "benchmarks" / "fuzz.log"))
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.jobs < 1:
        parser.error("--minutes must be positive and --jobs at least 1")
    target = build()
    corpus, crashes = BUILD / "fuzz-corpus", BUILD / "fuzz-crashes"
    corpus.mkdir(exist_ok=True)
    crashes.mkdir(exist_ok=True)
    seconds = int(args.minutes * 60)
    cmd = [str(target), str(corpus), f"-max_total_time={seconds}", "-timeout=20", "-rss_limit_mb=4096",
           f"-artifact_prefix={crashes}/", "-print_final_stats=1"]
    if args.jobs > 1:
        cmd += [f"-jobs={args.jobs}", f"-workers={args.jobs}"]
    started = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=BUILD)
    output = run.stdout + run.stderr
    if args.jobs > 1:  # each job writes its own log
        output += "".join(p.read_text() for p in BUILD.glob("fuzz-*.log"))
    runs = sum(int(n) for n in re.findall(r"stat::number_of_executed_units:\s*(\d+)", output))
    found = sorted(crashes.iterdir())
    line = (f"{time.strftime('%Y-%m-%d %H:%M')} {args.jobs} x {args.minutes:g} min: {runs:,} inputs run, "
            f"corpus {len(list(corpus.iterdir()))} inputs, {len(found)} crashing inputs in build/fuzz-crashes "
            f"({time.time() - started:,.0f} s, exit {run.returncode})")
    print(line)
    with open(args.log, "a") as log:
        log.write(line + "\n")
    if run.returncode or found:
        print(output[-4000:], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
