"""The one game loop: play a deal on, asking a chooser for every real decision, under one move limit.

Everything that plays deals goes through ``play``: the evaluator, the search bots'
rollouts, the teacher games of the warm start, ``durak demo``, terminal and browser
play, ``Match`` and the Gymnasium environment's opponents.  A seat with exactly one
legal move (a take with nothing that beats, a "done" with nothing to add) is not
asked: the move is played for it, as the environments do (``Game.play_forced``).

Every environment ends its step through ``settle``: after the move it was given, the
forced moves (and, where bots hold the other seats, their moves until the learner's
turn), then whether the deal ended, was cut off at the move limit, or goes on
(``ending``).  What an environment does with that (rewards, a new deal) is its own.
"""

from __future__ import annotations

from typing import Any, Callable, Final, Sequence

from .view import SeatView

MOVE_LIMIT = 10_000
"""Moves after which a deal is cut off.  A random 2-player deal takes about 110 moves and a deal under
a bout cap ends long before this; only a deal without a cap can cycle (three seats that always take,
docs/rules.md), and the environments truncate such an episode here."""

PLAYING: Final = 0
"""``ending``: the deal goes on."""
ENDED: Final = 1
"""``ending``: the deal has its result."""
CUT: Final = 2
"""``ending``: the deal reached the move limit without a result; nobody scores."""

Deal = Any
"""A deal the loop plays: the reference ``Game``, or anything with its interface (the native engine's
``durak_env.native.NativeGame``)."""

Chooser = Callable[[Deal], int]
"""Picks the move of the seat to act.  Bots are never handed the game: ``seated`` wraps them."""


def seated(policies: Sequence[Callable[[SeatView], int] | None]) -> Chooser:
    """A chooser that asks the seat to act through its own view: ``policies[seat](game.view(seat))``."""

    def choose(game: Deal) -> int:
        seat = game.to_act
        policy = policies[seat]
        if policy is None:
            raise ValueError(f"seat {seat} is to act and has no policy")
        return policy(game.view(seat))

    return choose


def play(game: Deal, choose: Chooser, *, until: Callable[[Deal], bool] | None = None,
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


def ending(game: Deal, moves: int, limit: int) -> int:
    """How the deal stands after ``moves`` moves under a limit of ``limit``: ENDED, CUT or PLAYING."""
    if game.result is not None:
        return ENDED
    return CUT if moves >= limit else PLAYING


def settle(game: Deal, moves: int, limit: int, choose: Chooser | None = None,
           until: Callable[[Deal], bool] | None = None, played: list[tuple[int, int]] | None = None) -> tuple[int, int]:
    """The end of an environment's step, after a move that made the deal's count ``moves``: play the forced
    moves, and with ``choose`` every other move too until ``until`` holds at a real choice (bots in the
    other seats, the learner's turn), never past ``limit`` moves in all; ``played`` (a list) gets the
    ``(seat, action)`` of each move played here.  Returns the deal's moves so far and its ``ending``: every
    environment cuts a deal off at exactly ``limit`` moves, forced ones counted."""
    if choose is None:
        forced = game.play_forced(limit - moves if moves < limit else 0)
        if played is not None:
            played += forced
        moves += len(forced)
    else:
        heard = None if played is None else lambda seat, action, _: played.append((seat, action))
        moves += play(game, choose, until=until, on_move=heard, limit=max(0, limit - moves))
    return moves, ending(game, moves, limit)


__all__ = ["CUT", "ENDED", "MOVE_LIMIT", "PLAYING", "Chooser", "Deal", "ending", "play", "seated", "settle"]
