"""Strength of each shipped bot at the table it was made for, next to every baseline at the same table.

    python benchmarks/families.py                                   # every family, the README's figures
    python benchmarks/families.py --family perevodnoy --games 2000 --slow-games 300

For each family (podkidnoy 2p, perevodnoy 2p, seed001-transfer 3p, seed003 4p) every candidate sits at
one seat with HeuristicBot at every other, on duplicate deals in every rotation (each deck played with
the candidate at each seat), and the fool rate is reported with its 95% interval.  The target for the
trained bot is a fool rate of at most 0.4 / seats, and lower than every search level.  Opponents the
trained bot never met in training and that did not teach it (random; search:medium and search:strong,
its teacher being search:fast) get rows of their own: the trained bot at one seat and that opponent at
every other.  Writes families.json and families.md next to this script.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines import SHIPPED_BOTS  # noqa: E402
from baselines.evaluate import evaluate  # noqa: E402
from durak_env import Rules  # noqa: E402

FAMILIES = {
    "podkidnoy": Rules.preset("podkidnoy"),
    "perevodnoy": Rules.preset("perevodnoy"),
    "seed001-transfer": Rules.preset("seed001-transfer", num_players=3),
    "seed003": Rules.preset("seed003", num_players=4),
}
FAST = ["trained", "heuristic", "easy", "random"]
SLOW = ["search:fast", "search:medium", "search:strong", "search:policy"]
NEVER_MET = ["random", "search:medium", "search:strong"]


def seat_against(candidate: str, others: str, rules: Rules, games: int, seed: int) -> dict:
    """``candidate`` at one seat, ``others`` at the rest, every rotation of every deck."""
    lineup = [candidate] + [others] * (rules.num_players - 1)
    report = evaluate(lineup, rules, games=games, seed=seed, workers=2)
    me = report.stats[0]
    return {"candidate": candidate, "against": others, "games": report.games, "fool_rate": me.fool_rate,
            "fool_ci": list(me.fool_ci), "score": me.score, "ms_per_move": me.ms_per_move,
            "seconds": round(report.seconds, 1)}


def family_rows(name: str, games: int, slow_games: int, seed: int, never_met: list[str]) -> dict:
    rules = FAMILIES[name]
    rows = []
    for candidate in FAST + SLOW:
        n = games if candidate in FAST else slow_games
        rows.append(seat_against(candidate, "heuristic", rules, n, seed))
        print(f"  {name}: {candidate:14s} fool rate {rows[-1]['fool_rate']:.3f} "
              f"[{rows[-1]['fool_ci'][0]:.3f}, {rows[-1]['fool_ci'][1]:.3f}] ({rows[-1]['seconds']:.0f} s)", flush=True)
    unseen = []
    for other in never_met:
        n = games if other in FAST else slow_games
        unseen.append(seat_against("trained", other, rules, n, seed + 1))
        print(f"  {name}: trained vs {other:14s} fool rate {unseen[-1]['fool_rate']:.3f}", flush=True)
    trained = rows[0]
    search = [r for r in rows if r["candidate"].startswith("search:") and r["candidate"] != "search:policy"]
    return {"family": name, "rules": rules.to_dict(), "seats": rules.num_players, "target": 0.4 / rules.num_players,
            "rows": rows, "never_met": unseen,
            "meets_target": trained["fool_rate"] <= 0.4 / rules.num_players,
            "beats_every_search_level": all(trained["fool_rate"] < r["fool_rate"] for r in search)}


def markdown(results: list[dict]) -> str:
    out = []
    for fam in results:
        out += [f"### {fam['family']}, {fam['seats']} players (target: fool rate at most {fam['target']:.3f})", "",
                f"Command: `{fam['command']}` ({fam.get('minutes', '?')} minutes on 2 cores)", "",
                "| at one seat, HeuristicBot at the others | games | fool rate | 95% CI | mean score | ms/move |",
                "|---|---|---|---|---|---|"]
        for r in fam["rows"]:
            out.append(f"| {r['candidate']} | {r['games']:,} | {r['fool_rate']:.3f} | [{r['fool_ci'][0]:.3f}, "
                       f"{r['fool_ci'][1]:.3f}] | {r['score']:+.3f} | {r['ms_per_move']:.2f} |")
        out += ["", "| trained at one seat, at every other (never met in training) | games | fool rate | 95% CI |",
                "|---|---|---|---|"]
        for r in fam["never_met"]:
            out.append(f"| {r['against']} | {r['games']:,} | {r['fool_rate']:.3f} | [{r['fool_ci'][0]:.3f}, "
                       f"{r['fool_ci'][1]:.3f}] |")
        out += ["", f"Meets its target: {fam['meets_target']}; better than every search level: "
                    f"{fam['beats_every_search_level']}.", ""]
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", action="append", choices=list(FAMILIES), help="default: every family")
    p.add_argument("--games", type=int, default=2000, help="games for the trained bot and the fast baselines")
    p.add_argument("--slow-games", type=int, default=300, help="games for each search level")
    p.add_argument("--seed", type=int, default=2027)
    p.add_argument("--never-met", nargs="+", default=NEVER_MET, metavar="BOT",
                   help=f"opponents at every other seat for the head-to-head rows (default: {' '.join(NEVER_MET)}); "
                        "search:strong at every other seat of a 3- or 4-seat table is by far the slowest row")
    p.add_argument("--out", default=str(Path(__file__).with_name("families")))
    args = p.parse_args()
    families = args.family or [f for f in FAMILIES if any(r == FAMILIES[f] for _, r in SHIPPED_BOTS.values())]
    started = time.time()
    results = []
    for name in families:
        print(f"{name}:", flush=True)
        began = time.time()
        results.append(family_rows(name, args.games, args.slow_games, args.seed, args.never_met))
        results[-1]["command"] = (f"python benchmarks/families.py --family {name} --games {args.games} "
                                  f"--slow-games {args.slow_games} --seed {args.seed}"
                                  + ("" if args.never_met == NEVER_MET else f" --never-met {' '.join(args.never_met)}"))
        results[-1]["minutes"] = round((time.time() - began) / 60)
    old = json.loads(Path(args.out + ".json").read_text()) if Path(args.out + ".json").exists() else {}
    merged = {**old.get("families", {}), **{r["family"]: r for r in results}}
    merged = {name: merged[name] for name in FAMILIES if name in merged}  # the README's order
    Path(args.out + ".json").write_text(json.dumps({"families": merged}, indent=1))
    Path(args.out + ".md").write_text(markdown(list(merged.values())))
    print(f"done in {time.time() - started:.0f} s; wrote {args.out}.md")


if __name__ == "__main__":
    main()
