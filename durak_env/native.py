"""The native engine: ``durak_env._native``, the rules of ``durak_env.engine`` in C++ (``native/``), built with
the package where a C++ compiler is found (setup.py), and its Python face.

The Python engine stays the reference: it says each rule once, with its seed's sentence, and the native one
plays the same deals faster.  They are checked against each other at every decision (tests/test_native.py,
``benchmarks/differential.py``): the same cards for the same seed, the same legal moves in the same order,
the same refusal codes, results, rewards and observation bytes.  Where the native engine is missing (no
compiler, ``DURAK_PURE_PYTHON=1``, a browser page) everything runs on the reference, unchanged.

``NativeVectorGames`` is ``vector_games.VectorGames`` over the native core: one call plays an action in every
deal with the GIL released and writes the same arrays.  ``make_vector_games`` picks it where it can.
"""

from __future__ import annotations

import operator
import os
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine.checks import is_integer
from .engine.game import Game, IllegalAction
from .engine.loop import MOVE_LIMIT
from .engine.refusal import Refusal
from .engine.rules import DEFENDER_LIMITS, EARLY_ENDS, NO_TRUMP_LEADS, THROW_IN, Rules
from .engine.view import BoutEnd, SeatView
from .observation import ObservationEncoder
from .tables import Tables
from .vector_games import VectorGames, array_shapes

try:
    if os.environ.get("DURAK_PURE_PYTHON"):
        raise ImportError("DURAK_PURE_PYTHON is set")
    from . import _native  # type: ignore[attr-defined]
except ImportError:
    _native = None

REFUSALS = tuple(Refusal)
"""The native engine's refusal codes are indices into this tuple (``Refusal``'s order)."""

_LEADS = ("first_seat", "redeal", "after_dealer", "seat_zero")
assert sorted(_LEADS) == sorted(NO_TRUMP_LEADS)


def available() -> bool:
    """Whether the native engine was built and may be used (``DURAK_PURE_PYTHON`` unset)."""
    return _native is not None


def engine_name() -> str:
    """"native" or "python": the engine the environments play on here."""
    return "native" if available() else "python"


def rules_fields(rules: Rules) -> list[int]:
    """The rules as the native engine takes them (native/module.cpp: ``rules_from``), field by field."""
    return [rules.num_players, rules.deck_size, rules.deal_size, THROW_IN.index(rules.throw_in),
            int(rules.throw_in_before_beaten), int(rules.transfer), rules.max_attacks, rules.max_attacks_early,
            int(rules.early_ends == "first_discard"), int(rules.defender_limit == "bout_start"),
            int(rules.throw_in_after_take), _LEADS.index(rules.no_trump_lead), int(rules.open_discard),
            -1 if rules.max_bouts is None else rules.max_bouts]


assert EARLY_ENDS == ("first_bout", "first_discard") and DEFENDER_LIMITS == ("bout_start", "current_hand")


def seed_words(seed: Any) -> list[int]:
    """How ``random.Random(seed)`` keys its generator for an integer seed: |seed| as 32-bit words, lowest first."""
    n = abs(operator.index(seed))
    words = [n & 0xFFFFFFFF]
    n >>= 32
    while n:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    return words


def native_game(rules: Rules, seed: Any, first_seat: int = 0):
    """A native deal: ``Game(rules, seed, first_seat)``'s cards, for an integer seed."""
    if _native is None:
        raise RuntimeError("the native engine is not built here")
    return _native.Game(rules_fields(rules), seed_words(seed), first_seat)


def to_native(game: Game):
    """The native copy of a reference game (its facts)."""
    if _native is None:
        raise RuntimeError("the native engine is not built here")
    return _native.Game.assemble(rules_fields(game.rules), game.trump_card, game.stock, game.hands, game.discard,
                                 game.known, [list(g) for g in game.out_groups], game.attacks, game.defences,
                                 game.attacker, game.defender, game.opener, game.passed, game.taking, game.bouts,
                                 game.first_seat)


def to_reference(native: Any, rules: Rules) -> Game:
    """The reference engine's copy of a native game: its facts assembled, and its last bout's end."""
    game = Game.assemble(rules, **native.facts())
    bout = native.last_bout
    game.last_bout = None if bout is None else BoutEnd(*bout)
    return game


def view_fields(view: SeatView) -> list:
    """A seat's view as the native search takes it (native/module.cpp: ``view_from``): only what the seat sees."""
    return [rules_fields(view.rules), view.seat, view.hand_mask, [int(a) for a, _ in view.table],
            [-1 if d is None else int(d) for _, d in view.table], int(view.trump_card), view.stock_size,
            list(view.hand_sizes), list(view.known_masks), -1 if view.discard_mask is None else view.discard_mask,
            [list(g) for g in view.out_groups], view.attacker, view.defender, view.opener,
            sum(1 << s for s in view.passed), view.taking, view.bouts, view.first_seat]


def native_mcts(view: SeatView, playouts: int | None, seconds: float | None, seed: int, exploration: float,
                rollout: str) -> tuple[int, int]:
    """``search:mcts`` from ``view`` in the native core (native/search.hpp), the GIL released: (move, playouts)."""
    if _native is None:
        raise RuntimeError("the native engine is not built here")
    return _native.mcts(*view_fields(view), playouts or 0, seconds or 0.0, seed, exploration, rollout == "heuristic")


