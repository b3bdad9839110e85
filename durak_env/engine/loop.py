"""The one game loop: play a deal on, asking a chooser for every real decision, under one move limit.

Everything that plays deals goes through ``play``: the evaluator, the search bots'
rollouts, the teacher games of the warm start, ``durak demo``, terminal and browser
play, ``Match`` and the Gymnasium environment's opponents.  A seat with exactly one
legal move (a take with nothing that beats, a "done" with nothing to add) is not
asked: the move is played for it, as the environments do (``Game.play_forced``).
"""

from __future__ import annotations

from typing import Callable, Sequence

from .game import Game
from .view import SeatView

MOVE_LIMIT = 10_000
"""Moves after which a deal is cut off.  A random 2-player deal takes about 110 moves and a deal under
a bout cap ends long before this; only a deal without a cap can cycle (three seats that always take,
docs/rules.md), and the environments truncate such an episode here."""

Chooser = Callable[[Game], int]
"""Picks the move of the seat to act.  Bots are never handed the game: ``seated`` wraps them."""


def seated(policies: Sequence[Callable[[SeatView], int] | None]) -> Chooser:
    """A chooser that asks the seat to act through its own view: ``policies[seat](game.view(seat))``."""

    def choose(game: Game) -> int:
        seat = game.to_act
        return policies[seat](game.view(seat))

    return choose


def play(game: Game, choose: Chooser, *, until: Callable[[Game], bool] | None = None,
         on_move: Callable[[int, int, bool], None] | None = None, limit: int = MOVE_LIMIT,
         checked: bool = True) -> int:
    """Play ``game`` on until it ends; returns the moves played.

    ``choose(game)`` picks every move that is a real choice; forced moves are played without asking.
    The loop stops early when ``until(game)`` is true before a real choice (a human's turn, the
    learner's turn) or after ``limit`` moves.  ``on_move(seat, action, forced)`` hears of every move
    once it is played.  A chosen move is checked (``IllegalAction``, the game unchanged) unless
    ``checked`` is off, for rollouts whose chooser picks from the legal set.
    """
    moves = 0
    while game.result is None and moves < limit:
        legal = game.legal_actions()
        seat = game.to_act
        if len(legal) == 1:
            action, forced = legal[0], True
            game.play_unchecked(action)
        else:
            if until is not None and until(game):
                break
            action, forced = choose(game), False
            if checked:
                game.step(action)
            else:
                game.play_unchecked(action)
        moves += 1
        if on_move is not None:
            on_move(seat, action, forced)
    return moves


__all__ = ["MOVE_LIMIT", "Chooser", "play", "seated"]
