"""The strength table (docs/bots.md): every baseline against every other in 2-player 36-card podkidnoy.

    python benchmarks/strength.py --games-per-bot 2000

All bots play one round robin of duplicate deals (each pairing gets the same number
of decks, each deck played from both seats); prints fool rates with 95% confidence
intervals, ratings, and each bot's time per move, and writes the figures as JSON and
a Markdown table next to this file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines.evaluate import evaluate  # noqa: E402
from durak_env import Rules  # noqa: E402

BOTS = ["random", "easy", "heuristic", "search:fast", "search:medium", "search:strong"]


def pairwise_table(report) -> str:
    names = [s.name for s in report.stats]
    k = len(names)
    wins = [[[0, 0] for _ in range(k)] for _ in range(k)]  # [not fool, games] of row vs column
    for rec in report.records:
        a, b = rec.bots
        for seat, (me, other) in enumerate(((a, b), (b, a))):
            wins[me][other][0] += rec.fool_seat != seat
            wins[me][other][1] += 1
    lines = ["| not the fool (row vs column) | " + " | ".join(names) + " |", "|---" * (k + 1) + "|"]
    for i in range(k):
        cells = [f"{wins[i][j][0] / wins[i][j][1]:.3f}" if i != j and wins[i][j][1] else "—" for j in range(k)]
        lines.append(f"| {names[i]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games-per-bot", type=int, default=2000)
    p.add_argument("--bots", nargs="+", default=BOTS)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=str(Path(__file__).with_name("strength")))
    args = p.parse_args()
    k = len(args.bots)
    pairings = k * (k - 1) // 2
    total = math.ceil(args.games_per_bot * pairings / (k - 1))
    report = evaluate(args.bots, Rules(), games=total, seed=args.seed, workers=args.workers, progress=True)
    table = report.table()
    pairs = pairwise_table(report)
    print(table)
    print()
    print(pairs)
    Path(args.out + ".json").write_text(json.dumps(report.to_json(), indent=2))
    Path(args.out + ".md").write_text(
        f"Command: `python benchmarks/strength.py --games-per-bot {args.games_per_bot} --bots {' '.join(args.bots)}`"
        f"\n\n```\n{table}\n```\n\n{pairs}\n")


if __name__ == "__main__":
    main()
