"""The native engine: ``durak_env._native``, the rules of ``durak_env.engine`` in C++ (``native/``), built with
the package where a C++ compiler is found (setup.py), and its Python face.

The Python engine stays the reference: it says each rule once, with its seed's sentence, and the native one
plays the same deals faster.  They are checked against each other at every decision (tests/test_native.py,
``benchmarks/differential.py``): the same cards for the same seed, the same legal moves in the same order,
the same refusal codes, results, rewards and observation bytes.  Where the native engine is missing (no
compiler, ``DURAK_PURE_PYTHON=1``, a browser page) everything runs on the reference, unchanged.

``NativeVectorGames`` is ``vector_games.VectorGames`` over the native core: one call plays an action in every
deal with the GIL released and writes the same arrays.  ``vector_games.make_vector_games`` picks it where it can.
"""

from __future__ import annotations

import operator
import os
import random
from collections.abc import Sequence
from typing import Any

try:
    import numpy as np
except ImportError:  # a browser page (Pyodide): no numpy, no native engine; the reference plays (frontends/web/site.py)
    np = None  # type: ignore[assignment]

from .engine.actions import layout_for
from .engine.cards import CARDS, cards_of
from .engine.checks import is_integer
from .engine.game import Game, IllegalAction, Result
from .engine.loop import MOVE_LIMIT
from .engine.refusal import Refusal
from .engine.rules import DEFENDER_LIMITS, EARLY_ENDS, NO_TRUMP_LEADS, THROW_IN, Rules
from .engine.view import BoutEnd, SeatView
from .observation import ObservationEncoder
from .tables import Tables

try:
    if os.environ.get("DURAK_PURE_PYTHON") or np is None:
        raise ImportError("DURAK_PURE_PYTHON is set, or numpy is missing")
    from . import _native  # type: ignore[attr-defined]
except ImportError:
    _native = None

ENGINES = ("auto", "native", "python")
"""The engines an environment may be asked to play on: the native one where built ("auto"), or either by name."""

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


_FACT_NAMES = ("trump_card", "stock", "hands", "discard", "known", "out_groups", "attacks", "defences", "attacker",
               "defender", "opener", "passed", "taking", "bouts", "first_seat")


class NativeGame:
    """One deal played by the native engine behind the reference ``Game``'s interface: the environments' game where
    the native engine is built (``new_game``).

    It plays (``step``, ``play_unchecked``, ``play_forced``), answers ``legal_actions``, ``to_act`` and ``result``
    natively, and writes observations and masks natively (``observe``).  The stored facts
    (``hands``, ``attacks``...) are read from the native game once per position; views, snapshots and a refused
    move's words come from the reference engine, through a copy assembled from those facts (``reference``), so
    that a refusal says exactly what the reference says.  Every other public name of ``Game`` (``cap``,
    ``throwers``, ``next_in``...) is answered by that copy too (``_by_reference``, below the class): named, not
    through ``__getattr__``, which would slow every attribute read of the AEC environment's step.  Read-only:
    change a position through moves, or build a reference ``Game``."""

    __slots__ = {
        "rules": "The deal's rules.", "n": "Its seats.", "layout": "Its actions' layout.", "core": "The native game.",
        "to_act": "The seat the position waits on, -1 once the deal is over (kept here: read on every step).",
        "observe": "observe(seat) -> (observation, mask): ``seat``'s observation and legal-action mask in the rules' "
                   "own layout (``ObservationEncoder(rules)``'s ``encode_game`` and ``mask_game``), written in one "
                   "native call into fresh arrays.  The native game's own method: no Python call on the way.",
        "_facts": None, "_reference": None, "_result": None}

    def __init__(self, rules: Rules, core: Any):
        self.rules, self.n, self.core = rules, rules.num_players, core
        self.to_act: int = core.to_act
        self.observe = core.observe
        self.layout = layout_for(rules.deck_size)
        self._facts = self._reference = self._result = None  # read of this position, when first asked for

    @classmethod
    def deal(cls, rules: Rules, seed: Any, first_seat: Any = 0) -> "NativeGame | Game":
        """``Game(rules, seed, first_seat)``'s deal: native for an integer seed, else (None: a fresh seed from the
        system, a string) the reference's deal carried over."""
        if not is_integer(first_seat, 0, rules.num_players - 1):
            Game(rules, 0, first_seat)  # the reference's refusal, word for word
        if is_integer(seed):
            return cls(rules, _native.Game(rules_fields(rules), seed_words(seed), int(first_seat)))
        return cls.of(Game(rules, seed, first_seat))

    @classmethod
    def of(cls, game: Game) -> "NativeGame":
        native = cls(game.rules, to_native(game))
        return native

    def _moved(self, to_act: int) -> None:
        """After a move: the seat to act now (-1 once the deal is over), and what was read of the position before
        it forgotten."""
        self.to_act = to_act
        self._facts = self._reference = self._result = None

    # ----- playing ------------------------------------------------------------------------
    def step(self, action: Any, seat: Any = None) -> None:
        """``Game.step``: the action for the seat to act; an illegal one raises the reference's IllegalAction
        (its code and words) and changes nothing."""
        if seat is None and (type(action) is int or isinstance(action, np.integer)) and -2**63 <= action < 2**63:
            to_act = self.core.try_play(int(action))
            if to_act != -2:
                self.to_act = to_act  # _moved, inline: the AEC environment's every step
                self._facts = self._reference = self._result = None
                return
        reference = self.reference()
        reference.step(action, seat)  # raises IllegalAction, as it must: the native engine did not find it legal
        raise AssertionError(f"the engines disagree: the reference plays {action!r} here, the native engine refused it")

    def play_unchecked(self, action: Any) -> None:
        self._moved(self.core.play(operator.index(action)))

    def play_forced(self, limit: int = 2**62) -> list[tuple[int, int]]:
        played = self.core.play_forced(limit if limit < 2**62 else 2**62)
        if played:
            self._moved(self.core.to_act)
        return played

    def legal_actions(self) -> tuple[int, ...]:
        return self.core.legal_actions()

    # ----- reading ------------------------------------------------------------------------
    @property
    def result(self) -> Result | None:
        if self._result is None and self.to_act < 0:
            self._result = Result(*self.core.result)
        return self._result

    @property
    def is_over(self) -> bool:
        return self.to_act < 0

    @property
    def last_bout(self) -> BoutEnd | None:
        bout = self.core.last_bout
        return None if bout is None else BoutEnd(*bout)

    @property
    def limit(self) -> int:
        return self.core.limit

    def facts(self) -> dict[str, Any]:
        """The stored facts as the reference holds them (``Game.assemble``'s names), read once per position."""
        if self._facts is None:
            self._facts = self.core.facts()
        return self._facts

    def reference(self) -> Game:
        """The reference engine's copy of this position (assembled once per position)."""
        if self._reference is None:
            game = Game.assemble(self.rules, **self.facts())
            game.last_bout = self.last_bout
            self._reference = game
        return self._reference

    @property
    def trump(self) -> int:
        return self.trump_card // 13

    @property
    def table(self) -> list:
        return [(CARDS[a], None if d < 0 else CARDS[d]) for a, d in zip(self.attacks, self.defences)]

    @property
    def out(self) -> list[int]:
        return [s for group in self.out_groups for s in group]

    def hand(self, seat: Any) -> list:
        return [CARDS[c] for c in cards_of(self.hands[seat])]

    def hand_size(self, seat: Any) -> int:
        return self.hands[seat].bit_count()

    def view(self, seat: Any) -> SeatView:
        """What ``seat`` can know (``Game.view``), read from the native facts."""
        return SeatView.of(self, seat)

    def refusal(self, action: Any):
        return self.reference().refusal(action)

    def why_not(self, action: Any) -> str | None:
        return self.reference().why_not(action)

    def to_dict(self) -> dict[str, Any]:
        return self.reference().to_dict()

    def clone(self) -> "NativeGame":
        return NativeGame(self.rules, self.core.clone())


