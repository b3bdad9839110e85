"""The ladder: one Elo-style rating (random = 1000) for every bot and budget on 2-player podkidnoy, from
head-to-head matches on duplicate deals, with each bot's time per move and the games behind each rating; and one
for each larger table (``--table``: each played by the bot shipped for it).

    python benchmarks/ladder.py                       # play the pairings not yet played, then rate
    python benchmarks/ladder.py --games 200 --only-rate
    python benchmarks/ladder.py --bots random heuristic search:mcts:100 search:mcts:1000
    python benchmarks/ladder.py --table tournament-4  # the 4-seat ladder (ladder-tournament-4.jsonl and .md)

At a larger table a pairing seats one bot at one seat and the other at every other seat, rotated over duplicate
deals, and keeps how often the first finished at each place; the ratings are the Plackett-Luce fit of those
placings (each game's finishing order, first out first), which at two seats is the Bradley-Terry fit below.

Each pairing is played once and appended to ``ladder.jsonl`` next to this script (its games, each side's fools
and the draws, each side's ms a move, and the digest of the shipped policy where a side plays it), so a run that
is stopped continues where it stopped and a later run adds bots without playing again what is there; a pairing
played with a policy shipped before is played again.  The pairings: every bot against random (the anchor) and
against its neighbours in the list, which runs roughly weakest to strongest; each ``search:mcts`` rung
against the rung below.  A pairing plays ``--games``, ``--slow-games`` with a bot of 50 ms a move or more, and
``--slowest-games`` with one of seconds a move (half that against random), which meets only random and the rung
below it: the 100,000-playout rung takes about 8 s a move.  Ratings are the Bradley-Terry maximum-likelihood
fit over every game played (a draw counts half to each side), on the Elo scale (400 points: 10 to 1 odds),
random fixed at 1000; the interval is two standard errors from the fit's information.  Times are for whatever
engine runs this script: run it with the wheel installed (``pip install .``, which compiles the engine) for the
figures the README and docs/bots.md quote.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

try:  # the installed package (a wheel) when there is one, else this checkout's source
    import durak_env  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines import shipped_bot  # noqa: E402
from baselines.evaluate import evaluate  # noqa: E402
from baselines.policy_file import bot_digest  # noqa: E402
from baselines.ratings import ANCHOR, fit  # noqa: E402
from durak_env import Rules  # noqa: E402

LADDER = ["random", "easy", "heuristic", "search:mcts:100", "search:fast", "search:medium", "search:strong",
          "search:mcts:1000", "trained:podkidnoy-0.2", "trained", "search:policy", "search:mcts:10000",
          "search:net:30ms", "search:net:1s", "search:mcts:100000"]
"""Roughly weakest to strongest: each bot meets random and its neighbours here (a bot of seconds a move, in
``SLOWEST``, meets only random and the mcts rung below it)."""
SLOW = {"search:strong", "search:policy", "search:mcts:10000", "search:mcts:100000", "search:mcts:1s",
        "search:mcts:3s", "search:net:1s"}
"""Bots of 50 ms a move or more: their pairings play ``--slow-games``."""
SLOWEST = {"search:mcts:100000", "search:mcts:3s"}
"""Bots of several seconds a move: they play ``--slowest-games``, and against random half as many (it takes
hours, and a search that beats random does so in nearly every game)."""
OUT = Path(__file__).with_name("ladder")
TABLES = {"after-beaten-transfer-3": ("after-beaten-transfer", 3, None), "tournament-4": ("tournament", 4, None),
          "podkidnoy-5": ("podkidnoy", 5, 52), "perevodnoy-6": ("perevodnoy", 6, 52)}
"""The larger tables' ladders: preset, seats, deck size (None: the preset's)."""
TABLE_LADDER = ["random", "easy", "heuristic", "search:mcts:100", "search:fast", "trained", "search:endgame",
                "search:mcts:1000", "search:net:30ms", "search:mcts:10000"]
"""The bots of a larger table's ladder, roughly weakest to strongest (``trained``: the table's shipped bot)."""


def table_rules(name: str | None) -> Rules:
    if name is None:
        return Rules.preset("podkidnoy")
    preset, seats, deck = TABLES[name]
    return Rules.preset(preset, num_players=seats, **({"deck_size": deck} if deck else {}))


def pairings(bots: list[str]) -> list[tuple[str, str]]:
    """Every bot against the anchor and its two nearest neighbours in the list (leaving out the ``SLOWEST``),
    each mcts rung against the rung below it; each pair once."""
    out: list[tuple[str, str]] = []

    def add(a: str, b: str) -> None:
        if a != b and (a, b) not in out and (b, a) not in out:
            out.append((a, b))

    if ANCHOR in bots:
        for bot in bots:
            add(bot, ANCHOR)
    ranked = [b for b in bots if b not in SLOWEST]
    for i, bot in enumerate(ranked):
        for j in (i - 1, i - 2):
            if j >= 0:
                add(bot, ranked[j])
    rungs = sorted((b for b in bots if b.startswith("search:mcts:") and b.split(":")[2].isdigit()),
                   key=lambda b: int(b.split(":")[2]))
    for low, high in zip(rungs, rungs[1:]):
        add(high, low)
    return out


def pairing_games(a: str, b: str, games: int, slow_games: int, slowest_games: int) -> int:
    """Games for the pairing of ``a`` and ``b``: an even number, duplicate deals."""
    if SLOWEST & {a, b}:
        n = slowest_games // 2 if ANCHOR in (a, b) else slowest_games
    else:
        n = slow_games if SLOW & {a, b} else games
    return n - n % 2


GUIDED = ("search:policy", "search:net", "search:model", "search:endgame")
"""The searches built on the table's shipped policy, each named alone or with a budget (``search:net:30ms``)."""


