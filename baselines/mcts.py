"""A real tree search: information-set Monte Carlo tree search over the seat's view (``search:mcts``).

Single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012): one
tree whose nodes are the sequences of choices made since the seat's decision.  Every playout deals the unseen
cards afresh, consistently with the seat's view (``durak_env.engine.determinize.sample_world``), walks down
the tree choosing among the moves legal in that deal by UCB1 with availability counts (a move is rated only
against the playouts in which it was there to choose), adds one node, finishes the deal with random moves
(or seed 004's heuristic at every seat), and adds each seat's result to the nodes on the way.  The seat to act
at a node chooses by its own result, so opponents are searched as players who want to win, not modelled as
any one bot.  The move played is the root's most visited.

Moves that are the only legal move make no node: they are played on the way down.  Each node keeps every
seat's total, so the same node serves whichever seat chooses there.  The bot reads only its view: it cannot
see a hidden card, and a playout's deal is drawn from what the seat knows.

The search runs in the native core where it is built (native/search.hpp: the same algorithm, its own random
numbers, about twenty times the playouts a second); ``engine="python"`` keeps it in Python, the reference.

Budgets: ``search:mcts`` (1,000 playouts a move), ``search:mcts:<playouts>`` (``search:mcts:10000``), or a time
a move, ``search:mcts:30ms``, ``search:mcts:1s``."""

from __future__ import annotations

import math
import random
import re
import time
from dataclasses import dataclass
from typing import Callable

from durak_env.engine.determinize import sample_world
from durak_env.engine.game import Game
from durak_env.engine.loop import play
from durak_env.engine.view import SeatView
from durak_env.native import available as native_available
from durak_env.native import native_mcts

from .search import ROLLOUT_LIMIT, heuristic_everywhere

PLAYOUTS = 1_000
"""Playouts a move of ``search:mcts``."""
EXPLORATION = 0.7
"""UCB1's constant, on results scaled to [0, 1]."""
ROLLOUTS = ("random", "heuristic")


BUDGET = re.compile(r"^(?:(?P<playouts>\d+)|(?P<amount>\d+(?:\.\d+)?)(?P<unit>ms|s))$")


@dataclass(frozen=True)
class Budget:
    """A tree search's budget a move: ``playouts``, or as many playouts as ``seconds`` allow (at least one batch).
    ``bot`` names the search in refusals."""

    bot: str
    playouts: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if (self.playouts is None) == (self.seconds is None):
            raise ValueError(f"{self.bot} takes a budget of playouts or of seconds a move, one of them")
        if self.playouts is not None and self.playouts < 1:
            raise ValueError(f"{self.bot} needs at least 1 playout a move, got {self.playouts}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"{self.bot} needs a positive time a move, got {self.seconds}")

    @classmethod
    def parse(cls, text: str, bot: str) -> "Budget":
        """The budget as a bot's name gives it: playouts (``1000``) or a time a move (``30ms``, ``1s``)."""
        match = BUDGET.match(text)
        if match is None:
            raise ValueError(f"{bot} budget {text!r} is neither playouts (1000) nor a time (30ms, 1s)")
        if match["playouts"]:
            return cls(bot, playouts=int(match["playouts"]))
        return cls(bot, seconds=float(match["amount"]) / (1000 if match["unit"] == "ms" else 1))

    @property
    def label(self) -> str:
        """``1000`` or ``30ms``: the budget in a bot's name."""
        return f"{self.seconds * 1000:g}ms" if self.seconds is not None else str(self.playouts)

    def spend(self, batch: int, playouts: Callable[[int], None]) -> int:
        """Call ``playouts(k)``, which makes ``k`` playouts, ``batch`` at a time until the budget is spent; the
        playouts made.  With a time, a batch is begun only where one as long as the last would end by the deadline,
        so that a search of long batches keeps to its time on average rather than overrunning it by half a batch."""
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            size = batch if self.playouts is None else min(batch, self.playouts - done)
            began = time.perf_counter()
            playouts(size)
            done += size
            if deadline is not None:
                now = time.perf_counter()
                if 2 * now - began >= deadline:
                    return done
            elif done >= self.playouts:
                return done


class TreeSearch:
    """What the tree searches share: a budget a move (``budget``, with ``playouts`` and ``seconds`` read from it),
    a seeded generator, and the playouts made for the last decision (``last_playouts``)."""

    budget: Budget
    rng: random.Random
    last_playouts: int = 0

    @property
    def playouts(self) -> int | None:
        return self.budget.playouts

    @property
    def seconds(self) -> float | None:
        return self.budget.seconds

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)


