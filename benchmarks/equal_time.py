"""The project's best player at each time budget against ``search:mcts`` given the same time per move, on
2-player podkidnoy with duplicate deals (issue 25, item 4), the network search against itself at two
budgets (item 2: it must get stronger with time), the native ``search:mcts`` against the Python reference's at
the same time a move (issue 43), and every larger table (issue 47, item 1): the shipped bot for each table
(after-beaten-transfer at 3 seats, tournament at 4, podkidnoy with 52 cards at 5, perevodnoy with 52 cards at 6),
the project's player at one seat and ``search:mcts`` at every other, seats rotated over
duplicate deals (at 30 ms ``search:net`` and ``search:model``, the network search with the other seats modelled by
the policy, each also paid the fool's stake at a deal's end (``:fool``), ``search:endgame:30ms`` and the policy
alone).  There the target is a fool rate of at most 0.5/n at 1 ms and 30 ms a move and 0.7/n at 1 s (n
seats; even play is 1/n).

    python benchmarks/equal_time.py                      # every match, a batch at a time, until each is done
    python benchmarks/equal_time.py --match 30ms --batches 2
    python benchmarks/equal_time.py --report             # the table from what is played
    python benchmarks/equal_time.py --match tournament-4-1ms --match tournament-4-30ms

Matches run in batches of ``--batch`` games on fresh deals; each batch is appended to ``equal_time.jsonl`` next
to this script as it ends, so a stopped run continues where it stopped (the long matches take hours: run this
in the background and run it again).  Every player here is the shipped policy of the match's table or a search
guided by it, so each batch names that policy's file by digest, and only the batches of the policy shipped now
count: a new shipped bot plays its matches afresh, on the same deals; so does a search on another engine (each batch
names ``SEARCH``).  Both bots of a match play in one process, so a
busy machine slows both alike; run it on an idle machine for the figures quoted.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

try:  # the installed package (a wheel) when there is one, else this checkout's source
    import durak_env  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines import shipped_bot  # noqa: E402
from baselines.evaluate import evaluate, wilson  # noqa: E402
from baselines.netsearch import trained_stake  # noqa: E402
from baselines.policy_file import bot_digest, load_bot  # noqa: E402
from durak_env import Rules  # noqa: E402
from durak_env.native import available as native_available  # noqa: E402

@dataclass(frozen=True)
class Match:
    """The project's ``player`` at one seat, ``opponent`` at every other, on ``table`` (preset, seats, deck size or
    None for the preset's): ``wanted`` games, and the share of them the player must not be the fool in."""

    player: str
    opponent: str
    wanted: int
    target: float
    table: tuple = ("podkidnoy", 2, None)

    @property
    def rules(self) -> Rules:
        preset, seats, deck = self.table
        return Rules.preset(preset, num_players=seats, **({"deck_size": deck} if deck else {}))

    @property
    def bots(self) -> list[str]:
        return [self.player] + [self.opponent] * (self.table[1] - 1)


