"""Many deals stepped as one batch: observations and masks written into preallocated arrays, finished
deals dealt again at once, rewards and ends returned as arrays.

Two faces over one core (``VectorGames``, the deals of one process):

* ``SelfPlayVectorEnv``: every deal's pending decision, whichever seat it belongs to, comes out in one
  batch (``obs``, ``mask`` and ``seats``, one row per deal); ``step(actions)`` plays one action per deal.
  This is what self-play training needs: the trainer decides who plays which seat.  With ``workers=k``
  the deals are split over k processes that write into shared memory.
* ``DurakVectorEnv``: a Gymnasium ``VectorEnv`` for a learner at one seat of every deal, with bots at the
  others (as ``DurakGymEnv``, batched): ``gymnasium.make_vec``-style arrays, autoreset in the same step.

Both play forced moves (a seat with exactly one legal move) themselves, as the AEC environment does,
and cut a deal off after ``max_moves`` moves.  Deal ``i`` of ``reset(seed=s)`` and the deals that follow it
are the deals of ``raw_env().reset(seed=s + i)`` and its later resets, so a vector environment and
AEC environments given the same actions produce the same observations, masks and rewards
(tests/test_vector.py steps both).
"""

from __future__ import annotations

import multiprocessing as mp
import random
from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .cores import usable_cores
from .engine.game import Game, IllegalAction
from .engine.loop import MOVE_LIMIT, play, seated
from .engine.rules import Rules
from .environment import make_rules
from .observation import ObservationEncoder
from .registration import make_named_bot


class VectorGames:
    """``num_envs`` deals played side by side in this process.

    After ``reset()`` and every ``step()``, row i of the arrays describes deal i: ``obs[i]``, ``mask[i]``
    and ``seats[i]`` the decision it waits on; ``ended[i]`` / ``truncated[i]`` whether this step finished
    the deal (by its result, or by the move limit), with the final rewards of every seat in ``rewards[i]``
    (a new deal is already dealt and ``obs[i]`` is its first decision).  The arrays can be given (shared
    memory); they are written in place, never replaced.
    """

    def __init__(self, rules: Rules, num_envs: int, max_moves: int = MOVE_LIMIT, arrays: dict | None = None,
                 first: int = 0):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise ValueError(f"max_moves must be a positive integer, got {max_moves!r}")
        self.rules, self.num_envs, self.max_moves, self.first = rules, num_envs, max_moves, first
        self.encoder = ObservationEncoder(rules)
        self.num_actions = self.encoder.num_actions
        shapes = array_shapes(rules, num_envs)
        arrays = arrays or {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
        self.obs, self.mask, self.seats = arrays["obs"], arrays["mask"], arrays["seats"]
        self.rewards, self.ended, self.truncated = arrays["rewards"], arrays["ended"], arrays["truncated"]
        self.games: list[Game] = []
        self.moves = [0] * num_envs
        """Moves of each deal so far, forced ones included."""
        self.final_moves = [0] * num_envs
        """Moves of the deal that ended (or was cut off) in the last step, where one did."""
        self.played = 0
        """Moves played in every deal since the vector was made."""
        self._rngs = [random.Random() for _ in range(num_envs)]
        self._flat_mask = self.mask.reshape(-1)

    def reset(self, seed: int | None = None) -> None:
        """Deal every game afresh; with ``seed``, deal i is seeded as ``raw_env().reset(seed=seed + first + i)``."""
        if seed is not None:
            self._rngs = [random.Random(seed + self.first + i) for i in range(self.num_envs)]
        self.games = [self._deal(i) for i in range(self.num_envs)]
        self.rewards.fill(0)
        self.ended.fill(False)
        self.truncated.fill(False)
        self.write()

    def _deal(self, i: int) -> Game:
        game = Game(self.rules, seed=self._rngs[i].getrandbits(64))
        self.moves[i] = len(game.play_forced())
        self.played += self.moves[i]
        return game

    def check(self, actions) -> list[int]:
        """The actions as ints, each legal in its deal; otherwise IllegalAction naming the deal (nothing played)."""
        acts = np.asarray(actions).reshape(-1)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got {np.shape(actions)} "
                                f"of {acts.dtype}")
        acts = acts.tolist()
        for i, (game, action) in enumerate(zip(self.games, acts)):
            if action not in game.legal_actions():
                raise IllegalAction(f"deal {self.first + i}: {game.why_not(action)}; legal: {game.legal_actions()}",
                                    action, game.legal_actions())
        return acts

    def step(self, actions, write: bool = True) -> None:
        """Play one action per deal (checked first: an illegal one changes nothing), the forced moves after it,
        and deal again where a deal ended; then write every deal's decision, or (``write=False``) only the
        seats to act, leaving the observations to ``write(rows)`` for the deals that need them."""
        acts = self.check(actions)
        self.rewards.fill(0)
        self.ended.fill(False)
        self.truncated.fill(False)
        games, moves, limit = self.games, self.moves, self.max_moves
        played = 0
        for i, (game, action) in enumerate(zip(games, acts)):
            game.play_unchecked(action)
            count = 1 + len(game.play_forced())
            moves[i] += count
            played += count
            if game.result is not None:
                self.rewards[i] = game.result.rewards()
                self.ended[i] = True
                self.final_moves[i] = moves[i]
                games[i] = self._deal(i)
            elif moves[i] >= limit:
                self.truncated[i] = True
                self.final_moves[i] = moves[i]
                games[i] = self._deal(i)
        self.played += played
        if write:
            self.write()
        else:
            self.seats[:] = [g.to_act for g in games]

    def write(self, rows: list[int] | None = None) -> None:
        """Write the decision of every deal, or of the deals in ``rows``: the acting seat, its observation and
        its legal mask (the other rows of ``obs`` and ``mask`` are left as they were)."""
        games = self.games
        seats = [g.to_act for g in games]
        self.seats[:] = seats
        width = self.num_actions
        if rows is None:
            self.encoder.encode_games(games, seats, self.obs)
            flat = [i * width + a for i, g in enumerate(games) for a in g.legal_actions()]
            self.mask.fill(0)
        else:
            if not rows:
                return
            picked = [games[i] for i in rows]
            self.obs[rows] = self.encoder.encode_games(picked, [seats[i] for i in rows],
                                                       np.empty((len(rows), self.obs.shape[1]), np.float32))
            flat = [i * width + a for i in rows for a in games[i].legal_actions()]
            self.mask[rows] = 0
        self._flat_mask[flat] = 1


