"""Strength of each shipped bot at the table it was made for, next to every baseline at the same table.

    python benchmarks/families.py                                   # every family, docs/shipped-bots.md's figures
    python benchmarks/families.py --family perevodnoy --games 2000 --slow-games 300
    python benchmarks/families.py --family tournament --games 30000 --slow-games 60 --trained-only  # a new bot

For each family (podkidnoy 2p, perevodnoy 2p, after-beaten-transfer 3p, tournament 4p, podkidnoy 5p and
perevodnoy 6p with 52 cards) every candidate sits at one seat with HeuristicBot at every other, on duplicate
deals in every rotation (each deck played with the candidate at each seat), and the fool rate is reported with
its 95% interval.  The target for the trained bot is a fool rate of at most 0.4 / seats.

Then the trained bot sits at one table with each search level (and random): the bot at one seat, that
opponent at every other.  The bot is better than a search level at that table when the upper end of its
fool-rate interval is below the fool rate of the opponent's seats.  This, not the rows against
HeuristicBot, is how the bot is compared with search: against HeuristicBots a search player's rollouts
play its opponents' moves exactly (a perfect model of them), which no player without that model has.
Opponents the trained bot never met in training and that did not teach it are marked, as its bot file
names its training opponents and its teacher.  A new shipped bot changes only its own rows: ``--trained-only``
plays those and keeps every baseline's row of the family's last full run (with the same settings).  Writes
families.json and families.md next to this script.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # last: a wheel on PYTHONPATH first

from baselines import SHIPPED_BOTS, make_bot, trained_for  # noqa: E402
from baselines.evaluate import evaluate  # noqa: E402
from durak_env import Rules  # noqa: E402
from durak_env.engine.loop import MOVE_LIMIT  # noqa: E402
from durak_env.engine.render import plural  # noqa: E402

FAMILIES = {name: rules for name, (_, rules) in SHIPPED_BOTS.items()
            if rules is not None and trained_for(rules) == name}
"""Each table a specialist ships for, by the name of the bot that plays it as ``trained`` (SHIPPED_BOTS' order)."""
FAST = ["trained", "heuristic", "easy", "random"]
SEARCH = ["search:fast", "search:medium", "search:strong"]
SLOW = SEARCH + ["search:policy"]
AT_THE_TABLE = ["random"] + SEARCH
WORKERS = 2
"""Processes a run plays on unless ``--workers`` says otherwise (and the runs before it recorded theirs)."""


def seat_against(candidate: str, others: str, rules: Rules, games: int, seed: int, workers: int = WORKERS) -> dict:
    """``candidate`` at one seat, ``others`` at the rest, every rotation of every deck."""
    lineup = [candidate] + [others] * (rules.num_players - 1)
    report = evaluate(lineup, rules, games=games, seed=seed, workers=workers)
    me, rest = report.stats[0], report.stats[1:]
    return {"candidate": candidate, "against": others, "games": report.games, "fool_rate": me.fool_rate,
            "fool_ci": list(me.fool_ci), "score": me.score, "ms_per_move": me.ms_per_move,
            "others_fool_rate": sum(s.fools for s in rest) / max(1, sum(s.games for s in rest)),
            "cut_off": sum(r.cut_off for r in report.records),
            "seconds": round(report.seconds, 1)}


def family_rows(name: str, games: int, slow_games: int, seed: int, at_the_table: list[str],
                candidates: list[str] = FAST + SLOW, workers: int = WORKERS) -> dict:
    rules = FAMILIES[name]
    rows = []
    for candidate in candidates:
        n = games if candidate in FAST else slow_games
        rows.append(seat_against(candidate, "heuristic", rules, n, seed, workers))
        print(f"  {name}: {candidate:14s} fool rate {rows[-1]['fool_rate']:.3f} "
              f"[{rows[-1]['fool_ci'][0]:.3f}, {rows[-1]['fool_ci'][1]:.3f}] ({rows[-1]['seconds']:.0f} s)", flush=True)
    meta = make_bot("trained", rules=rules).metadata
    together = []
    for other in at_the_table:
        n = games if other in FAST else slow_games
        row = seat_against("trained", other, rules, n, seed + 1, workers)
        row["teacher"] = other == meta.get("teacher")
        row["never_met"] = never_met(meta, other)
        row["better"] = row["fool_ci"][1] < row["others_fool_rate"]
        together.append(row)
        print(f"  {name}: trained vs {other:14s} fool rate {row['fool_rate']:.3f} [{row['fool_ci'][0]:.3f}, "
              f"{row['fool_ci'][1]:.3f}], each of the others {row['others_fool_rate']:.3f} ({row['seconds']:.0f} s)",
              flush=True)
    trained = rows[0]
    return {"family": name, "rules": rules.to_dict(), "seats": rules.num_players, "target": 0.4 / rules.num_players,
            "rows": rows, "at_the_table": together, "workers": workers,
            "meets_target": trained["fool_ci"][1] <= 0.4 / rules.num_players,
            "beats_every_search_level": beats_every_search_level(together)}


def never_met(meta: dict, opponent: str) -> bool:
    """Whether a bot file's training neither seated ``opponent`` nor learnt from it as its teacher."""
    return opponent != meta.get("teacher") and opponent not in meta.get("opponents", {})


def beats_every_search_level(at_the_table: list[dict]) -> bool:
    """Better than each search level at one table with it; a level that was not played is not beaten."""
    better = {r["against"]: r["better"] for r in at_the_table}
    return all(better.get(level, False) for level in SEARCH)


def with_old_baselines(new: dict, old: dict) -> dict:
    """A family played ``--trained-only``: the baselines' rows (which a new shipped bot does not change) kept from
    the last full run, the trained bot's rows new, and the command and minutes of each."""
    played = {r["candidate"]: r for r in new["rows"]}
    return {**new, "rows": [played.get(r["candidate"], r) for r in old["rows"]], "command": old["command"],
            "minutes": old.get("minutes", "?"), "workers": old.get("workers", WORKERS),
            "trained_command": new["command"], "trained_minutes": new["minutes"],
            "trained_workers": new.get("workers", WORKERS)}


def command(name: str, args: argparse.Namespace) -> str:
    """The command that plays (played) family ``name``'s rows with these settings."""
    return (f"python benchmarks/families.py --family {name} --games {args.games} --slow-games {args.slow_games} "
            f"--seed {args.seed}" + ("" if args.at_the_table == AT_THE_TABLE
                                     else f" --at-the-table {' '.join(args.at_the_table)}"))


def markdown(results: list[dict]) -> str:
    out = []
    for fam in results:
        out += [f"### {fam['family']}, {fam['seats']} players (target: fool rate at most {fam['target']:.3f})", "",
                f"Command: `{fam['command']}` ({fam.get('minutes', '?')} minutes, "
                f"{plural(fam.get('workers', WORKERS), 'worker')})", "",
                *([f"The shipped bot's rows since (the others as above): `{fam['trained_command']}` "
                   f"({fam['trained_minutes']} minutes, {plural(fam.get('trained_workers', WORKERS), 'worker')})", ""]
                  if "trained_command" in fam else []),
                "| at one seat, HeuristicBot at the others | games | fool rate | 95% CI | mean score | ms/move |",
                "|---|---|---|---|---|---|"]
        for r in fam["rows"]:
            out.append(f"| {r['candidate']} | {r['games']:,} | {r['fool_rate']:.3f} | [{r['fool_ci'][0]:.3f}, "
                       f"{r['fool_ci'][1]:.3f}] | {r['score']:+.3f} | {r['ms_per_move']:.2f} |")
        out += ["", "| trained at one seat, at every other | games | trained's fool rate | 95% CI | "
                    "each other seat's | trained better | never met in training |", "|---|---|---|---|---|---|---|"]
        for r in fam["at_the_table"]:
            out.append(f"| {r['against']} | {r['games']:,} | {r['fool_rate']:.3f} | [{r['fool_ci'][0]:.3f}, "
                       f"{r['fool_ci'][1]:.3f}] | {r['others_fool_rate']:.3f} | {'yes' if r['better'] else 'no'} | "
                       f"{'yes' if r['never_met'] else 'no (its teacher)' if r['teacher'] else 'no'} |")
        cut = [f"{r['candidate']} against {r['against']}, {r['cut_off']} of {r['games']:,} games"
               for r in fam["rows"] + fam["at_the_table"] if r["cut_off"]]
        out += ["", f"Meets its target (upper end of the interval): {'yes' if fam['meets_target'] else 'no'}; "
                    f"better than every search level at the same table: "
                    f"{'yes' if fam['beats_every_search_level'] else 'no'}."]
        out += [f"Cut off at {MOVE_LIMIT:,} moves, counted as draws: {c}." for c in cut] + [""]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", action="append", choices=list(FAMILIES), help="default: every family")
    p.add_argument("--games", type=int, default=2000, help="games for the trained bot and the fast baselines")
    p.add_argument("--slow-games", type=int, default=300, help="games for each search level")
    p.add_argument("--seed", type=int, default=2027)
    p.add_argument("--at-the-table", nargs="+", default=AT_THE_TABLE, metavar="BOT",
                   help=f"opponents at every other seat for the rows at one table with the trained bot "
                        f"(default: {' '.join(AT_THE_TABLE)})")
    p.add_argument("--trained-only", action="store_true",
                   help="play only the trained bot's rows (a new shipped bot); keep the baselines' from families.json")
    p.add_argument("--workers", type=int, default=WORKERS, help="processes (the figures do not depend on it)")
    p.add_argument("--out", default=str(Path(__file__).with_name("families")))
    args = p.parse_args()
    families = args.family or list(FAMILIES)
    old = json.loads(Path(args.out + ".json").read_text()) if Path(args.out + ".json").exists() else {}
    if args.trained_only:  # the baselines' rows are kept only from a full run with the same settings
        for name in families:
            full = old.get("families", {}).get(name, {}).get("command")
            if full != command(name, args):
                p.error(f"--trained-only keeps the baselines' rows of the last full run of {name}, played as "
                        f"{full!r}: give the same --games, --slow-games, --seed and --at-the-table")
    started = time.time()
    results = []
    for name in families:
        print(f"{name}:", flush=True)
        began = time.time()
        try:
            results.append(family_rows(name, args.games, args.slow_games, args.seed, args.at_the_table,
                                       ["trained"] if args.trained_only else FAST + SLOW, args.workers))
        except KeyboardInterrupt:
            print(f"families: stopped by the user in {name} after {len(results)} of {len(families)} families and "
                  f"{time.time() - started:.0f} s; nothing written", file=sys.stderr)
            return 130
        results[-1]["command"] = command(name, args) + (" --trained-only" if args.trained_only else "")
        results[-1]["minutes"] = round((time.time() - began) / 60)
        if args.trained_only:
            results[-1] = with_old_baselines(results[-1], old["families"][name])
    merged = {**old.get("families", {}), **{r["family"]: r for r in results}}
    merged = {name: merged[name] for name in FAMILIES if name in merged}  # docs/shipped-bots.md's order
    Path(args.out + ".json").write_text(json.dumps({"families": merged}, indent=1))
    Path(args.out + ".md").write_text(markdown(list(merged.values())))
    print(f"families: ended after every row of {len(families)} families ({args.games:,} games a fast row, "
          f"{args.slow_games:,} a search row) in {time.time() - started:.0f} s; wrote {args.out}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
