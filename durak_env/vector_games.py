"""The deals of one process played side by side: the core of the vector environments (``durak_env.vector``)
and of the training rollouts.

One ``step`` plays an action in every deal, then the forced moves after it, deals again where a deal
ended, and writes each deal's next decision (seat, observation, legal mask) into preallocated arrays,
which may be shared memory.  Each deal is a game object of its own, native (``durak_env.native.NativeGame``)
where the native engine is built: the vector of the environments whose deals are played one by one in Python
(``DurakVectorEnv``, whose bots read each deal's views) or whose deals have rules of their own (``tables``).  One
rule set and no bots in Python: ``durak_env.native.NativeVectorGames`` plays every deal in one native call.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .engine.actions import UNIVERSAL_DECK, layout_for, translation
from .engine.checks import is_integer
from .engine.game import Game, IllegalAction
from .engine.loop import MOVE_LIMIT, PLAYING, settle
from .native import ENGINES, NativeGame, NativeVectorGames, available
from .engine.refusal import Refusal
from .engine.rules import Rules
from .observation import ObservationEncoder, array_shapes
from .tables import Tables


class VectorGames:
    """``num_envs`` deals played side by side in this process.

    After ``reset()`` and every ``step()``, row i of the arrays describes deal i: ``obs[i]``, ``mask[i]``
    and ``seats[i]`` the decision it waits on; ``ended[i]`` / ``truncated[i]`` whether this step finished
    the deal (by its result, or by the move limit), with the final rewards of every seat in ``rewards[i]``
    (a new deal is already dealt and ``obs[i]`` is its first decision).  The arrays can be given (shared
    memory); they are written in place, never replaced.  Deal i is numbered ``first + i`` in seeds and
    in error messages.

    With ``tables`` (a ``durak_env.tables.Tables``), each deal is dealt with rules drawn from them and the
    arrays are the universal layout, the same for every table: observations ``ObservationEncoder(...,
    universal=True)``, masks and actions in the 52-card layout (``engine.actions.translation``), rewards for
    ``MAX_PLAYERS`` seats (0 past the table).  ``rules`` is then only the rules of nothing in particular.

    ``engine``: "auto" deals native games where the native engine is built, "python" the reference ``Game``s.
    """

    def __init__(self, rules: Rules, num_envs: Any, max_moves: Any = MOVE_LIMIT, arrays: dict | None = None,
                 first: int = 0, tables: Tables | None = None, engine: str = "auto"):
        if engine not in ENGINES:
            raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
        if engine == "native" and not available():
            raise ValueError("engine='native' needs the native engine built (and DURAK_PURE_PYTHON unset)")
        if not is_integer(num_envs, 1):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not is_integer(max_moves, 1):
            raise ValueError(f"max_moves must be a positive integer, got {max_moves!r}")
        self.rules: Rules = rules
        self.num_envs: int = num_envs
        self.max_moves: int = max_moves
        self.first: int = first
        self.tables: Tables | None = tables
        self.native: bool = engine != "python" and available()
        """Whether the deals are native games."""
        self.encoder = ObservationEncoder(rules, tables is not None)
        self.num_actions: int = layout_for(UNIVERSAL_DECK).size if tables is not None else self.encoder.num_actions
        self._encoders: dict[Rules, ObservationEncoder] = {rules: self.encoder}
        """The encoder of each table dealt so far (universal), the deal's rules -> it."""
        self._back: dict[int, list[int]] = {}
        """Deck size -> its action index of each 52-card layout action (-1: a card not in it)."""
        if arrays is None:
            arrays = {name: np.zeros(shape, dtype)
                      for name, (shape, dtype) in array_shapes(rules, num_envs, tables is not None).items()}
        self.obs: Any = arrays["obs"]
        self.mask: Any = arrays["mask"]
        self.seats: Any = arrays["seats"]
        self.rewards: Any = arrays["rewards"]
        self.ended: Any = arrays["ended"]
        self.truncated: Any = arrays["truncated"]
        self.games: list[Any] = []
        self.moves: list[int] = [0] * num_envs
        """Moves of each deal so far, forced ones included."""
        self.final_moves: list[int] = [0] * num_envs
        """Moves of the deal that ended (or was cut off) in the last step, where one did."""
        self.played: int = 0
        """Moves played in every deal since the vector was made."""
        self._rngs: list[random.Random] = [random.Random() for _ in range(num_envs)]
        self._flat_mask: Any = self.mask.reshape(-1)

    def reset(self, seed: int | None = None) -> None:
        """Deal every game afresh; with ``seed``, deal i is seeded as ``raw_env().reset(seed=seed + first + i)``."""
        if seed is not None:
            self._rngs = [random.Random(seed + self.first + i) for i in range(self.num_envs)]
        self.games = [self.new_deal(i) for i in range(self.num_envs)]
        self.rewards.fill(0)
        self.ended.fill(False)
        self.truncated.fill(False)
        self.write()

    def new_deal(self, i: int) -> Any:
        """A new deal for row i from the row's own random stream, its forced opening moves played and counted
        in ``moves[i]``; the caller puts it in ``games[i]``.  A deal that those moves end (a bout cap of one, a
        hand of one card: nobody had a choice) is no decision to write: the row deals again from its stream."""
        rng = self._rngs[i]
        while True:
            rules = self.rules if self.tables is None else self.tables.sample(rng)
            seed = rng.getrandbits(64)
            game = NativeGame.deal(rules, seed) if self.native else Game(rules, seed)
            self.moves[i], _ = settle(game, 0, self.max_moves)
            self.played += self.moves[i]
            if game.result is None:
                return game

    def check(self, actions: Any) -> list[int]:
        """The actions as ints, each legal in its deal; otherwise IllegalAction naming the deal (nothing played)."""
        acts = np.asarray(actions).reshape(-1)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got {np.shape(actions)} "
                                f"of {acts.dtype}", code=Refusal.NOT_AN_ACTION)
        ints: list[int] = acts.tolist()
        games = self.games
        for i in range(self.num_envs):
            game, action = games[i], ints[i]
            if self.tables is not None:
                action = ints[i] = self.from_network(game, action)
            if action not in game.legal_actions():
                code, why = game.refusal(action) or (Refusal.NOT_LEGAL, "")
                raise IllegalAction(f"deal {self.first + i}: {why}; legal: {game.legal_actions()}", action,
                                    game.legal_actions(), code)
        return ints

    def step(self, actions: Any, write: bool = True) -> None:
        """Play one action per deal (checked first: an illegal one changes nothing), the forced moves after it,
        and deal again where a deal ended; then write every deal's decision, or (``write=False``) only the
        seats to act, leaving the observations to ``write(rows)`` for the deals that need them."""
        self.play(self.check(actions), write)

    def play(self, acts: list[int], write: bool = True) -> None:
        """``step`` with actions the caller already checked, in the deals' own layouts (``SelfPlayVectorEnv``
        checks every share of its deals against the mask once, in the process that holds the actions)."""
        self.rewards.fill(0)
        self.ended.fill(False)
        self.truncated.fill(False)
        games, moves, limit = self.games, self.moves, self.max_moves
        played = 0
        for i in range(self.num_envs):
            game = games[i]
            game.play_unchecked(acts[i])
            before = moves[i]
            moves[i], end = settle(game, before + 1, limit)
            played += moves[i] - before
            if end != PLAYING:
                result = game.result
                if result is not None:  # ENDED, else CUT
                    self.rewards[i, :len(result.placings)] = result.rewards()
                    self.ended[i] = True
                else:
                    self.truncated[i] = True
                self.final_moves[i] = moves[i]
                games[i] = self.new_deal(i)
        self.played += played
        if write:
            self.write()
        else:
            self.seats[:] = _ints([g.to_act for g in games])

    def write(self, rows: list[int] | None = None) -> None:
        """Write the decision of every deal, or of the deals in ``rows``: the acting seat, its observation and
        its legal mask (the other rows of ``obs`` and ``mask`` are left as they were).  Over tables each deal
        is encoded by its table's encoder and its legal moves are translated into the 52-card layout."""
        games = self.games
        seats = [g.to_act for g in games]
        self.seats[:] = _ints(seats)
        if rows is None:
            rows = list(range(self.num_envs))
            self.mask.fill(0)
        else:
            self.mask[rows] = 0
        obs = self.obs
        for i in rows:
            self.observe(games[i], seats[i], obs[i])
        width = self.num_actions
        flat: list[int] = []
        if self.tables is None:
            for i in rows:
                base = i * width
                for a in games[i].legal_actions():
                    flat.append(base + a)
        else:  # each deal's own actions, translated into the 52-card layout
            for i in rows:
                base, into = i * width, translation(games[i].rules.deck_size)
                flat += [base + into[a] for a in games[i].legal_actions()]
        self._flat_mask[_ints(flat)] = 1

    def observe(self, game: Any, seat: int, out: Any = None) -> Any:
        """``seat``'s observation of a deal in this vector's layout, written into ``out`` (allocated if None):
        natively for a native deal, else by the reference encoder of the deal's rules."""
        if out is None:
            out = np.empty(self.obs.shape[1], np.float32)
        if isinstance(game, NativeGame):
            game.core.encode(seat, self.tables is not None, out)
        else:
            self.encoder_for(game.rules).encode_game(game, seat, out)
        return out

    def encoder_for(self, rules: Rules) -> ObservationEncoder:
        """The encoder of a deal's rules: this vector's own, or over tables the table's universal encoder (made
        once per rules; forgotten past 512 tables)."""
        encoder = self._encoders.get(rules)
        if encoder is None:
            if len(self._encoders) >= 512:
                self._encoders.clear()
            encoder = self._encoders[rules] = ObservationEncoder(rules, True)
        return encoder

    def from_network(self, game: Game, action: int) -> int:
        """A move of the 52-card layout (a universal network's) as ``game``'s own action index, or -1 where
        its deck has no such card."""
        back = self._back.get(game.rules.deck_size)
        if back is None:
            back = [-1] * self.num_actions
            for own, net in enumerate(translation(game.rules.deck_size)):
                back[net] = own
            self._back[game.rules.deck_size] = back
        return back[action] if 0 <= action < len(back) else -1

    def to_network(self, game: Game, action: int) -> int:
        """``game``'s action index as the 52-card layout's (what a bot's move is in the universal arrays)."""
        return translation(game.rules.deck_size)[action]