def _fact(name: str) -> property:
    return property(lambda game: game.facts()[name], doc=f"The stored fact ``{name}`` (``Game.assemble``'s).")


def _by_reference(name: str) -> property:
    return property(lambda game: getattr(game.reference(), name), doc=f"``Game.{name}``, of the reference copy.")


for _name in _FACT_NAMES:
    setattr(NativeGame, _name, _fact(_name))
for _name in sorted({*Game.__slots__, *vars(Game)} - set(vars(NativeGame))):
    if not _name.startswith("_") and not isinstance(vars(Game).get(_name), (classmethod, staticmethod)):
        setattr(NativeGame, _name, _by_reference(_name))


def new_game(rules: Rules, seed: Any = None, first_seat: Any = 0) -> "NativeGame | Game":
    """A deal for the environments: native where the native engine is built, else the reference ``Game``."""
    if _native is None:
        return Game(rules, seed, first_seat)
    return NativeGame.deal(rules, seed, first_seat)


def carried(game: Game) -> "NativeGame | Game":
    """A reference game (a restored snapshot) for the environments: its native copy where the engine is built."""
    return game if _native is None else NativeGame.of(game)


class _Deals(Sequence):
    """The deals of a native vector, each a ``NativeGame`` copy of the moment when asked for (a bot's view, a
    deal's seat count), not a live game."""

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
        return NativeGame(self._vec.rules, self._vec.core.game(i % len(self)))


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
        self._shape = (self.num_envs,)
        self.tables: Tables | None = None
        self.encoder = ObservationEncoder(rules)
        self.num_actions = self.encoder.num_actions
        if arrays is None:
            from .observation import array_shapes

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
        acts = self._ints(actions)
        self._refuse(self.core.check(acts), acts)
        return acts

    def _ints(self, actions: Any) -> np.ndarray:
        """The actions as a contiguous int64 array, one per deal; IllegalAction (not an action) otherwise."""
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == self._shape \
                and actions.flags.c_contiguous:
            return actions  # a policy's argmax, as it comes
        acts = np.asarray(actions).reshape(-1)
        if acts.shape != self._shape or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got {np.shape(actions)} "
                                f"of {acts.dtype}", code=Refusal.NOT_AN_ACTION)
        return np.ascontiguousarray(acts, dtype=np.int64)

    def _refuse(self, bad: int, acts: np.ndarray) -> None:
        """IllegalAction for deal ``bad``'s action, in the reference's words (nothing where ``bad`` is -1)."""
        if bad >= 0:
            game, action = self.games[bad], int(acts[bad])
            code, why = game.refusal(action) or (Refusal.NOT_LEGAL, "")
            raise IllegalAction(f"deal {self.first + bad}: {why}; legal: {game.legal_actions()}", action,
                                game.legal_actions(), code)

    def step(self, actions: Any, write: bool = True) -> None:
        """Play one action per deal (each checked by the core first: an illegal one changes nothing)."""
        acts = self._ints(actions)
        try:
            self.core.play(acts, write)
        except ValueError:
            self._refuse(self.core.check(acts), acts)
            raise

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


__all__ = ["ENGINES", "NativeGame", "NativeVectorGames", "carried", "new_game", "available", "engine_name", "native_game", "native_mcts",
           "rules_fields", "seed_words", "to_native", "to_reference", "view_fields"]
