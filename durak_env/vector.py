"""Many deals stepped as one batch: observations and masks written into preallocated arrays, finished
deals dealt again at once, rewards and ends returned as arrays.

Two faces over one core (``durak_env.vector_games.VectorGames``, the deals of one process):

* ``SelfPlayVectorEnv``: every deal's pending decision, whichever seat it belongs to, comes out in one
  batch (``obs``, ``mask`` and ``seats``, one row per deal); ``step(actions)`` plays one action per deal.
  This is what self-play training needs: the trainer decides who plays which seat.  With ``workers=k``
  the deals are split over k processes that write into shared memory: this one and k - 1 helpers.
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
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .cores import usable_cores
from .engine.checks import is_integer
from .engine.game import Game, IllegalAction
from .engine.loop import CUT, ENDED, MOVE_LIMIT, PLAYING, seated, settle
from .engine.refusal import Refusal
from .engine.rules import Rules
from .engine.seeds import derive_seed
from .environment import make_rules
from .observation import ObservationEncoder
from .vector_games import VectorGames, array_shapes, make_vector_games
from .workers import WorkerGone, Workers, ignore_interrupts


class SelfPlayVectorEnv:
    """Every deal's pending decision, whichever seat it is, as one batch (see the module docstring).

        venv = SelfPlayVectorEnv("podkidnoy", num_envs=256, workers=2)
        venv.reset(seed=0)
        while training:
            actions = policy(venv.obs, venv.mask, venv.seats)       # one action per deal
            venv.step(actions)                                      # venv.rewards / ended / truncated

    ``obs`` (float32 [N, size]), ``mask`` (int8 [N, actions]), ``seats`` (int64 [N]), ``rewards`` (float32
    [N, players]), ``ended`` and ``truncated`` (bool [N]) are read-only views, rewritten in place by every
    ``reset``/``step`` (copy what you keep).  ``workers`` (default 1; "auto": the cores this process may
    use) is how many processes play the deals: this one plays the first share and ``workers - 1`` helper
    processes the others, all writing into shared memory.  The helpers wait on a pipe, never spin.  An
    illegal action raises IllegalAction naming the deal, and nothing is played.  ``engine`` ("auto", "native"
    or "python") is the engine that plays the deals: the native one where it is built (``durak_env.native``),
    which deals and plays the same games as the Python reference, several times as fast; with it, ``threads``
    threads in each process share its deals (the GIL released).
    """

    def __init__(self, rules: Rules | dict | str | None = None, num_envs: int = 64, workers: int | str = 1,
                 max_moves: int = MOVE_LIMIT, engine: str = "auto", threads: int = 1):
        self.rules = make_rules(rules)
        self.engine, self.threads = engine, threads
        if not is_integer(num_envs, 1):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if workers == "auto":
            workers = usable_cores()
        if not is_integer(workers, 1):
            raise ValueError(f"workers must be a positive integer or 'auto', got {workers!r}")
        self.num_envs, self.workers = num_envs, min(workers, num_envs)
        enc = ObservationEncoder(self.rules)
        self.num_actions, self.obs_size = enc.num_actions, enc.size
        self.observation_space = spaces.Box(0.0, 1.0, (enc.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(enc.num_actions)
        self._helpers: Workers | None = None
        if self.workers == 1:
            self._local = make_vector_games(self.rules, num_envs, max_moves, engine=engine, threads=threads)
            arrays = {name: getattr(self._local, name) for name in ("obs", "mask", "seats", "rewards", "ended",
                                                                   "truncated")}
        else:
            arrays = self._start_helpers(max_moves)
        for name, array in arrays.items():
            view = array.view()
            view.flags.writeable = False  # the caller reads; the deals write
            setattr(self, name, view)

    def _start_helpers(self, max_moves: int) -> dict[str, np.ndarray]:
        """Shared arrays for every deal; this process's deals on the first rows, a helper process for each
        other share."""
        ctx = mp.get_context("spawn")
        shapes = array_shapes(self.rules, self.num_envs)
        raw = {name: ctx.RawArray("b", int(np.prod(shape)) * np.dtype(dtype).itemsize)
               for name, (shape, dtype) in shapes.items()}
        views = {name: np.frombuffer(raw[name], dtype=dtype).reshape(shape) for name, (shape, dtype) in shapes.items()}
        bounds = np.linspace(0, self.num_envs, self.workers + 1).astype(int).tolist()
        self._own, self._bounds = bounds[1], bounds
        self._local = make_vector_games(self.rules, self._own, max_moves,
                                        arrays={name: view[:self._own] for name, view in views.items()},
                                        engine=self.engine, threads=self.threads)
        self._actions = views.pop("actions")
        self._helpers = Workers(_helper, [(self.rules.to_dict(), self.num_envs, lo, hi, max_moves, raw, self.engine,
                                           self.threads)
                                          for lo, hi in zip(bounds[1:-1], bounds[2:])])
        return views

    def _deals(self) -> VectorGames:
        """This process's deals; RuntimeError once the environment is closed."""
        if self._local is None:
            raise RuntimeError("the vector environment is closed")
        return self._local

    def _together(self, message: tuple, local) -> None:
        """Send every helper the message, run ``local()`` on this process's deals meanwhile, then wait for
        each helper to answer (blocking on its pipe: no spinning)."""
        helpers = self._helpers
        if helpers is None:
            local()
            return
        try:
            for w in range(len(helpers)):
                helpers.send(w, message)
            try:
                local()
            finally:
                replies = [helpers.receive(w) for w in range(len(helpers))]
        except WorkerGone:
            self._died()
        for reply in replies:
            if reply is not None:
                raise RuntimeError(f"a vector environment worker failed: {reply}")

    def _died(self) -> None:
        """A helper process is gone: close the environment and say so in one line."""
        codes = self._helpers.exitcodes()
        self.close()
        raise RuntimeError(f"a vector environment worker died (exit codes {codes}); the environment is closed") from None

    def _refuse(self, i: int) -> None:
        """Raise the IllegalAction that the share holding deal ``i`` gives its action in ``_actions`` (the engine's
        code and words, as with one process); nothing is played."""
        share = int(np.searchsorted(self._bounds, i, side="right")) - 1
        if share == 0:
            self._local.check(self._actions[:self._own])
        else:
            try:
                self._helpers.send(share - 1, ("check",))
                refused = self._helpers.receive(share - 1)
            except WorkerGone:
                self._died()
            if isinstance(refused, IllegalAction):
                raise refused
        raise AssertionError(f"deal {i}: refused by the mask, but not by its engine")

    def reset(self, seed: int | None = None):
        """Deal every game afresh; returns ``(obs, mask, seats)``."""
        local = self._deals()
        self._together(("reset", seed), lambda: local.reset(seed))
        return self.obs, self.mask, self.seats

    def step(self, actions):
        """Play one action per deal; returns ``(obs, mask, seats, rewards, ended, truncated)``."""
        local = self._deals()
        if self._helpers is None:
            local.step(actions)
        else:
            acts = np.asarray(actions).reshape(-1)
            if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
                raise IllegalAction(f"step takes {self.num_envs} integer actions, one per deal; got "
                                    f"{np.shape(actions)} of {acts.dtype}", code=Refusal.NOT_AN_ACTION)
            ok = (acts >= 0) & (acts < self.num_actions)
            ok[ok] = self.mask[np.flatnonzero(ok), acts[ok]] == 1
            self._actions[:] = acts
            if not ok.all():
                self._refuse(int(np.flatnonzero(~ok)[0]))
            # Checked here against the mask, for every share: the deals play the actions unchecked.
            self._together(("step",), lambda: local.play(self._actions[:self._own].tolist()))
        return self.obs, self.mask, self.seats, self.rewards, self.ended, self.truncated

    def games(self) -> list[Game]:
        """The deals themselves (in-process only: ``workers=1``), e.g. to hand a bot ``games()[i].view(seat)``."""
        local = self._deals()
        if self._helpers is not None:
            raise RuntimeError("the deals live in the worker processes; use workers=1 to reach them")
        return local.games

    def close(self) -> None:
        """Stop the helper processes; a closed environment refuses ``reset`` and ``step`` with RuntimeError."""
        if self._helpers is not None:
            self._helpers.close()
        self._helpers, self._local = None, None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "_helpers", None) is not None:
            self.close()


