"""Tournaments between bots: duplicate deals, seat rotation, both cores, confidence intervals.

Duplicate deals: every shuffled deck is played once per rotation of the lineup
around the table, so every bot plays every hand from every seat and the luck of
the deal cancels out.  Confidence intervals treat each deck as one sample (the
games of one deck are not independent): the 95% interval is the mean over decks
plus or minus 1.96 standard errors.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import time
from array import array
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path

from durak_env.cores import usable_cores
from durak_env.engine.cards import CARDS, cards_of
from durak_env.engine.game import Game
from durak_env.engine.loop import MOVE_LIMIT, play
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import bot_seed, derive_seed
from durak_env.workers import ignore_interrupts

from . import make_bot
from .progress import Progress, interrupted

CHART_FORMATS = (".png", ".svg", ".pdf")


class WorkerDied(RuntimeError):
    """An evaluation worker process died (killed, out of memory): the tournament has no whole result."""


@dataclass(frozen=True)
class GameRecord:
    """One game: which bot sat where and how each seat placed."""

    lineup: int
    deal: int
    deal_seed: int
    rotation: int
    bots: tuple[int, ...]  # bot index per seat
    placings: tuple[int, ...]
    points: tuple[int, ...]
    rewards: tuple[float, ...]
    fool_seat: int | None
    capped: bool
    moves: int
    deck: str
    """The shuffled deck as dealt (hands then stock): equal for every game of a duplicate deal."""
    cut_off: bool = False
    """The deal reached ``MOVE_LIMIT`` without ending (bots that pass cards back and forth for ever, e.g. two
    players who always transfer and take): counted as a draw, every seat's reward 0, as the environments
    truncate it."""

    @property
    def draw(self) -> bool:
        """Nobody is the fool: everyone left went out together, or the bout cap left several tied on most cards."""
        return self.fool_seat is None


@dataclass
class BotStats:
    name: str
    games: int = 0
    fools: int = 0
    draws: int = 0
    fool_rate: float = 0.0
    fool_ci: tuple[float, float] = (0.0, 0.0)
    score: float = 0.0
    score_ci: tuple[float, float] = (0.0, 0.0)
    points: float = 0.0
    ms_per_move: float = 0.0
    decisions: int = 0
    rating: float | None = None


@dataclass
class Report:
    rules: dict
    bots: list[str]
    games: int
    deals: int
    seed: int
    duplicate: bool
    stats: list[BotStats]
    head_to_head: dict | None = None
    records: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    """What happened on the way (a dead worker whose decks were played again)."""

    def table(self) -> str:
        """The results as a text table."""
        lines = [
            f"{self.games} games ({self.deals} decks{', duplicate' if self.duplicate else ''}), "
            f"{self.rules['num_players']} players, {self.rules['deck_size']} cards, {self.seconds:.1f} s",
            f"{'bot':<18}{'games':>7}{'fool rate':>11}{'95% CI':>17}{'draws':>7}{'score':>8}{'95% CI':>17}"
            f"{'ms/move':>9}" + ("   rating" if any(s.rating is not None for s in self.stats) else ""),
        ]
        for s in self.stats:
            lines.append(
                f"{s.name:<18}{s.games:>7}{s.fool_rate:>11.3f}   [{s.fool_ci[0]:.3f}, {s.fool_ci[1]:.3f}]"
                f"{s.draws:>7}{s.score:>8.3f}  [{s.score_ci[0]:+.3f}, {s.score_ci[1]:+.3f}]{s.ms_per_move:>9.3f}"
                + (f"   {s.rating:7.2f}" if s.rating is not None else "")
            )
        lines += [f"note: {note}" for note in self.notes]
        if self.head_to_head:
            h = self.head_to_head
            lines.append(
                f"head to head: {h['a']} is not the fool in {h['a_not_fool']:.3f} of games "
                f"[{h['a_not_fool_ci'][0]:.3f}, {h['a_not_fool_ci'][1]:.3f}] against {h['b']} "
                f"({h['draws']} draws)"
            )
        return "\n".join(lines)

    def to_json(self) -> dict:
        out = asdict(self)
        out.pop("records")
        return out


_BOT_CACHE: dict[tuple, object] = {}


def _bot(spec, rules: Rules, seat: int):
    """The bot ``spec`` names for ``seat``: one object a seat, so that two seats of the same bot keep a random
    stream each (``bot_seed``), as at every other table."""
    if not isinstance(spec, str):
        return spec  # a bot object, played in this process
    key = (spec, rules, seat)
    bot = _BOT_CACHE.get(key)
    if bot is None:
        bot = _BOT_CACHE[key] = make_bot(spec, rules=rules)
    return bot


def play_deal(task: tuple) -> tuple[list[GameRecord], list[float], list[int]]:
    """Play one deck in every rotation asked for; returns the records and each bot's time and decisions."""
    specs, rules_dict, lineup_index, lineup, deal, deal_seed, rotations = task
    rules = Rules.from_dict(rules_dict)
    n = rules.num_players
    seconds = [0.0] * len(specs)
    decisions = [0] * len(specs)
    records = []
    for rot in rotations:
        seat_bots = tuple(lineup[(s + rot) % n] for s in range(n))
        bots = [_bot(specs[b], rules, s) for s, b in enumerate(seat_bots)]
        for s, bot in enumerate(bots):
            bot.reset(bot_seed(deal_seed, s))
        game = Game(rules, seed=deal_seed)
        deck = " ".join(str(CARDS[c]) for h in game.hands for c in cards_of(h)) + " | " + " ".join(
            str(CARDS[c]) for c in game.stock)

        def timed(g: Game) -> int:
            seat = g.to_act
            t0 = time.perf_counter()
            action = bots[seat].act(g.view(seat))
            seconds[seat_bots[seat]] += time.perf_counter() - t0
            decisions[seat_bots[seat]] += 1
            return action

        moves = play(game, timed, limit=MOVE_LIMIT)
        r = game.result
        if r is None:  # cut off at the move limit: a draw between everyone
            records.append(GameRecord(lineup_index, deal, deal_seed, rot, seat_bots, (1,) * n, (0,) * n,
                                      (0.0,) * n, None, False, moves, deck, cut_off=True))
            continue
        records.append(GameRecord(lineup_index, deal, deal_seed, rot, seat_bots, r.placings, r.points,
                                  r.rewards(), r.fool, r.capped, moves, deck))
    return records, seconds, decisions