def array_shapes(rules: Rules, num_envs: int) -> dict[str, tuple[tuple[int, ...], type]]:
    enc = ObservationEncoder(rules)
    return {"obs": ((num_envs, enc.size), np.float32), "mask": ((num_envs, enc.num_actions), np.int8),
            "seats": ((num_envs,), np.int64), "rewards": ((num_envs, rules.num_players), np.float32),
            "ended": ((num_envs,), np.bool_), "truncated": ((num_envs,), np.bool_),
            "actions": ((num_envs,), np.int64)}


class SelfPlayVectorEnv:
    """Every deal's pending decision, whichever seat it is, as one batch (see the module docstring).

        venv = SelfPlayVectorEnv("podkidnoy", num_envs=256, workers=2)
        venv.reset(seed=0)
        while training:
            actions = policy(venv.obs, venv.mask, venv.seats)       # one action per deal
            venv.step(actions)                                      # venv.rewards / ended / truncated

    ``obs`` (float32 [N, size]), ``mask`` (int8 [N, actions]), ``seats`` (int64 [N]), ``rewards`` (float32
    [N, players]), ``ended`` and ``truncated`` (bool [N]) are read-only views, rewritten in place by every
    ``reset``/``step`` (copy what you keep).  ``workers`` processes (default 1: this process; "auto": the
    cores this process may use) each own a share of the deals and write into shared memory; they wait on a
    pipe, never spin.  An illegal action raises IllegalAction naming the deal, and nothing is played.
    """

    def __init__(self, rules: Rules | dict | str | None = None, num_envs: int = 64, workers: int | str = 1,
                 max_moves: int = MOVE_LIMIT):
        self.rules = make_rules(rules)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if workers == "auto":
            workers = usable_cores()
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer or 'auto', got {workers!r}")
        self.num_envs, self.workers = num_envs, min(workers, num_envs)
        enc = ObservationEncoder(self.rules)
        self.num_actions, self.obs_size = enc.num_actions, enc.size
        self.observation_space = spaces.Box(0.0, 1.0, (enc.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(enc.num_actions)
        self._procs, self._conns = [], []
        if self.workers == 1:
            self._local = VectorGames(self.rules, num_envs, max_moves)
            arrays = {name: getattr(self._local, name) for name in ("obs", "mask", "seats", "rewards", "ended",
                                                                   "truncated")}
        else:
            self._local = None
            arrays = self._start_workers(max_moves)
        for name, array in arrays.items():
            view = array.view()
            view.flags.writeable = False  # the caller reads; the deals write
            setattr(self, name, view)

    def _start_workers(self, max_moves: int) -> dict[str, np.ndarray]:
        ctx = mp.get_context("spawn")
        shapes = array_shapes(self.rules, self.num_envs)
        raw = {name: ctx.RawArray("b", int(np.prod(shape)) * np.dtype(dtype).itemsize)
               for name, (shape, dtype) in shapes.items()}
        views = {name: np.frombuffer(raw[name], dtype=dtype).reshape(shape) for name, (shape, dtype) in shapes.items()}
        self._actions = views.pop("actions")
        bounds = np.linspace(0, self.num_envs, self.workers + 1).astype(int)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, self.rules.to_dict(), self.num_envs, int(lo), int(hi),
                                                     max_moves, raw), daemon=True)
            proc.start()
            child.close()
            self._procs.append(proc)
            self._conns.append(parent)
        return views

    def _ask(self, message: tuple) -> None:
        """Send every worker the message and wait for each to answer (blocking on its pipe: no spinning)."""
        if not self._conns:
            raise RuntimeError("the vector environment is closed")
        try:
            for conn in self._conns:
                conn.send(message)
            replies = [conn.recv() for conn in self._conns]
        except (EOFError, OSError):
            codes = [proc.exitcode for proc in self._procs]
            self.close()
            raise RuntimeError(f"a vector environment worker died (exit codes {codes}); the environment is "
                               "closed") from None
        for reply in replies:
            if reply is not None:
                raise RuntimeError(f"a vector environment worker failed: {reply}")

    def reset(self, seed: int | None = None):
        """Deal every game afresh; returns ``(obs, mask, seats)``."""
        if self._local is not None:
            self._local.reset(seed)
        else:
            self._ask(("reset", seed))
        return self.obs, self.mask, self.seats

    def step(self, actions):
        """Play one action per deal; returns ``(obs, mask, seats, rewards, ended, truncated)``."""
        if self._local is not None:
            self._local.step(actions)
        else:
            acts = np.asarray(actions).reshape(-1)
            if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
                raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got "
                                    f"{np.shape(actions)} of {acts.dtype}")
            ok = (acts >= 0) & (acts < self.num_actions)
            ok[ok] = self.mask[np.flatnonzero(ok), acts[ok]] == 1
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise IllegalAction(f"deal {i}: action {int(acts[i])} is not legal; legal: "
                                    f"{np.flatnonzero(self.mask[i]).tolist()}", int(acts[i]),
                                    tuple(np.flatnonzero(self.mask[i]).tolist()))
            self._actions[:] = acts
            self._ask(("step",))
        return self.obs, self.mask, self.seats, self.rewards, self.ended, self.truncated

    def games(self) -> list[Game]:
        """The deals themselves (in-process only: ``workers=1``), e.g. to hand a bot ``games()[i].view(seat)``."""
        if self._local is None:
            raise RuntimeError("the deals live in the worker processes; use workers=1 to reach them")
        return self._local.games

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._procs, self._conns = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "_procs", None):
            self.close()


