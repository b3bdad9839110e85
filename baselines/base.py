"""The one interface every bot has, trained policies included.

A bot is handed a seat's read-only view (``env.unwrapped.view(agent)`` or
``game.view(seat)``), which holds the legal actions, and returns an action
index.  It never sees the game itself, so it cannot read a hidden card.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from durak_env.engine.view import SeatView


@runtime_checkable
class Bot(Protocol):
    name: str

    def act(self, view: SeatView) -> int:
        """The action to play: one of ``view.legal_actions``."""

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game or match), reseeding any randomness."""


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> int:
        return self.rng.choice(view.legal_actions)