class _Deals(Sequence):
    """The deals of a native vector as reference games, each assembled from the native facts when asked for
    (a bot's view, a deal's seat count): a copy of the moment, not a live game."""

    def __init__(self, vec: "NativeVectorGames"):
        self._vec = vec

    def __len__(self) -> int:
        return self._vec.num_envs

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        i = operator.index(i)
        if not -len(self) <= i < len(self):
            raise IndexError(f"deal {i} of {len(self)}")
        return to_reference(self._vec.core.game(i % len(self)), self._vec.rules)


class NativeVectorGames:
    """``VectorGames`` over the native core, for one rule set: the same deals for the same seeds, the same
    arrays (which may be given: shared memory), the same refusals.  ``threads`` threads of this process share
    the deals of every step (the GIL released).  ``games`` are copies assembled on demand (``_Deals``);
    everything else is as ``VectorGames`` documents it."""

    def __init__(self, rules: Rules, num_envs: Any, max_moves: Any = MOVE_LIMIT, arrays: dict | None = None,
                 first: int = 0, threads: Any = 1):
        if _native is None:
            raise RuntimeError("the native engine is not built here")
        if not is_integer(threads, 1, 256):
            raise ValueError(f"threads must be an integer from 1 to 256, got {threads!r}")
        if not is_integer(num_envs, 1):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not is_integer(max_moves, 1):
            raise ValueError(f"max_moves must be a positive integer, got {max_moves!r}")
        self.rules, self.num_envs, self.max_moves, self.first = rules, int(num_envs), int(max_moves), first
        self.tables: Tables | None = None
        self.encoder = ObservationEncoder(rules)
        self.num_actions = self.encoder.num_actions
        if arrays is None:
            arrays = {name: np.zeros(shape, dtype) for name, (shape, dtype) in array_shapes(rules, num_envs).items()}
        for name in ("obs", "mask", "seats", "rewards", "ended", "truncated"):
            setattr(self, name, arrays[name])
        self.core = _native.VectorCore(rules_fields(rules), self.num_envs, min(self.max_moves, 2**31 - 1),
                                       self.obs, self.mask, self.seats, self.rewards, self.ended, self.truncated,
                                       int(threads))
        self.core.seed([seed_words(random.getrandbits(64)) for _ in range(self.num_envs)])
        self.games = _Deals(self)

    @property
    def played(self) -> int:
        return self.core.played

    @property
    def moves(self) -> list[int]:
        return self.core.moves

    @property
    def final_moves(self) -> list[int]:
        return self.core.final_moves

    def reset(self, seed: int | None = None) -> None:
        """Deal every game afresh; with ``seed``, deal i is seeded as ``raw_env().reset(seed=seed + first + i)``."""
        if seed is not None:
            self.core.seed([seed_words(seed + self.first + i) for i in range(self.num_envs)])
        self.core.reset()

    def check(self, actions: Any) -> np.ndarray:
        """The actions as an int64 array, each legal in its deal; otherwise IllegalAction naming the deal."""
        acts = np.asarray(actions).reshape(-1)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got {np.shape(actions)} "
                                f"of {acts.dtype}", code=Refusal.NOT_AN_ACTION)
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        bad = self.core.check(acts)
        if bad >= 0:
            game, action = self.games[bad], int(acts[bad])
            code, why = game.refusal(action) or (Refusal.NOT_LEGAL, "")
            raise IllegalAction(f"deal {self.first + bad}: {why}; legal: {game.legal_actions()}", action,
                                game.legal_actions(), code)
        return acts

    def step(self, actions: Any, write: bool = True) -> None:
        self.core.play(self.check(actions), write)

    def play(self, acts: Any, write: bool = True) -> None:
        self.core.play(np.ascontiguousarray(acts, dtype=np.int64), write)

    def write(self, rows: list[int] | None = None) -> None:
        if rows is None:
            self.core.write()
        else:
            self.core.write_rows(np.asarray(rows, dtype=np.int64).reshape(-1))

    def encoder_for(self, rules: Rules) -> ObservationEncoder:
        return self.encoder

    def from_network(self, game: Game, action: int) -> int:
        return action

    def to_network(self, game: Game, action: int) -> int:
        return action


def make_vector_games(rules: Rules, num_envs: Any, max_moves: Any = MOVE_LIMIT, arrays: dict | None = None,
                      first: int = 0, tables: Tables | None = None, engine: str = "auto", threads: Any = 1):
    """The deals of one process: ``NativeVectorGames`` where the native engine is built and the deals have one
    rule set, else the reference ``VectorGames`` (``engine``: "auto", "native" or "python"; ``threads`` > 1 needs
    the native one)."""
    if engine not in ("auto", "native", "python"):
        raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
    native = engine != "python" and _native is not None and tables is None
    if engine == "native" and not native:
        raise ValueError("the native vector core needs the native engine built and one rule set (no tables)")
    if threads != 1 and not native:
        raise ValueError(f"threads={threads!r} needs the native engine (one rule set, the native engine built)")
    if native:
        return NativeVectorGames(rules, num_envs, max_moves, arrays, first, threads)
    return VectorGames(rules, num_envs, max_moves, arrays, first, tables)


__all__ = ["NativeVectorGames", "available", "engine_name", "make_vector_games", "native_game", "native_mcts",
           "rules_fields", "seed_words", "to_native", "to_reference", "view_fields"]
