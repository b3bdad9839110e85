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
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

from durak_env.engine.cards import Card, cards_of
from durak_env.engine.game import Game
from durak_env.engine.rules import Rules

from . import make_bot


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


def _deal_seed(seed: int, lineup: int, deal: int) -> int:
    return random.Random(f"durak-eval/{seed}/{lineup}/{deal}").getrandbits(63)


_BOT_CACHE: dict[str, object] = {}


def _bot(spec):
    if not isinstance(spec, str):
        return spec  # a bot object, played in this process
    bot = _BOT_CACHE.get(spec)
    if bot is None:
        bot = _BOT_CACHE[spec] = make_bot(spec)
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
        bots = [_bot(specs[b]) for b in seat_bots]
        for s, bot in enumerate(bots):
            bot.reset(deal_seed * 7 + s)
        game = Game(rules, seed=deal_seed)
        deck = " ".join(str(Card(c)) for h in game.hands for c in cards_of(h)) + " | " + " ".join(
            str(Card(c)) for c in game.stock)
        moves = 0
        while game.result is None:
            legal = game.legal_actions()
            seat = game.to_act
            if len(legal) == 1:
                action = legal[0]
            else:
                t0 = time.perf_counter()
                action = bots[seat].act(game.view(seat))
                seconds[seat_bots[seat]] += time.perf_counter() - t0
                decisions[seat_bots[seat]] += 1
            game.step(action)
            moves += 1
            if moves > 20_000:
                raise RuntimeError(f"deal {deal_seed} did not finish in 20,000 moves")
        r = game.result
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


def evaluate(bots: list, rules: Rules | None = None, games: int = 1000, seed: int = 0, duplicate: bool = True,
             workers: int | None = None, progress: bool = False, keep_records: bool = True) -> Report:
    """Play about ``games`` games between ``bots`` (specs for ``make_bot``, or bot objects: those
    play in this process, e.g. a model from another library) and summarise them.

    With as many bots as seats, they all sit at one table; with more, every combination of
    them plays; with fewer, the lineup repeats around the table.
    """
    rules = rules or Rules()
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be at least 1, got {games!r}")
    if len(bots) < 2:
        raise ValueError("evaluate needs at least two bots")
    for spec in bots:
        bot = make_bot(spec) if isinstance(spec, str) else spec  # unknown names, unreadable files: one line here
        if not callable(getattr(bot, "act", None)):
            raise ValueError(f"{spec!r} is neither a bot name nor an object with act(view) and reset(seed)")
        made_for = getattr(bot, "rules", None)
        if made_for is not None and made_for != rules:
            raise ValueError(f"{spec} was trained for other rules than this tournament's; pass --rules to match")
    n = rules.num_players
    if len(bots) > n:
        lineups = [tuple(c) for c in itertools.combinations(range(len(bots)), n)]
    else:
        lineups = [tuple(i % len(bots) for i in range(n))]
    # Rotations that seat the bots differently (a repeated lineup such as A B A B has only two).
    distinct = {}
    for r in range(n):
        distinct.setdefault(tuple(lineups[0][(s + r) % n] for s in range(n)), r)
    per_deal = len(distinct) if duplicate else 1
    deals = max(1, math.ceil(games / (per_deal * len(lineups))))
    tasks = []
    for li, lineup in enumerate(lineups):
        for d in range(deals):
            rotations = tuple(distinct.values()) if duplicate else (d % n,)
            tasks.append((tuple(bots), rules.to_dict(), li, lineup, d, _deal_seed(seed, li, d), rotations))

    workers = workers or min(2, os.cpu_count() or 1)
    if not all(isinstance(b, str) for b in bots):
        workers = 1
    started = time.perf_counter()
    records: list[GameRecord] = []
    seconds = [0.0] * len(bots)
    decisions = [0] * len(bots)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks) * per_deal, unit="game", desc="eval", leave=False)

    def take(result):
        recs, secs, decs = result
        records.extend(recs)
        for i in range(len(bots)):
            seconds[i] += secs[i]
            decisions[i] += decs[i]
        if bar is not None:
            bar.update(len(recs))

    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(workers) as pool:
            for result in pool.map(play_deal, tasks, chunksize=max(1, len(tasks) // (workers * 8))):
                take(result)
    else:
        for task in tasks:
            take(play_deal(task))
    if bar is not None:
        bar.close()
    records.sort(key=lambda r: (r.lineup, r.deal, r.rotation))
    report = summarise(bots, rules, records, seconds, decisions, seed, duplicate)
    report.seconds = time.perf_counter() - started
    if not keep_records:
        report.records = []
    return report


def summarise(bots, rules, records, seconds, decisions, seed, duplicate) -> Report:
    names = [_display_name(b, bots) for b in bots]
    stats = [BotStats(name) for name in names]
    by_deal: dict[tuple[int, int], dict[int, list[tuple[float, float]]]] = {}
    for rec in records:
        for seat, b in enumerate(rec.bots):
            s = stats[b]
            s.games += 1
            s.fools += rec.fool_seat == seat
            s.draws += rec.fool_seat is None and not rec.capped
            s.points += rec.points[seat]
            by_deal.setdefault((rec.lineup, rec.deal), {}).setdefault(b, []).append(
                (float(rec.fool_seat == seat), rec.rewards[seat]))
    for b, s in enumerate(stats):
        fool_samples, score_samples = [], []
        for per_bot in by_deal.values():
            games = per_bot.get(b)
            if games:
                fool_samples.append(sum(g[0] for g in games) / len(games))
                score_samples.append(sum(g[1] for g in games) / len(games))
        if fool_samples:
            s.fool_rate, ci = _mean_ci(fool_samples)
            s.fool_ci = (max(0.0, ci[0]), min(1.0, ci[1]))
            s.score, s.score_ci = _mean_ci(score_samples)
            s.points /= max(1, s.games)
        s.decisions = decisions[b]
        s.ms_per_move = 1000 * seconds[b] / decisions[b] if decisions[b] else 0.0
    head = None
    if rules.num_players == 2 and len(bots) == 2:
        a_ok = []
        draws = 0
        for per_bot in by_deal.values():
            games = per_bot.get(0, [])
            a_ok.append(sum(1 - g[0] for g in games) / len(games))
        draws = sum(1 for r in records if r.fool_seat is None)
        mean, ci = _mean_ci(a_ok)
        head = {"a": names[0], "b": names[1], "a_not_fool": mean, "a_not_fool_ci": (max(0.0, ci[0]), min(1.0, ci[1])),
                "draws": draws}
    if len(bots) > 2:
        _rate(stats, records)
    specs = [b if isinstance(b, str) else name for b, name in zip(bots, names)]
    return Report(rules.to_dict(), specs, len(records), len(by_deal), seed, duplicate, stats, head, records)


def _display_name(spec, specs: list) -> str:
    if not isinstance(spec, str):
        name = getattr(spec, "name", type(spec).__name__)
    else:
        name = os.path.basename(spec) if os.path.sep in spec else spec
    if specs.count(spec) > 1:
        return f"{name}#{specs.index(spec)}"
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


def write_outputs(report: Report, json_path: str | None = None, csv_path: str | None = None,
                  chart_path: str | None = None) -> None:
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