def _helper(conn, rules_dict: dict, num_envs: int, lo: int, hi: int, max_moves: int, raw: dict,
            engine: str, threads: int) -> None:
    """A helper process: deals lo..hi of the batch, written into the shared arrays; one message a step."""
    ignore_interrupts()  # already, when started from the main thread
    rules = Rules.from_dict(rules_dict)
    shapes = array_shapes(rules, num_envs)
    views = {name: np.frombuffer(raw[name], dtype=dtype).reshape(shape)[lo:hi]
             for name, (shape, dtype) in shapes.items()}
    games = make_vector_games(rules, hi - lo, max_moves, arrays=views, first=lo, engine=engine, threads=threads)
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
            elif message[0] == "check":  # an action the mask refused: the engine's refusal, for the parent to raise
                try:
                    games.check(actions)
                except IllegalAction as refused:
                    conn.send(refused)  # pickled whole, its code included
                    continue
            else:
                games.play(actions.tolist())  # the parent checked them against the mask
            conn.send(None)
        except Exception as err:  # reported to the parent, which raises it
            conn.send(f"{type(err).__name__}: {err}")


class DurakVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv``: the learner at one seat of each of ``num_envs`` deals (``seat=k`` or
    ``"random"``, drawn per deal), bots at the other seats (names, bot objects, or one per other seat, as
    ``DurakGymEnv`` takes them).  Observations are ``{"observation": float32 [N, size], "action_mask": int8
    [N, actions]}``; the learner's reward comes when its deal ends.  Autoreset happens in the same step
    (``AutoresetMode.SAME_STEP``): an ended deal's last observation is in ``infos["final_obs"]`` (its mask the
    idle one, ``ObservationEncoder.idle_mask``: no decision is left) and the returned observation is the new
    deal's first.  Equal to ``num_envs`` ``DurakGymEnv``s, batched.  The deals
    are native games where the native engine is built (``engine="python"``: the reference's)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, rules=None, opponents: Any = "heuristic", seat: int | str = "random",
                 max_moves: int = MOVE_LIMIT, engine: str = "auto"):
        from .gym_env import _make_opponents

        self.rules = make_rules(rules)
        n = self.rules.num_players
        if seat != "random" and not is_integer(seat, 0, n - 1):
            raise ValueError(f"seat must be 'random' or a seat from 0 to {n - 1}, got {seat!r}")
        self.core = VectorGames(self.rules, num_envs, max_moves, engine=engine)
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
        """Seat the learner and the bots of deal i, then let the bots play up to the learner's turn.  A deal
        that ends before the learner has a choice (every move of its forced) teaches nothing: it is dealt
        again and seated afresh."""
        n = self.rules.num_players
        core = self.core
        while True:
            learner = int(self._seat_rng.integers(n)) if self.seat_choice == "random" else self.seat_choice
            self.learner[i] = learner
            policies = [None] * n
            for k, bot in enumerate(self.opponents[i], 1):
                bot.reset(None if seed is None else derive_seed("vector-bot", seed, i, k))
                policies[(learner + k) % n] = bot.act
            self._policies[i] = policies
            if self._play_bots(i, core.moves[i]) == PLAYING:
                return
            core.games[i] = core.new_deal(i)
            seed = None

    def _play_bots(self, i: int, moves: int) -> int:
        """The bots' moves (and the forced ones) in deal i up to the learner's turn, the deal's count of moves
        ``moves`` before them; returns how the deal stands (``ending``)."""
        core, learner = self.core, self.learner[i]
        core.moves[i], end = settle(core.games[i], moves, self.max_moves, seated(self._policies[i]),
                                    until=lambda g: g.to_act == learner)
        return end

    def step(self, actions):
        core = self.core
        acts = core.check(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        final: dict[int, dict] = {}
        for i, (game, action) in enumerate(zip(core.games, acts)):
            game.play_unchecked(action)
            end = self._play_bots(i, core.moves[i] + 1)
            if end != PLAYING:
                learner = self.learner[i]
                final[i] = {"observation": core.observe(game, learner), "action_mask": core.encoder.idle_mask()}
                rewards[i] = game.result.rewards()[learner] if end == ENDED else 0.0
                terminated[i], truncated[i] = end == ENDED, end == CUT
                core.games[i] = core.new_deal(i)
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
