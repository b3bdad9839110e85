"""A match: a series of deals with placing points added up (seed 003).

Seed 003: "A match is five deals unless the table is set to another length, from
three to fifteen. Placing points add up from deal to deal. After the last deal,
the highest total wins. Players level on the top total share first place."
Who is dealt first in the next deal follows ``rules.next_deal``: one seat on
(seed 000: "The first seat rotates between games") or the seat after the fool,
who deals (seed 003; after a draw the deal passes one seat on).
"""

from __future__ import annotations

import random
from typing import Callable

from .game import Game, Result
from .loop import MOVE_LIMIT, play, seated
from .rules import Rules
from .view import SeatView

Policy = Callable[[SeatView], int]


class Match:
    def __init__(self, rules: Rules | None = None, seed: int | None = None):
        self.rules = rules or Rules()
        self._rng = random.Random(seed)
        self.totals = [0] * self.rules.num_players
        self.results: list[Result] = []
        self.seeds: list[int] = []
        """Each deal's seed, in order (with ``first_seat``, what a game record needs)."""
        self.first_seat = 0
        self._dealer = self.rules.num_players - 1

    @property
    def over(self) -> bool:
        return len(self.results) >= self.rules.match_deals

    def next_deal(self) -> Game:
        """The next deal, shuffled from the match's own generator."""
        if self.over:
            raise ValueError(f"the match is over after {self.rules.match_deals} deals")
        self.seeds.append(self._rng.getrandbits(64))
        return Game(self.rules, seed=self.seeds[-1], first_seat=self.first_seat)

    def record(self, game: Game) -> None:
        """Add a finished deal's points and pick the next deal's first seat."""
        if game.result is None:
            raise ValueError("record() takes a finished deal")
        result = game.result
        self.results.append(result)
        for seat, pts in enumerate(result.points):
            self.totals[seat] += pts
        n = self.rules.num_players
        if self.rules.next_deal == "fool_deals":
            self._dealer = result.fool if result.fool is not None else (self._dealer + 1) % n
            self.first_seat = (self._dealer + 1) % n
        else:
            self.first_seat = (self.first_seat + 1) % n

    @property
    def winners(self) -> list[int]:
        """Seats level on the top total (they share first place)."""
        best = max(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]

    def play(self, policies: list[Policy]) -> list[int]:
        """Play the remaining deals, seat s choosing with ``policies[s](view)``; returns the totals."""
        if len(policies) != self.rules.num_players:
            raise ValueError(f"play() needs one policy per seat ({self.rules.num_players}), got {len(policies)}")
        while not self.over:
            game = self.next_deal()
            play(game, seated(policies))
            if not game.is_over:
                raise RuntimeError(f"deal {len(self.results) + 1} did not end within {MOVE_LIMIT:,} moves")
            self.record(game)
        return list(self.totals)