MATCHES = {
    "1ms": Match("trained", "search:mcts:1ms", 2000, 0.70),
    "30ms": Match("search:net:30ms", "search:mcts:30ms", 400, 0.65),
    "1s": Match("search:net:1s", "search:mcts:1s", 200, 0.60),
    "1s-vs-3s": Match("search:net:1s", "search:mcts:3s", 100, 0.50),
    "net-1s-vs-30ms": Match("search:net:1s", "search:net:30ms", 200, 0.60),
    # issue 43: the native search against the Python reference's, at equal time
    "native-30ms": Match("search:mcts:30ms", "search:mcts:30ms:python", 200, 0.70),
    "native-1s": Match("search:mcts:1s", "search:mcts:1s:python", 200, 0.70),
    # issue 47, item 3: a search that keeps gaining with time (hours: run in the background, resumed by batches)
    "net-10s-vs-1s": Match("search:net:10s", "search:net:1s", 100, 0.60),
    "net-1s-vs-mcts-100000": Match("search:net:1s", "search:mcts:100000", 100, 0.70),
    # issue 47: the policy with 1 ms of search once the stock is empty (search:endgame), the 1 ms player since
    "endgame-1ms": Match("search:endgame", "search:mcts:1ms", 2000, 0.70),
}
TABLES = (("after-beaten-transfer", 3, None), ("tournament", 4, None), ("podkidnoy", 5, 52), ("perevodnoy", 6, 52))
"""Issue 47's tables past two seats, each played by the bot shipped for it (the 5- and 6-seat ones since
2026-12-06: the universal bot's batches there count no more)."""
for _table in TABLES:
    _n = _table[1]
    MATCHES[f"{_table[0]}-{_n}-1ms"] = Match("trained", "search:mcts:1ms", 2000, 1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-endgame-1ms"] = Match("search:endgame", "search:mcts:1ms", 2000, 1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-30ms"] = Match("search:net:30ms", "search:mcts:30ms", 300, 1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-model-30ms"] = Match("search:model:30ms", "search:mcts:30ms", 300, 1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-policy-30ms"] = Match("trained", "search:mcts:30ms", 300, 1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-fool-30ms"] = Match("search:net:30ms:fool", "search:mcts:30ms", 300, 1 - 0.5 / _n,
                                                   _table)
    MATCHES[f"{_table[0]}-{_n}-model-fool-30ms"] = Match("search:model:30ms:fool", "search:mcts:30ms", 300,
                                                         1 - 0.5 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-endgame-30ms"] = Match("search:endgame:30ms", "search:mcts:30ms", 300, 1 - 0.5 / _n,
                                                      _table)
    MATCHES[f"{_table[0]}-{_n}-1s"] = Match("search:net:1s", "search:mcts:1s", 60, 1 - 0.7 / _n, _table)
    MATCHES[f"{_table[0]}-{_n}-fool-1s"] = Match("search:net:1s:fool", "search:mcts:1s", 60, 1 - 0.7 / _n, _table)
OUT = Path(__file__).with_name("equal_time")
SEARCH = "native" if native_available() else "python"
"""Which engine a search named without ``:python`` runs on here: each batch names it, and only the batches of this
one count (a time budget buys the native search many times the playouts, so it is another opponent; the batches
before the native engine, which name none, were the compiled Python search's)."""


@functools.cache
def policy_of(match: Match) -> str:
    """The ``bot_digest`` of the shipped policy every player of the match is or is guided by."""
    return bot_digest(shipped_bot(match.rules))


@functools.cache
def replay_of(name: str) -> str | None:
    """The match ``name`` plays again, or None: a player paid the fool's stake (``:fool``) where the table's
    shipped bot was trained for it is the plain search (``trained_stake``), and a batch's deals follow from its
    index, so such a match is the plain one's search on the plain one's deals (the 4-seat 1 s match was once
    played twice that way)."""
    match = MATCHES[name]
    if not match.player.endswith(":fool") or trained_stake(load_bot(shipped_bot(match.rules), match.rules)) != "fool":
        return None
    plain = replace(match, player=match.player.removesuffix(":fool"))
    return next((other for other, m in MATCHES.items() if m == plain), None)


