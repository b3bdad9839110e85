"""Seed 001's stronger players: "try out many possible layouts of the unseen cards before choosing".

Perfect-information Monte Carlo: sample worlds consistent with the seat's view
(``durak_env.engine.determinize.sample_world``), play every legal move in each
world and finish the deal with seed 004's heuristic for every seat, and choose
the move with the best mean result for this seat.  The same worlds serve every
move (common random numbers), so differences between moves are not sampling
noise between worlds.  The bot reads only its view: it cannot see a hidden card.  Where the native engine is
built the worlds are dealt and played out there (native/search.hpp: ``pimc``, the same sampling, its own random
numbers); ``engine="python"`` keeps them in the reference engine.
"""

from __future__ import annotations

import random
import time

from durak_env.engine.determinize import sample_world
from durak_env.engine.game import Game
from durak_env.engine.loop import play
from durak_env.engine.view import SeatView
from durak_env.native import _native, view_fields
from durak_env.native import available as native_available

from .heuristic import HeuristicBot, heuristic_action

LEVELS = {
    "fast": {"worlds": 8},
    "medium": {"worlds": 24},
    "strong": {"worlds": 64},
}
ROLLOUT_LIMIT = 2_000
"""Moves after which a rollout stops and scores 0, as a draw.  Some deals never end: three HeuristicBots
at a after-beaten-transfer table pass the same cards round for ever in 11 of 2,000 deals, and a rollout of
such a world would otherwise run to the game's own limit of 10,000 moves for every move tried.  Deals
that end are far shorter: the longest of 2,000 deals played by HeuristicBots was 214 moves at that table
and 936 at seed 003's four-seat table."""


def heuristic_everywhere(game: Game) -> int:
    """Seed 004's heuristic for the seat to act, read straight off a sampled world (a rollout's chooser)."""
    s = game.to_act
    return heuristic_action(game.legal_actions(), game.hands[s], game.trump, len(game.stock), game.attacks,
                            game.open_count, game.taking, game.layout)


def rollout(game: Game, seat: int) -> float:
    """Finish ``game`` with the heuristic in every seat; this seat's reward (0 if cut off at ``ROLLOUT_LIMIT``)."""
    play(game, heuristic_everywhere, checked=False, limit=ROLLOUT_LIMIT)
    return game.result.rewards()[seat] if game.result is not None else 0.0


class SearchBot:
    """Samples ``worlds`` layouts of the unseen cards (or as many as ``time_limit`` seconds allow)."""

    name = "search"

    def __init__(self, seed: int | None = None, level: str = "medium", worlds: int | None = None,
                 time_limit: float | None = None, engine: str = "auto"):
        if level not in LEVELS:
            raise ValueError(f"unknown search level {level!r}; levels: {', '.join(LEVELS)}")
        if engine not in ("auto", "native", "python"):
            raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
        if engine == "native" and not native_available():
            raise ValueError("engine='native': the native engine is not built here")
        self.native = engine != "python" and native_available()
        """Whether the worlds are dealt and played out in the native core."""
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
        if self.native:
            totals, _ = _native.pimc(*view_fields(view), list(legal), self.worlds, self.time_limit or 0.0,
                                     self.rng.getrandbits(64))
            preferred = self.fallback.act(view)
            return legal[max(range(len(legal)), key=lambda i: (totals[i], legal[i] == preferred))]
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


class PolicySearchBot:
    """Search with a trained policy inside it (``search:policy``): the policy's probabilities choose which
    moves are worth trying (the ``top_k`` most probable), and in every sampled world each of them is played
    and the deal finished by the policy at every seat, its moves chosen greedily for all the rollouts
    together (one batched call a step).  The move with the best mean result wins; the policy's own choice
    breaks ties.  Like ``SearchBot``, it reads only its view."""

    name = "search-policy"

    def __init__(self, policy, seed: int | None = None, worlds: int = 8, top_k: int = 4,
                 max_moves: int = 1000):
        self.policy, self.worlds, self.top_k, self.max_moves = policy, worlds, top_k, max_moves
        self.rules = policy.rules
        self.rng = random.Random(seed)
        self.encoder = policy.encoder

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.policy.reset(seed)

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        probs = self.policy.probabilities(view)
        ranked = sorted(legal, key=lambda a: -probs[a])
        candidates = ranked[:self.top_k]
        if len(candidates) == 1:
            return candidates[0]
        games, owners = [], []
        for _ in range(self.worlds):
            world = sample_world(view, self.rng)
            for k, action in enumerate(candidates):
                trial = world.clone()
                trial.play_unchecked(action)
                games.append(trial)
                owners.append(k)
        totals = [0.0] * len(candidates)
        for k, reward in zip(owners, self._finish(games, view.seat)):
            totals[k] += reward
        best = max(range(len(candidates)), key=lambda k: (totals[k], -k))  # ties: the policy's preference
        return candidates[best]

    def _finish(self, games: list[Game], seat: int) -> list[float]:
        """Play every game to its end with the policy at every seat, all in lockstep; ``seat``'s rewards."""
        import numpy as np

        width = self.encoder.num_actions
        obs = np.empty((len(games), self.encoder.size), dtype=np.float32)
        for _ in range(self.max_moves):
            for g in games:
                g.play_forced()
            live = [g for g in games if g.result is None]
            if not live:
                break
            seats = [g.to_act for g in live]
            self.encoder.encode_games(live, seats, obs[:len(live)])
            mask = np.zeros((len(live), width), dtype=np.int8)
            for i, g in enumerate(live):
                mask[i, list(g.legal_actions())] = 1
            for g, action in zip(live, self.policy.choose_many(obs[:len(live)], mask).tolist()):
                g.play_unchecked(action)
        return [g.result.rewards()[seat] if g.result is not None else 0.0 for g in games]
