"""Seed 001's stronger players: "try out many possible layouts of the unseen cards before choosing".

Perfect-information Monte Carlo: sample worlds consistent with the seat's view
(``durak_env.engine.determinize.sample_world``), play every legal move in each
world and finish the deal with seed 004's heuristic for every seat, and choose
the move with the best mean result for this seat.  The same worlds serve every
move (common random numbers), so differences between moves are not sampling
noise between worlds.  The bot reads only its view: it cannot see a hidden card.
"""

from __future__ import annotations

import random
import time

from durak_env.engine.determinize import sample_world
from durak_env.engine.game import Game
from durak_env.engine.loop import play
from durak_env.engine.view import SeatView

from .heuristic import HeuristicBot, heuristic_action

LEVELS = {
    "fast": {"worlds": 8},
    "medium": {"worlds": 24},
    "strong": {"worlds": 64},
}
def heuristic_everywhere(game: Game) -> int:
    """Seed 004's heuristic for the seat to act, read straight off a sampled world (a rollout's chooser)."""
    s = game.to_act
    return heuristic_action(game.legal_actions(), game.hands[s], game.trump, len(game.stock), game.attacks,
                            game.open_count, game.taking, game.layout)


def rollout(game: Game, seat: int) -> float:
    """Finish ``game`` with the heuristic in every seat; this seat's reward (0 if cut off by the move limit)."""
    play(game, heuristic_everywhere, checked=False)
    return game.result.rewards()[seat] if game.result is not None else 0.0


class SearchBot:
    """Samples ``worlds`` layouts of the unseen cards (or as many as ``time_limit`` seconds allow)."""

    name = "search"

    def __init__(self, seed: int | None = None, level: str = "medium", worlds: int | None = None,
                 time_limit: float | None = None):
        if level not in LEVELS:
            raise ValueError(f"unknown search level {level!r}; levels: {', '.join(LEVELS)}")
        self.worlds = worlds if worlds is not None else LEVELS[level]["worlds"]
        if self.worlds < 1:
            raise ValueError(f"SearchBot worlds must be at least 1, got {self.worlds}")
        self.time_limit = time_limit
        self.level = level
        self.name = f"search-{level}" if worlds is None and time_limit is None else "search"
        self.rng = random.Random(seed)
        self.fallback = HeuristicBot()

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        seat = view.seat
        totals = [0.0] * len(legal)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        sampled = 0
        while sampled < self.worlds or (deadline is not None and time.perf_counter() < deadline):
            if deadline is not None and sampled and time.perf_counter() >= deadline:
                break
            world = sample_world(view, self.rng)
            for i, action in enumerate(legal):
                trial = world.clone()
                trial.step(action)
                totals[i] += rollout(trial, seat)
            sampled += 1
            if deadline is None and sampled >= self.worlds:
                break
        preferred = self.fallback.act(view)
        best = max(range(len(legal)), key=lambda i: (totals[i], legal[i] == preferred))
        return legal[best]