class Node:
    """A sequence of choices since the root: its children by action, and per seat the results through it."""

    __slots__ = ("children", "visits", "available", "totals")

    def __init__(self, seats: int):
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.available = 0
        """Playouts in which this node's move was legal where its parent chose (ISMCTS's availability)."""
        self.totals = [0.0] * seats


class MCTSBot(TreeSearch):
    """ISMCTS with ``playouts`` playouts a move, or as many as ``seconds`` allow (at least one)."""

    def __init__(self, seed: int | None = None, playouts: int | None = None, seconds: float | None = None,
                 rollout: str = "random", exploration: float = EXPLORATION, engine: str = "auto"):
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; rollouts: {', '.join(ROLLOUTS)}")
        if engine not in ("auto", "native", "python"):
            raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
        if engine == "native" and not native_available():
            raise ValueError("engine='native': the native engine is not built here")
        self.native = engine != "python" and native_available()
        """Whether the search runs in the native core."""
        if playouts is None and seconds is None:
            playouts = PLAYOUTS
        self.budget = Budget("search:mcts", playouts, seconds)
        self.rollout = rollout
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.name = f"search-mcts-{self.budget.label}" + ("" if self.native else "-python")

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if self.native:
            action, self.last_playouts = native_mcts(view, self.budget.playouts, self.budget.seconds,
                                                     self.rng.getrandbits(64), self.exploration, self.rollout)
            return action
        root = Node(len(view.hand_sizes))
        self.last_playouts = self.budget.spend(1, lambda _: self.playout(root, sample_world(view, self.rng)))
        return max(legal, key=lambda a: (root.children[a].visits, -a) if a in root.children else (-1, -a))

    def playout(self, root: Node, game: Game) -> None:
        """One playout in the deal ``game``: down the tree, one node added, a rollout, the results back up."""
        rng, c = self.rng, self.exploration
        path = [root]
        node = root
        while game.result is None:
            legal = game.legal_actions()
            if len(legal) == 1:
                game.play_unchecked(legal[0])
                continue
            seat = game.to_act
            untried = [a for a in legal if a not in node.children]
            for a in legal:
                child = node.children.get(a)
                if child is not None:
                    child.available += 1
            if untried:
                action = untried[int(rng.random() * len(untried))]
                child = node.children[action] = Node(len(node.totals))
                child.available = 1
                game.play_unchecked(action)
                path.append(child)
                break
            best, best_score = legal[0], -1.0
            for a in legal:
                child = node.children[a]
                score = (child.totals[seat] / child.visits + 1) / 2 + c * math.sqrt(
                    math.log(child.available) / child.visits)
                if score > best_score:
                    best, best_score = a, score
            node = node.children[best]
            game.play_unchecked(best)
            path.append(node)
        rewards = self.finish(game)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for s, r in enumerate(rewards):
                totals[s] += r

    def finish(self, game: Game) -> tuple[float, ...]:
        """Play the deal to its end (random moves, or the heuristic at every seat); every seat's reward, all 0
        for a deal cut off at ``ROLLOUT_LIMIT`` moves (a draw)."""
        if self.rollout == "heuristic":
            play(game, heuristic_everywhere, checked=False, limit=ROLLOUT_LIMIT)
        else:
            rng = self.rng
            for _ in range(ROLLOUT_LIMIT):
                if game.result is not None:
                    break
                legal = game.legal_actions()
                game.play_unchecked(legal[int(rng.random() * len(legal))])
        if game.result is None:
            return (0.0,) * game.n
        return game.result.rewards()


def mcts_from_name(arg: str, seed: int | None = None) -> MCTSBot:
    """``search:mcts[:<playouts>|<n>ms|<n>s][:heuristic][:python]`` -> the bot; ``arg`` is what follows
    ``search:mcts``.  ``python`` runs the search in the Python reference engine rather than the native core (the
    equal-time match of the two: benchmarks/RESULTS.md)."""
    parts = [p for p in arg.split(":") if p] if arg else []
    engine = "auto"
    if parts and parts[-1] == "python":
        engine = parts.pop()
    rollout = "random"
    if parts and parts[-1] in ROLLOUTS:
        rollout = parts.pop()
    if len(parts) > 1:
        raise ValueError(f"search:mcts takes one budget, e.g. search:mcts:1000, search:mcts:30ms; got {arg!r}")
    if not parts:
        return MCTSBot(seed, rollout=rollout, engine=engine)
    budget = Budget.parse(parts[0], "search:mcts")
    return MCTSBot(seed, playouts=budget.playouts, seconds=budget.seconds, rollout=rollout, engine=engine)


__all__ = ["Budget", "MCTSBot", "PLAYOUTS", "TreeSearch", "mcts_from_name"]