def _mean_ci(samples: list[float]) -> tuple[float, tuple[float, float]]:
    k = len(samples)
    mean = sum(samples) / k
    if k < 2:
        return mean, (mean, mean)
    var = sum((x - mean) ** 2 for x in samples) / (k - 1)
    half = 1.96 * math.sqrt(var / k)
    return mean, (mean - half, mean + half)


def wilson(hits: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``hits`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _rate_ci(samples: list[float]) -> tuple[float, tuple[float, float]]:
    """A rate's mean over decks and its 95% interval, clipped to [0, 1].  Where every deck gave 0 (a bot
    never the fool in 60 games) or every deck 1, the spread is zero and the normal interval would shrink to
    a point; the Wilson score interval over the decks says how far 0 of k may be from the truth instead.
    (A mirror match's exact 0.5 on every deck keeps its point: one of the two seats is always the fool.)"""
    mean, (lo, hi) = _mean_ci(samples)
    if mean in (0.0, 1.0) and len(samples) > 1:
        return mean, wilson(mean * len(samples), len(samples))
    return mean, (max(0.0, lo), min(1.0, hi))


def _check_bots(bots: list, rules: Rules) -> None:
    """Refuse, in one line, fewer than two bots, a name no bot has, or a bot made for other rules."""
    if len(bots) < 2:
        raise ValueError("evaluate needs at least two bots")
    for spec in bots:
        bot = make_bot(spec, rules=rules) if isinstance(spec, str) else spec  # bad names or files: one line here
        if not callable(getattr(bot, "act", None)):
            raise ValueError(f"{spec!r} is neither a bot name nor an object with act(view) and reset(seed)")
        made_for = getattr(bot, "rules", None)
        if made_for is not None and made_for != rules:
            raise ValueError(f"{spec} was trained for other rules ({made_for.describe()}); this tournament is "
                             f"{rules.describe()}: pass --rules/--players/--set to match")


def _deal_tasks(bots: list, rules: Rules, games: int, seed: int, duplicate: bool) -> tuple[list[tuple], int]:
    """One task per deck (``play_deal``'s arguments), enough decks for about ``games`` games, and the games each
    deck gives: every lineup of the bots (every combination when there are more bots than seats), and with
    ``duplicate`` every rotation of a lineup that seats the bots differently (A B A B has only two)."""
    n = rules.num_players
    if len(bots) > n:
        lineups = [tuple(c) for c in itertools.combinations(range(len(bots)), n)]
    else:
        lineups = [tuple(i % len(bots) for i in range(n))]
    distinct: dict[tuple, int] = {}
    for r in range(n):
        distinct.setdefault(tuple(lineups[0][(s + r) % n] for s in range(n)), r)
    per_deal = len(distinct) if duplicate else 1
    deals = max(1, math.ceil(games / (per_deal * len(lineups))))
    tasks = []
    for li, lineup in enumerate(lineups):
        for d in range(deals):
            rotations = tuple(distinct.values()) if duplicate else (d % n,)
            tasks.append((tuple(bots), rules.to_dict(), li, lineup, d, derive_seed("eval", seed, li, d), rotations))
    return tasks, per_deal


def evaluate(bots: list, rules: Rules | None = None, games: int = 1000, seed: int = 0, duplicate: bool = True,
             workers: int | None = None, progress: bool = False, keep_records: bool = True,
             address: str | None = None) -> Report:
    """Play about ``games`` games between ``bots`` (specs for ``make_bot``, or bot objects: those
    play in this process, e.g. a model from another library) and summarise them.

    With as many bots as seats, they all sit at one table; with more, every combination of
    them plays; with fewer, the lineup repeats around the table.  ``address``: spread the decks over the Ray
    cluster there ("auto": the one this machine is a node of) instead of this machine's cores; every deck is
    seeded, so the report is the one a single machine gives with the same seed.
    """
    rules = rules or Rules()
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be at least 1, got {games!r}")
    _check_bots(bots, rules)
    tasks, per_deal = _deal_tasks(bots, rules, games, seed, duplicate)
    workers = workers or usable_cores()
    if not all(isinstance(b, str) for b in bots):
        if address is not None:
            raise ValueError("only bots named by a spec can play on a cluster (a bot object lives in this process)")
        workers = 1
    started = time.perf_counter()
    tally = Tally(len(bots), head_to_head=rules.num_players == 2 and len(bots) == 2)
    keep = keep_records or len(bots) > 2  # the ratings replay every game's placings
    records: list[GameRecord] = []
    seconds = [0.0] * len(bots)
    decisions = [0] * len(bots)
    notes: list[str] = []
    bar = Progress("eval", len(tasks) * per_deal, "game", enabled=progress, leave=False)

    def take(result):  # one deck, in task order
        recs, secs, decs = result
        tally.add_deck(recs)
        if keep:
            records.extend(recs)
        for i in range(len(bots)):
            seconds[i] += secs[i]
            decisions[i] += decs[i]
        bar.update(tally.played)

    ended = None
    try:
        _play_decks(tasks, take, workers, address, notes)
        ended = "total"
    except BaseException as err:
        if not interrupted(err):
            raise
        ended = "stopped"
        raise KeyboardInterrupt from None
    finally:
        bar.end(ended, "; nothing is reported" if ended == "stopped" else "")
    report = summarise(bots, rules, tally, records, seconds, decisions, seed, duplicate)
    report.seconds = time.perf_counter() - started
    if tally.cut_off:
        notes.append(f"{tally.cut_off} of {tally.played} games did not end within {MOVE_LIMIT:,} moves and count "
                     "as draws")
    report.notes = notes
    if not keep_records:
        report.records = []
    return report


def _play_decks(tasks: list[tuple], take, workers: int, address: str | None, notes: list[str]) -> None:
    """Every deck, its result handed to ``take`` in task order: on a Ray cluster, in ``workers`` processes, or
    here."""
    if address is not None:
        _run_on_cluster(tasks, address, take)
    elif workers > 1 and len(tasks) > 1:
        _run_in_pool(tasks, workers, take, notes)
    else:
        for task in tasks:
            take(play_deal(task))


RETRIES = 2
"""Times the decks of a dead worker pool are played again in a new pool before the evaluation gives up."""


def _run_in_pool(tasks: list[tuple], workers: int, take, notes: list[str]) -> None:
    """Play ``tasks`` in ``workers`` processes, handing each result to ``take`` in task order.

    A worker that dies (SIGKILL, out of memory) breaks the pool: the decks not yet received are played
    again in a new pool, up to ``RETRIES`` times; every deck is seeded, so a replayed deck gives the same
    games.  Ctrl-C stops the workers at once (they ignore it themselves)."""
    done = 0
    for attempt in range(RETRIES + 1):
        pool = ProcessPoolExecutor(workers, initializer=ignore_interrupts)
        try:
            rest = tasks[done:]
            size = max(1, len(rest) // (workers * 8))
            chunks = [pool.submit(_play_chunk, rest[i:i + size]) for i in range(0, len(rest), size)]
            for chunk in chunks:
                for result in chunk.result():
                    take(result)
                    done += 1
            pool.shutdown()
            return
        except BrokenProcessPool:
            _stop(pool)
            if attempt == RETRIES:
                raise WorkerDied(f"evaluation workers died {RETRIES + 1} times; {done} of {len(tasks)} decks were "
                                 "played and no result is reported") from None
            notes.append(f"a worker died; the {len(tasks) - done} decks not yet played were played again")
        except BaseException:
            _stop(pool)
            raise


CHUNK_SECONDS = 2.0
"""About how long one cluster task plays: long enough that Ray's cost per task is small, short enough that a lost
node costs little and every core gets work."""


def _run_on_cluster(tasks: list[tuple], address: str, take) -> None:
    """Play ``tasks`` as Ray tasks over the cluster at ``address``, handing each result to ``take`` in task order;
    a task lost with its node is played again by Ray (the same seeded decks, the same games), and taken once."""
    from durak_env.cluster import connect, run_tasks

    cores = int(connect(address).get("CPU", 1))
    started = time.perf_counter()
    take(play_deal(tasks[0]))  # one deck here: how long a deck takes, for the size of a task
    per_deck = time.perf_counter() - started
    rest = tasks[1:]
    size = max(1, min(len(rest) // (cores * 4) or 1, int(CHUNK_SECONDS / max(per_deck, 1e-3))))
    for results in run_tasks(_play_chunk, [rest[i:i + size] for i in range(0, len(rest), size)]):
        for result in results:
            take(result)


def _play_chunk(chunk: list[tuple]) -> list:
    """One worker's share of decks, played in order (one round trip per chunk, not per deck)."""
    return [play_deal(task) for task in chunk]


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, not after their current decks.

    The futures are left for the pool to fail: cancelling them here as well races the pool's own thread,
    which on Python 3.11 then prints an InvalidStateError traceback (``Executor.map`` cancels on exit, so
    the decks are submitted by hand).  That thread is then given a moment to end: on Python 3.11, one still
    closing its wake-up pipe when the interpreter exits races the exit's own wake-up call, which prints an
    "Exception ignored ... Bad file descriptor" traceback (seen once in the suite, under load)."""
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    for proc in list((getattr(pool, "_processes", None) or {}).values()):  # no public call before Python 3.14
        proc.terminate()
    pool.shutdown(wait=False)
    if manager is not None:
        manager.join(timeout=2)


class Tally:
    """The figures of a tournament, added up one deck at a time as the decks come in, so that an evaluation
    holds a few numbers per deck rather than every game (200,000 games would otherwise keep 200,000 records).
    Each deck is one sample of a bot's fool rate and score (the mean over its games in that deck)."""

    def __init__(self, bots: int, head_to_head: bool):
        self.games, self.fools, self.draws, self.points = [0] * bots, [0] * bots, [0] * bots, [0] * bots
        self.fool_samples = [array("d") for _ in range(bots)]  # 8 bytes a deck
        self.score_samples = [array("d") for _ in range(bots)]
        self.a_ok = array("d") if head_to_head else None
        self.all_draws = self.decks = self.played = self.cut_off = 0

    def add_deck(self, recs: list[GameRecord]) -> None:
        """Every game of one deck (all its rotations), in rotation order."""
        per_bot: dict[int, list[tuple[float, float]]] = {}
        for rec in recs:
            for seat, b in enumerate(rec.bots):
                self.games[b] += 1
                self.fools[b] += rec.fool_seat == seat
                self.draws[b] += rec.draw
                self.points[b] += rec.points[seat]
                per_bot.setdefault(b, []).append((float(rec.fool_seat == seat), rec.rewards[seat]))
            self.all_draws += rec.draw
            self.cut_off += rec.cut_off
        for b, games in per_bot.items():
            self.fool_samples[b].append(sum(g[0] for g in games) / len(games))
            self.score_samples[b].append(sum(g[1] for g in games) / len(games))
        if self.a_ok is not None:
            games = per_bot.get(0, [])
            self.a_ok.append(sum(1 - g[0] for g in games) / len(games))
        self.decks += 1
        self.played += len(recs)


def summarise(bots, rules, tally: Tally, records, seconds, decisions, seed, duplicate) -> Report:
    names = [_display_name(i, bots) for i in range(len(bots))]
    stats = [BotStats(name) for name in names]
    for b, s in enumerate(stats):
        s.games, s.fools, s.draws, s.points = tally.games[b], tally.fools[b], tally.draws[b], tally.points[b]
        if tally.fool_samples[b]:
            s.fool_rate, s.fool_ci = _rate_ci(tally.fool_samples[b])
            s.score, ci = _mean_ci(tally.score_samples[b])
            s.score_ci = (max(-1.0, ci[0]), min(1.0, ci[1]))  # rewards lie in [-1, 1]
            s.points /= max(1, s.games)
        s.decisions = decisions[b]
        s.ms_per_move = 1000 * seconds[b] / decisions[b] if decisions[b] else 0.0
    head = None
    if tally.a_ok is not None:
        mean, ci = _rate_ci(tally.a_ok)
        head = {"a": names[0], "b": names[1], "a_not_fool": mean, "a_not_fool_ci": ci,
                "draws": tally.all_draws}
    if len(bots) > 2:
        _rate(stats, records)
    specs = [b if isinstance(b, str) else name for b, name in zip(bots, names)]
    return Report(rules.to_dict(), specs, tally.played, tally.decks, seed, duplicate, stats, head, records)


def _display_name(i: int, specs: list) -> str:
    """The name of bot ``i`` in reports; a bot given more than once is numbered by its place (heuristic#1,
    heuristic#2)."""
    spec = specs[i]
    if not isinstance(spec, str):
        name = getattr(spec, "name", type(spec).__name__)
    else:
        name = os.path.basename(spec) if os.path.sep in spec else spec
    if specs.count(spec) > 1:
        return f"{name}#{i}"
    return name


def _rate(stats: list[BotStats], records: list[GameRecord]) -> None:
    """OpenSkill (Plackett-Luce) ratings from every game's placings; ordinal = mu - 3 sigma."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=s.name) for s in stats]
    for rec in records:
        teams = [[ratings[b]] for b in rec.bots]
        new = model.rate(teams, ranks=list(rec.placings))
        for b, team in zip(rec.bots, new):
            ratings[b] = team[0]
    for s, r in zip(stats, ratings):
        s.rating = r.ordinal()


def prepare_outputs(json_path: str | None = None, csv_path: str | None = None, chart_path: str | None = None) -> None:
    """Check the output paths before a tournament runs, so a bad one is said at once rather than after the
    games: each must name a file in a folder that can be written (missing folders are made, as ``durak export
    -o`` does), and the chart a format matplotlib writes.  Raises ValueError naming the problem."""
    if chart_path and Path(chart_path).suffix.lower() not in CHART_FORMATS:
        raise ValueError(f"--chart {chart_path}: a chart is written as {', '.join(CHART_FORMATS)}")
    for flag, path in (("--json", json_path), ("--csv", csv_path), ("--chart", chart_path)):
        if not path:
            continue
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"{flag} {path} is a folder; give a file name")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ValueError(f"{flag} {path}: cannot make its folder ({err.strerror or err})") from None
        if not os.access(path.parent, os.W_OK) or path.exists() and not os.access(path, os.W_OK):
            raise ValueError(f"{flag} {path}: cannot write there")


def write_outputs(report: Report, json_path: str | None = None, csv_path: str | None = None,
                  chart_path: str | None = None) -> None:
    """Write the summary as JSON, one row per seat per game as CSV, and a chart of fool rates."""
    prepare_outputs(json_path, csv_path, chart_path)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report.to_json(), f, indent=2)
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["lineup", "deal", "deal_seed", "rotation", "seat", "bot", "placing", "points", "reward",
                        "fool", "moves"])
            for r in report.records:
                for seat, b in enumerate(r.bots):
                    w.writerow([r.lineup, r.deal, r.deal_seed, r.rotation, seat, report.stats[b].name,
                                r.placings[seat], r.points[seat], r.rewards[seat], int(r.fool_seat == seat), r.moves])
    if chart_path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(report.stats), 3.6))
        names = [s.name for s in report.stats]
        rates = [s.fool_rate for s in report.stats]
        err = [[s.fool_rate - s.fool_ci[0] for s in report.stats], [s.fool_ci[1] - s.fool_rate for s in report.stats]]
        ax.bar(names, rates, yerr=err, capsize=6, color="#4878a8")
        ax.set_ylabel("fool rate (95% CI)")
        ax.set_ylim(0, 1)
        ax.set_title(f"{report.games} games, {report.rules['num_players']} players")
        fig.tight_layout()
        fig.savefig(chart_path, dpi=100)
        plt.close(fig)