def _ints(values: list[int]) -> Any:
    """A list of ints as an int64 array: ``np.fromiter`` reads them one by one, several times as fast as
    numpy's conversion of a list (which first discovers its shape and type)."""
    return np.fromiter(values, np.int64, len(values))


def make_vector_games(rules: Rules, num_envs: Any, max_moves: Any = MOVE_LIMIT, arrays: dict | None = None,
                      first: int = 0, tables: Tables | None = None, engine: str = "auto", threads: Any = 1):
    """The deals of one process: ``NativeVectorGames`` where the native engine is built and the deals have one
    rule set, else ``VectorGames`` (its deals native games where the engine is built, unless ``engine`` is
    "python"; ``threads`` > 1 needs ``NativeVectorGames``)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
    native = engine != "python" and available() and tables is None
    if engine == "native" and not available():
        raise ValueError("engine='native' needs the native engine built (and DURAK_PURE_PYTHON unset)")
    if threads != 1 and not native:
        raise ValueError(f"threads={threads!r} needs the native engine (one rule set, the native engine built)")
    if native:
        return NativeVectorGames(rules, num_envs, max_moves, arrays, first, threads)
    return VectorGames(rules, num_envs, max_moves, arrays, first, tables, engine)


__all__ = ["VectorGames", "array_shapes", "make_vector_games"]