def batches(path: Path) -> list[dict]:
    """Every batch played, of any policy (``summary`` keeps those of the policy shipped now)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def summary(name: str, rows: list[dict]) -> dict:
    """The match so far: games, the first bot's share not the fool, and a 95% interval over the batches' games
    (each deal's two games, one per seat, are one sample in the evaluator; here a Wilson interval on the share,
    which stays honest at a share of 0 or 1 where a normal interval has no width).  Only the batches played with
    the policy shipped now, against the search of this engine (``SEARCH``), count."""
    match = MATCHES[name]
    a, b, wanted, target = match.player, match.opponent, match.wanted, match.target
    policy = policy_of(match)
    mine = [r for r in rows
            if r["match"] == name and r.get("policy") == policy and r.get("search", "python") == SEARCH]
    games = sum(r["games"] for r in mine)
    ok = sum(r["games"] - r["a_fools"] for r in mine)
    share = ok / games if games else float("nan")
    ms = [sum(r[k] * r["games"] for r in mine) / games if games else float("nan") for k in ("a_ms", "b_ms")]
    return {"match": name, "a": a, "b": b, "seats": match.table[1], "games": games, "wanted": wanted, "share": share,
            "ci": list(wilson(ok, games)) if games else [float("nan")] * 2, "target": target, "a_ms": ms[0], "b_ms": ms[1],
            "draws": sum(r["draws"] for r in mine)}


def report(rows: list[dict]) -> str:
    out = ["| match | player | opponent (every other seat) | games (wanted) | player not the fool | 95% CI | target | "
           "ms a move (player / opponent) |", "|---|---|---|---|---|---|---|---|"]
    for name in MATCHES:
        s = summary(name, rows)
        if not s["games"]:
            continue
        if s["games"] < s["wanted"]:
            met = "so far above" if s["ci"][0] >= s["target"] else "not yet"
        else:
            met = "met" if s["ci"][0] >= s["target"] else "missed"
        again = f" (the search of {plain})" if (plain := replay_of(name)) else ""
        out.append(f"| {name}{again} | {s['a']} | {s['b']} | {s['games']:,} ({s['wanted']:,}) | {s['share']:.3f} | "
                   f"[{s['ci'][0]:.3f}, {s['ci'][1]:.3f}] | ≥ {s['target']:.2f}: {met} | "
                   f"{s['a_ms']:.1f} / {s['b_ms']:.1f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--match", action="append", choices=list(MATCHES), help="default: every match")
    p.add_argument("--batch", type=int, default=20, help="games a batch (duplicate deals: an even number)")
    p.add_argument("--batches", type=int, default=None, help="batches to play now (default: until done)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--address", help="play on a Ray cluster ('auto': the one this machine is a node of); the same "
                                     "results as one machine's")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--report", action="store_true", help="print the table; play nothing")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    if args.batch < 2 or args.batch % 2:
        p.error("--batch must be an even number of at least 2")
    for name in args.match or []:
        if plain := replay_of(name):
            p.error(f"{name} would play {plain} again: the bot shipped for its table was trained for the fool's "
                    f"stake, which its search is paid without :fool; play --match {plain}")
    log = Path(args.out + ".jsonl")
    rows = batches(log)
    played_now = 0
    started = time.time()
    for name in ([] if args.report else args.match or [m for m in MATCHES if not replay_of(m)]):
        match = MATCHES[name]
        policy = policy_of(match)
        a = match.player
        while summary(name, rows)["games"] < match.wanted and (args.batches is None or played_now < args.batches):
            index = sum(1 for r in rows if r["match"] == name and r.get("policy") == policy
                        and r.get("search", "python") == SEARCH)
            try:
                rep = evaluate(match.bots, match.rules, games=args.batch, seed=args.seed + 1000 * index,
                               workers=None if args.address else args.workers, address=args.address)
            except KeyboardInterrupt:
                print(f"equal_time: stopped by the user in {name}; run again to continue", file=sys.stderr)
                return 130
            sa, others = rep.stats[0], rep.stats[1:]
            row = {"match": name, "batch": index, "games": rep.games, "a_fools": sa.fools,
                   "b_fools": sum(o.fools for o in others), "draws": sa.draws, "a_ms": sa.ms_per_move,
                   "b_ms": sum(o.ms_per_move for o in others) / len(others), "seconds": round(rep.seconds, 1),
                   "policy": policy, "search": SEARCH}
            with open(log, "a") as f:
                f.write(json.dumps(row) + "\n")
            rows.append(row)
            played_now += 1
            s = summary(name, rows)
            print(f"equal_time: {name} batch {index}: {a} not the fool in {s['share']:.3f} of {s['games']} games "
                  f"so far ({s['a_ms']:.1f} / {s['b_ms']:.1f} ms a move)", flush=True)
    text = report(rows) + ("\n\nEvery player is, or is guided by, the policy shipped for its table (each batch in the "
                           ".jsonl names its file's sha256); the batches of other policies do not count.")
    Path(args.out + ".md").write_text(text + "\n")
    print(text)
    print(f"equal_time: {played_now} batches played in {time.time() - started:.0f} s; wrote {args.out}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
