"""Merge the specialists into the universal policy: policy distillation (Rusu et al., "Policy Distillation",
2016), issue 29.

PPO over every table teaches the universal network to play any rules, but at the four tables with a shipped
specialist it stays behind the specialist, which trained there alone for many times as many decisions.  Here
the universal policy (a bot file) is trained further to play as the specialists play at their tables, and as
it already plays everywhere else, so that what it knows of other tables is kept:

- Deals are drawn from the bot's tables (its metadata; ``specialist_share`` of them from the tables with a
  specialist), with the learner at one seat and HeuristicBot at the others, or the learner at every seat.
- The learner's moves are the teacher's in ``teacher_moves`` of its decisions and the student's own in the
  rest (so the states are those the student will meet when it plays alone, as DAgger collects them: Ross et
  al., 2011).
- At each of its decisions with a choice the teacher's probabilities are recorded in the universal layout:
  the specialist's at its table; elsewhere the universal policy's own (as it was at the start), or, with
  ``playouts``, the move shares of ``search:net`` guided by it (a round of expert iteration at those tables,
  as ``training.expert`` runs one for a specialist); with the deal's outcome for the seat.
- The network is trained from its weights on those distributions (cross-entropy) and outcomes, as expert
  iteration trains on a search's move shares (``training.expert.fit_shares``), and written as a bot file.

A run is a folder and resumes where it stopped: the deals are written in parts (``part-NNNN.npz``) that a
rerun keeps, and a run with its ``bot.onnx`` is done.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from baselines import SHIPPED_BOTS, make_bot
from baselines.netsearch import NetSearchBot
from baselines.policy_file import bot_metadata, load_bot
from durak_env.engine.actions import translation
from durak_env.engine.game import Game
from durak_env.engine.loop import play, seated
from durak_env.engine.seeds import derive_seed
from durak_env.observation import network_shape
from durak_env.tables import Tables

from .expert import command, fit_shares, move_shares, play_parts, record_config
from .export import policy_from_bot_file, write_bot
from .policy import ActionProbabilities, widen

PART_GAMES = 100
"""Deals per part file (the unit a rerun keeps)."""


@dataclass(frozen=True)
class MergeConfig:
    start: str
    """The universal bot file trained further."""
    out: str
    """The run folder."""
    config: str | None = None
    """The training config whose tables the deals are drawn from; None: those the bot file names."""
    games: int = 20000
    specialist_share: float = 0.5
    """The share of deals at a table with a shipped specialist (the rest are drawn from the bot's tables)."""
    teacher_moves: float = 0.5
    """The share of the learner's decisions where the teacher's move is played, not the student's."""
    self_share: float = 0.2
    """The share of deals with the learner at every seat (HeuristicBot at the others otherwise)."""
    random_share: float | None = None
    """The share of the other deals dealt with random rules (None: the tables' own ``random_share``)."""
    playouts: int = 0
    """At the tables without a specialist: 0, the policy's own probabilities (what it knows is kept); N, the
    move shares of the tree search it guides at N playouts (what the search finds is taught)."""
    temperature: float = 1.0
    """As in expert iteration: the teachers' probabilities ** (1 / temperature), renormalised."""
    epochs: int = 4
    learning_rate: float = 3e-4
    batch_size: int = 1024
    seed: int = 1
    workers: int = 2
    hidden: tuple[int, ...] | None = None
    """Wider hidden layers for the merged network (``training.policy.widen``: it starts as the start file's
    function, with more capacity to hold every table's play); None keeps the start's widths."""

    def __post_init__(self) -> None:
        for name in ("specialist_share", "teacher_moves", "self_share", "random_share"):
            share = getattr(self, name)
            if share is not None and not 0 <= share <= 1:
                raise ValueError(f"{name.replace('_', '-')} must be a share from 0 to 1, got {share!r}")
        for name, least in (("games", 1), ("playouts", 0), ("epochs", 1), ("batch_size", 1), ("workers", 1)):
            if getattr(self, name) < least:
                raise ValueError(f"{name.replace('_', '-')} must be at least {least}, got {getattr(self, name)!r}")
        if self.hidden is not None and (not self.hidden or any(w < 1 for w in self.hidden)):
            raise ValueError(f"hidden must be layer widths of at least 1, got {self.hidden!r}")


def bot_tables(bot, config: str | None = None) -> Tables:
    """The tables of ``config`` (a training config's path), else those a universal bot was dealt (its
    metadata's ``tables``, else those of the config it names)."""
    if not bot.universal:
        raise ValueError(f"{bot.name} is a specialist ({bot.rules.describe()}); merging needs a universal bot file")
    if config is None and bot.metadata.get("tables") is not None:
        return Tables.from_dict(bot.metadata["tables"])
    from .config import TrainConfig

    tables = TrainConfig.load(config or bot.metadata["config"]).make_tables()  # a ConfigError is a ValueError
    if tables is None:
        raise ValueError(f"{config or bot.metadata['config']} trains a specialist (no tables); name a config "
                         f"with rules: any")
    return tables


def specialists(tables: Tables) -> dict:
    """The named tables with a shipped specialist: rules -> the specialist bot."""
    made_for = {rules for _, rules in SHIPPED_BOTS.values() if rules is not None}
    return {rules: make_bot("trained", rules=rules) for _, rules in tables.named() if rules in made_for}


@lru_cache(maxsize=2)
def _players(start: str, config: str | None, random_share: float | None) -> tuple:
    """The student (``start``, unbound), its tables (with ``random_share``, where given) and their specialists,
    loaded once in a worker process."""
    student = load_bot(start)
    tables = bot_tables(student, config)
    if random_share is not None:
        tables = replace(tables, random_share=random_share)
    return student, tables, specialists(tables)


def taught_deals(task: tuple) -> dict[str, np.ndarray]:
    """Play ``games`` deals (the module docstring); returns the universal observations, masks, the teachers'
    probabilities and the outcomes at the learner's decisions with a choice."""
    start, config, random_share, games, seed, specialist_share, teacher_moves, self_share, playouts = task
    student, tables, teachers = _players(start, config, random_share)
    searches: dict = {}  # rules -> the search guided by the student at that table
    special = sorted(teachers, key=lambda r: r.describe())
    rng = random.Random(seed)
    heuristic = make_bot("heuristic", seed=seed)
    size, width = network_shape(None)
    obs, masks, shares, seats = [], [], [], []

    def learner(view) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        bot = student.bind(view.rules)
        into = np.array(translation(view.rules.deck_size))
        row, mask, share = np.zeros(size, dtype=np.float32), np.zeros(width, dtype=np.int8), np.zeros(width, np.float32)
        bot.encoder.encode(view, row)
        mask[into[list(legal)]] = 1
        teacher = teachers.get(view.rules, bot)
        if teacher is bot and playouts:
            if view.rules not in searches:
                searches[view.rules] = NetSearchBot(bot, seed=seed, playouts=playouts)
            searches[view.rules].act(view)
            probs = move_shares(searches[view.rules], len(into))
        else:
            probs = np.asarray(teacher.probabilities(view), dtype=np.float32)
        share[into] = probs
        obs.append(row), masks.append(mask), shares.append(share), seats.append(view.seat)
        if (teacher is not bot or playouts) and rng.random() >= teacher_moves:
            probs = bot.probabilities(view)
        return int(legal[int(np.argmax(probs[list(legal)]))])

    outcomes: list[float] = []
    for _ in range(games):
        rules = rng.choice(special) if special and rng.random() < specialist_share else tables.sample(rng)
        game = Game(rules, seed=rng.getrandbits(63))
        seat = rng.randrange(rules.num_players)
        everyone = rng.random() < self_share
        first = len(seats)
        play(game, seated([learner if everyone or s == seat else heuristic.act for s in range(rules.num_players)]))
        if game.result is None:  # cut off by the move limit: no outcome to learn from
            del obs[first:], masks[first:], shares[first:], seats[first:]
            continue
        rewards = game.result.rewards()
        outcomes += [rewards[s] for s in seats[first:]]
    return {"obs": np.asarray(obs, dtype=np.float32).reshape(-1, size),
            "mask": np.asarray(masks, dtype=np.int8).reshape(-1, width),
            "share": np.asarray(shares, dtype=np.float32).reshape(-1, width),
            "outcome": np.asarray(outcomes, dtype=np.float32)}


def run(cfg: MergeConfig, say=print) -> str:
    """The deals (parts already written are kept), then the merged bot file; returns its path."""
    out = Path(cfg.out)
    bot = out / "bot.onnx"
    if bot.exists():
        return str(bot)
    source = load_bot(cfg.start)
    bot_tables(source, cfg.config)  # refuses a specialist file before any deal is played
    record_config(out, cfg, MergeConfig(cfg.start, cfg.out))
    tasks = [(cfg.start, cfg.config, cfg.random_share, min(PART_GAMES, cfg.games - i),
              derive_seed("merge", cfg.seed, i), cfg.specialist_share, cfg.teacher_moves, cfg.self_share, cfg.playouts)
             for i in range(0, cfg.games, PART_GAMES)]
    net = policy_from_bot_file(cfg.start)
    if cfg.hidden is not None:
        net = widen(net, list(cfg.hidden), cfg.seed)  # before any deal: a ValueError names narrower widths
    data = play_parts(out, tasks, taught_deals, cfg.workers, say)
    stats = fit_shares(net, data, cfg.temperature, cfg.epochs, cfg.learning_rate, cfg.batch_size, cfg.seed)
    made = lineage(source.metadata, cfg, stats["decisions"])
    meta = bot_metadata(None, net.hidden_sizes, trainer="distillation", tables=bot_tables(source, cfg.config).to_dict(),
                        **made)
    write_bot(ActionProbabilities(net), meta, net.obs_size, net.num_actions, "onnx", bot)
    (out / "merge.json").write_text(json.dumps(stats, indent=1))
    say(json.dumps(stats))
    return str(bot)


def lineage(before: dict, cfg: MergeConfig, decisions: int) -> dict:
    """Where a merged bot came from: the PPO run it started from (``source``, kept through later rounds) and
    each round of merging, its settings and the decisions it learned from (``rounds``)."""
    first = before.get("trainer") != "distillation"
    source = {k: before.get(k) for k in ("trainer", "config", "update", "global_step", "opponents", "seed")} \
        if first else before.get("source")
    settings = {k: v for k, v in asdict(cfg).items() if k not in ("start", "out", "config", "workers")}
    this = {"start": cfg.start, **settings, "decisions": decisions,
            "teacher": "the shipped specialists at their tables; elsewhere "
                       + (f"search:net:{cfg.playouts} guided by the start" if cfg.playouts else "the start itself")}
    return {"source": source, "rounds": ([] if first else list(before.get("rounds", []))) + [this]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.merge", description=__doc__.split("\n\n")[0])
    p.add_argument("start", help="the universal bot file to train further (e.g. baselines/bots/universal.onnx)")
    p.add_argument("out", help="the run folder (a rerun resumes it)")
    p.add_argument("--config", help="the training config whose tables are dealt (default: the bot file's)")
    for name, kind in (("games", int), ("specialist-share", float), ("teacher-moves", float), ("self-share", float),
                       ("random-share", float), ("playouts", int), ("temperature", float), ("epochs", int),
                       ("learning-rate", float), ("seed", int), ("workers", int)):
        p.add_argument(f"--{name}", type=kind, default=getattr(MergeConfig, name.replace("-", "_")))
    p.add_argument("--hidden", type=int, nargs="+", metavar="WIDTH",
                   help="wider hidden layers for the merged network (default: the start's)")
    args = p.parse_args(argv)
    if args.hidden is not None:
        args.hidden = tuple(args.hidden)
    try:
        cfg = MergeConfig(**vars(args))
    except ValueError as err:
        p.error(str(err))
    return command("merge", run, cfg)


if __name__ == "__main__":
    sys.exit(main())