def uses_shipped_policy(*bots: str) -> bool:
    """Whether one of ``bots`` plays with the table's shipped policy: ``trained`` and the searches it guides
    (a kept version, ``trained:podkidnoy-0.2``, is a file of its own)."""
    return any(b == "trained" or any(b == g or b.startswith(g + ":") for g in GUIDED) for b in bots)


def played(path: Path, policy: str) -> list[dict]:
    """The pairings in the log that still hold: those with the shipped policy played with ``policy``."""
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("policy") == policy or not uses_shipped_policy(r["a"], r["b"])]


def play_pair(a: str, b: str, games: int, seed: int, policy: str, address: str | None = None,
              rules: Rules | None = None) -> dict:
    """``a`` at one seat and ``b`` at every other over ``games`` duplicate-deal games (two seats: head to head)."""
    rules = rules or Rules.preset("podkidnoy")
    n = rules.num_players
    report = evaluate([a] + [b] * (n - 1), rules, games=games, seed=seed, workers=None if address else 2,
                      address=address)
    sa, others = report.stats[0], report.stats[1:]
    mark = {"policy": policy} if uses_shipped_policy(a, b) else {}
    row = {**mark, "a": a, "b": b, "games": report.games, "a_fools": sa.fools, "b_fools": sum(o.fools for o in others),
           "draws": sa.draws, "a_ms": sa.ms_per_move, "b_ms": sum(o.ms_per_move for o in others) / len(others),
           "seed": seed, "seconds": round(report.seconds, 1)}
    if n > 2:
        counts = [0] * n
        for rec in report.records:
            counts[min(n, max(1, rec.placings[rec.bots.index(0)])) - 1] += 1
        row["a_places"] = counts
    return row


def table(rows: list[dict]) -> str:
    ratings = fit(rows)
    games = {n: 0 for n in ratings}
    ms: dict[str, list[tuple[float, int]]] = {n: [] for n in ratings}
    for r in rows:
        games[r["a"]] += r["games"]
        games[r["b"]] += r["games"]
        ms[r["a"]].append((r["a_ms"], r["games"]))
        ms[r["b"]].append((r["b_ms"], r["games"]))
    out = ["| bot | rating | 95% interval | ms per move | games |", "|---|---|---|---|---|"]
    for name, (rating, err) in sorted(ratings.items(), key=lambda kv: -kv[1][0]):
        mean_ms = sum(m * g for m, g in ms[name]) / max(1, sum(g for _, g in ms[name]))
        interval = "anchor" if name == ANCHOR else f"[{rating - 2 * err:.0f}, {rating + 2 * err:.0f}]"
        out.append(f"| {name} | {rating:.0f} | {interval} | {mean_ms:.2f} | {games[name]:,} |")
    out += ["", "| pairing | games | first not the fool | draws |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['a']} vs {r['b']} | {r['games']:,} | {1 - r['a_fools'] / r['games']:.3f} | {r['draws']} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bots", nargs="+", metavar="BOT", help="weakest to strongest (default: the table's ladder)")
    p.add_argument("--games", type=int, default=200, help="games a pairing (duplicate deals, both seats)")
    p.add_argument("--slow-games", type=int, default=40, help="games a pairing with a bot slower than 50 ms a move")
    p.add_argument("--slowest-games", type=int, default=20, help="games a pairing with a bot of seconds a move")
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--out", default=str(OUT), help="folder and stem of the .jsonl and .md files")
    p.add_argument("--only-rate", action="store_true", help="rate what is played; play nothing")
    p.add_argument("--table", choices=list(TABLES), help="a larger table's ladder (default: 2-player podkidnoy)")
    p.add_argument("--address", help="play on a Ray cluster ('auto': the one this machine is a node of); the same "
                                     "results as one machine's")
    args = p.parse_args(argv)
    if min(args.games, args.slow_games, args.slowest_games) < 4:
        p.error("--games, --slow-games and --slowest-games must be at least 4")
    rules = table_rules(args.table)
    args.bots = args.bots or (TABLE_LADDER if args.table else LADDER)
    out = args.out if args.table is None or args.out != str(OUT) else f"{OUT}-{args.table}"
    log = Path(out + ".jsonl")
    policy = bot_digest(shipped_bot(rules))  # kept with each pairing that plays it
    rows = played(log, policy)
    done = {(r["a"], r["b"]) for r in rows}
    todo = [] if args.only_rate else [pair for pair in pairings(args.bots) if pair not in done]
    started = time.time()
    for n, (a, b) in enumerate(todo, 1):
        games = pairing_games(a, b, args.games, args.slow_games, args.slowest_games)
        try:
            row = play_pair(a, b, games, args.seed + n, policy, args.address, rules)
        except KeyboardInterrupt:
            print(f"ladder: stopped by the user after {n - 1} of {len(todo)} pairings; rerun to continue",
                  file=sys.stderr)
            return 130
        with open(log, "a") as f:
            f.write(json.dumps(row) + "\n")
        rows.append(row)
        print(f"ladder: {a} vs {b}: {1 - row['a_fools'] / row['games']:.3f} not the fool over {row['games']} games "
              f"({row['a_ms']:.1f} / {row['b_ms']:.1f} ms a move, {row['seconds']:.0f} s)", flush=True)
    if not rows:
        print("ladder: nothing played yet", file=sys.stderr)
        return 1
    text = table(rows)
    Path(out + ".md").write_text(text + "\n")
    print(text)
    print(f"ladder: ended after {len(todo)} new pairings in {time.time() - started:.0f} s; wrote {out}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