def _worker(conn, rules_dict: dict, num_envs: int, lo: int, hi: int, max_moves: int, raw: dict) -> None:
    """A worker process: deals lo..hi of the batch, written into the shared arrays; one message a step."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    rules = Rules.from_dict(rules_dict)
    shapes = array_shapes(rules, num_envs)
    views = {name: np.frombuffer(raw[name], dtype=dtype).reshape(shape)[lo:hi]
             for name, (shape, dtype) in shapes.items()}
    games = VectorGames(rules, hi - lo, max_moves, arrays=views, first=lo)
    actions = views["actions"]
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        try:
            if message[0] == "reset":
                games.reset(message[1])
            else:
                games.step(actions)
            conn.send(None)
        except Exception as err:  # reported to the parent, which raises it
            conn.send(f"{type(err).__name__}: {err}")


class DurakVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv``: the learner at one seat of each of ``num_envs`` deals (``seat=k`` or
    ``"random"``, drawn per deal), bots at the other seats (names, bot objects, or one per other seat, as
    ``DurakGymEnv`` takes them).  Observations are ``{"observation": float32 [N, size], "action_mask": int8
    [N, actions]}``; the learner's reward comes when its deal ends.  Autoreset happens in the same step
    (``AutoresetMode.SAME_STEP``): an ended deal's last observation is in ``infos["final_obs"]`` and the
    returned observation is the new deal's first.  Equal to ``num_envs`` ``DurakGymEnv``s, batched."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, rules=None, opponents: Any = "heuristic", seat: int | str = "random",
                 max_moves: int = MOVE_LIMIT):
        from .gym_env import _make_opponents

        self.rules = make_rules(rules)
        n = self.rules.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat from 0 to {n - 1}, got {seat!r}")
        self.core = VectorGames(self.rules, num_envs, max_moves)
        self.num_envs, self.seat_choice, self.max_moves = num_envs, seat, max_moves
        self.opponents = [_make_opponents(opponents, n - 1, self.rules) for _ in range(num_envs)]
        enc = self.core.encoder
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (enc.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (enc.num_actions,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(enc.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self.learner = [0] * num_envs
        self._policies: list[list] = [[None] * n for _ in range(num_envs)]
        self._seat_rng = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"DurakVectorEnv.reset takes no options, got {sorted(options)}")
        if seed is not None:
            self._seat_rng = np.random.default_rng(seed)
        self.core.reset(seed)
        for i in range(self.num_envs):
            self._start(i, seed)
        self.core.write()
        return self._obs(), {}

    def _start(self, i: int, seed: int | None) -> None:
        """Seat the learner and the bots of deal i, then let the bots play up to the learner's turn."""
        n = self.rules.num_players
        learner = int(self._seat_rng.integers(n)) if self.seat_choice == "random" else self.seat_choice
        self.learner[i] = learner
        policies = [None] * n
        for k, bot in enumerate(self.opponents[i], 1):
            bot.reset(None if seed is None else seed * 7919 + i * 13 + k)
            policies[(learner + k) % n] = bot.act
        self._policies[i] = policies
        self._play_bots(i)
        game = self.core.games[i]
        if game.result is not None or self.core.moves[i] >= self.max_moves:
            # The deal ended before the learner had a choice (every move of its forced): it teaches nothing.
            self.core.games[i] = self.core._deal(i)
            self._start(i, None)

    def _play_bots(self, i: int) -> None:
        core, game = self.core, self.core.games[i]
        learner = self.learner[i]
        core.moves[i] += play(game, seated(self._policies[i]), until=lambda g: g.to_act == learner,
                              limit=max(0, self.max_moves - core.moves[i]))

    def step(self, actions):
        core = self.core
        acts = core.check(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        final: dict[int, dict] = {}
        for i, (game, action) in enumerate(zip(core.games, acts)):
            game.play_unchecked(action)
            core.moves[i] += 1
            self._play_bots(i)
            over, cut = game.result is not None, core.moves[i] >= self.max_moves
            if over or cut:
                learner = self.learner[i]
                final[i] = {"observation": core.encoder.encode_game(game, learner),
                            "action_mask": core.encoder.mask_game(game, learner)}
                rewards[i] = game.result.rewards()[learner] if over else 0.0
                terminated[i], truncated[i] = over, not over
                core.games[i] = core._deal(i)
                self._start(i, None)
        core.write()
        infos: dict = {}
        if final:
            infos = {"final_obs": np.array([final.get(i) for i in range(self.num_envs)], dtype=object),
                     "_final_obs": np.array([i in final for i in range(self.num_envs)])}
        return self._obs(), rewards, terminated, truncated, infos

    def _obs(self) -> dict[str, np.ndarray]:
        """The learner's decision in every deal (the core wrote the acting seat's: the learner's, here)."""
        return {"observation": self.core.obs.copy(), "action_mask": self.core.mask.copy()}

    def close_extras(self, **kwargs) -> None:
        pass


__all__ = ["DurakVectorEnv", "SelfPlayVectorEnv", "VectorGames"]
