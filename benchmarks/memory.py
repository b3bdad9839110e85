"""Memory over a long run: start a command, sample the resident memory of it and its child processes.

    python benchmarks/memory.py --csv mem-train.csv -- durak train --config configs/shipped.yaml --run-dir runs/mem
    python benchmarks/memory.py --csv mem-eval.csv -- durak eval heuristic random --games 200000

Every ``--every`` seconds (10) it adds up VmRSS of the command's process tree from /proc (Linux) and
writes a row: seconds, the main process, its children, the total (MiB).  At the end it prints the first
sample after start-up (the first minute), the last and the largest, and the growth of the total over
the second half of the run as a least-squares slope in MiB per hour: a leak shows as a steady slope,
a cache that fills as a rise that stops.  The exit status is the command's.
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0.0


def children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (via /proc/<pid>/task/*/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = list(Path(f"/proc/{p}/task").iterdir())
        except (FileNotFoundError, PermissionError):
            continue
        for task in tasks:
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except (FileNotFoundError, PermissionError):
                continue
            found += kids
            todo += kids
    return found


def slope_per_hour(rows: list[tuple[float, float]]) -> float:
    n = len(rows)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in rows) / n
    mv = sum(v for _, v in rows) / n
    var = sum((t - mt) ** 2 for t, _ in rows)
    return 3600 * sum((t - mt) * (v - mv) for t, v in rows) / var if var else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="sample the memory of a command and its children")
    p.add_argument("--every", type=float, default=10.0, help="seconds between samples (10)")
    p.add_argument("--csv", type=Path, help="write the samples here")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = p.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        p.error("give the command to measure after --")
    if args.every <= 0:
        p.error("--every must be positive")
    if not Path("/proc/self/status").exists():
        p.error("this script reads /proc: Linux only")
    proc = subprocess.Popen(cmd)
    rows: list[tuple[float, float, float, float]] = []
    start = time.monotonic()
    try:
        while proc.poll() is None:
            main_mib = rss_mib(proc.pid)
            kids = sum(rss_mib(k) for k in children(proc.pid))
            rows.append((time.monotonic() - start, main_mib, kids, main_mib + kids))
            try:
                proc.wait(timeout=args.every)
            except subprocess.TimeoutExpired:
                pass
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        proc.wait()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["seconds", "main_mib", "children_mib", "total_mib"])
            w.writerows([(f"{t:.1f}", f"{a:.1f}", f"{b:.1f}", f"{c:.1f}") for t, a, b, c in rows])
    if rows:
        settled = [r for r in rows if r[0] >= 60] or rows
        half = [(t, total) for t, _, _, total in rows if t >= rows[-1][0] / 2]
        peak = max(rows, key=lambda r: r[3])
        print(f"memory: {len(rows)} samples over {rows[-1][0] / 60:.1f} min; total (main + children) "
              f"{settled[0][3]:.0f} MiB at {settled[0][0]:.0f} s, {rows[-1][3]:.0f} MiB at the end, "
              f"largest {peak[3]:.0f} MiB at {peak[0]:.0f} s; second half {slope_per_hour(half):+.1f} MiB/h",
              file=sys.stderr)
    return proc.returncode if proc.returncode is not None else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
