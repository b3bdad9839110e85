"""The PettingZoo AEC environment over the engine: one deal per episode.

Agents are ``player_0`` ... ``player_{n-1}``.  Each observation is
``{"observation": float32 vector (see observation.py), "action_mask": int8 vector}``;
actions are indices of the rules' flat layout (see engine/actions.py).  Rewards
come at the end only (``Result.rewards``): in 2-player the fool -1 and the other
+1, with more players the placing points of seed 003 scaled to [-1, 1], and 0 to
the seats of a final draw.

A position where the acting seat has exactly one legal move (a take with no
card that beats, a "done" with nothing to add) is played automatically when
``auto_play_forced`` is on (the default); ``env.forced_moves`` lists those moves as
``(agent, action)`` pairs since the last ``reset`` or ``step``.

``infos[agent]`` is ``{}`` from ``reset`` on, as in PettingZoo's classic games, so that libraries that store or
tensorize infos (TorchRL, Tianshou) see one fixed structure; only an illegal move under ``env()`` fills the
info of the seat that tried it (``refusal``, ``refusal_reason``, ``illegal_action``), and that ends the deal.

A deal without a bout cap can cycle forever under some play (three seats that
always take); ``max_moves`` (``loop.MOVE_LIMIT``, 10,000 by default, about 90
times a random 2-player game) truncates such an episode with no reward.
"""

from __future__ import annotations

import random
import sys
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .engine.actions import layout_for
from .engine.checks import is_integer
from .engine.game import Game
from .engine.loop import CUT, ENDED, MOVE_LIMIT, ending, settle
from .engine.refusal import Refusal
from .engine.render import render
from .engine.rules import Rules
from .engine.view import SeatView
from .native import ENGINES, NativeGame, carried, new_game
from .native import available as native_available
from .observation import ObservationEncoder

RESET_OPTIONS = ("state", "first_seat")
ILLEGAL_ACTIONS = ("lose", "raise")
"""What a face that takes ``illegal_action`` does with one: end the episode with -1 for the seat that tried it
("lose", what unmasked learners need) or raise ``IllegalAction`` and change nothing ("raise")."""


def refused(game: Game | NativeGame, action: Any) -> tuple[Refusal, str] | None:
    """None where ``action`` is a legal move of ``game`` (an integer: 8.7 is no action, never played as 8); else
    why not: the engine's ``Refusal`` code and words."""
    if is_integer(action) and action in game.legal_actions():
        return None
    return game.refusal(action) or (Refusal.NOT_LEGAL, "")


def make_rules(rules: Rules | dict | str | None) -> Rules:
    """Rules from a Rules object, a dict of fields (``{"preset": name, ...}`` allowed), a preset name or None."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    return Rules.from_dict(rules)


class DurakEnv(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "durak_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: Rules | dict | str | None = None, render_mode: str | None = None,
                 auto_play_forced: bool = True, max_moves: int | None = MOVE_LIMIT, engine: str = "auto"):
        super().__init__()
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if engine == "native" and not native_available():
            raise ValueError("engine='native': the native engine is not built here (durak_env.native)")
        self.engine = engine
        """Which engine plays the deals: "auto" (the native one where it is built), "native" or "python"."""
        if max_moves is not None and not is_integer(max_moves, 1):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        self.max_moves = max_moves
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.rules = make_rules(rules)
        self.render_mode = render_mode
        self.auto_play_forced = bool(auto_play_forced)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.encoder = ObservationEncoder(self.rules)
        self.layout = layout_for(self.rules.deck_size)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.layout.size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.layout.size) for a in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | NativeGame | None = None
        self._native = False
        """Whether the deal is played by the native engine (``durak_env.native.new_game``)."""
        self.forced_moves: list[tuple[str, int]] = []
        """The moves the environment played itself (``auto_play_forced``) since the last reset or step, as
        ``(agent, action)`` pairs: public moves, which every seat saw."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----- episode ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game.  ``seed`` fixes this and later deals; ``options={"state": snapshot}``
        starts from a ``Game.to_dict()`` position and ``options={"first_seat": k}`` deals from seat k."""
        if seed is not None:
            self._rng = random.Random(seed)
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            warnings.warn(f"reset ignores unknown options {unknown}; known: {', '.join(RESET_OPTIONS)}", stacklevel=2)
        if options.get("state") is not None:
            game = Game.from_dict(options["state"])
            if game.rules != self.rules:
                raise ValueError("reset state was saved under other rules than this environment's")
            game = game if self.engine == "python" else carried(game)
        elif self.engine == "python":
            game = Game(self.rules, seed=self._rng.getrandbits(64), first_seat=options.get("first_seat", 0))
        else:
            game = new_game(self.rules, self._rng.getrandbits(64), options.get("first_seat", 0))
        self.game = game
        self._native = isinstance(game, NativeGame)
        self.moves = 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.step(action)  # raises IllegalAction (a ValueError) and changes nothing if illegal
        self.moves += 1
        self._cumulative_rewards[agent] = 0.0
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        """Forced moves (``forced_moves``), the end of the deal or the next agent."""
        game, forced = self.game, []
        limit = sys.maxsize if self.max_moves is None else self.max_moves
        if self.auto_play_forced:
            self.moves, end = settle(game, self.moves, limit, played=forced)
        else:
            end = ending(game, self.moves, limit)
        if forced or self.forced_moves:  # a new list only when there is something (new) to report
            agents = self.possible_agents
            self.forced_moves = [(agents[seat], action) for seat, action in forced]
        if end == ENDED:
            for a, r in zip(self.possible_agents, game.result.rewards()):
                self.rewards[a] = r
                self.terminations[a] = True
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
            return
        # Rewards stay 0 until the deal ends: nothing to clear here.
        if end == CUT:
            # Without a bout cap a deal can cycle (every defender always taking); cut it off, nobody scores.
            for a in self.truncations:
                self.truncations[a] = True
        self.agent_selection = self.possible_agents[game.to_act]

    # ----- what a seat sees ---------------------------------------------------------------

    def last(self, observe: bool = True):
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat, game = self._seat[agent], self.game
        # Fresh arrays each call: callers keep observations (replay buffers), so none is reused.
        if self._native:
            obs, mask = game.observe(seat)
            return {"observation": obs, "action_mask": mask}
        return {"observation": self.encoder.encode_game(game, seat), "action_mask": self.encoder.mask_game(game, seat)}

    def view(self, agent: str) -> SeatView:
        """The read-only view of ``agent``'s seat (for bots): the observation's information as Python objects."""
        return self.game.view(self._seat[agent])

    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", stacklevel=2)
            return None
        game = self.game
        text = render(game.view(game.to_act if game.result is None else 0))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(rules: Rules | dict | str | None = None, render_mode: str | None = None, **kwargs: Any) -> DurakEnv:
    """The environment without wrappers: an illegal action raises ValueError and leaves the game as it was."""
    return DurakEnv(rules=rules, render_mode=render_mode, **kwargs)


class ClassicWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's classic wrapping in one layer: what ``TerminateIllegalWrapper(illegal_reward=-1)`` and
    ``OrderEnforcingWrapper`` do stacked (an illegal action ends the game with -1 for the seat that tried it,
    calls before ``reset`` are refused), without levels of attribute forwarding on every call.  An action that
    is no action at all (``8.7``, ``True``, ``"3"``, an index past the layout) is refused as an illegal one, where
    PettingZoo's ``AssertOutOfBoundsWrapper`` would raise an AssertionError: every refusal reaches the seat's
    infos as the engine says it, ``infos[agent]["refusal"]`` (its ``Refusal`` code) and ``["refusal_reason"]``
    (its words), with ``["illegal_action"]``.  It is an ``OrderEnforcingWrapper``, so PettingZoo's checks and
    ``unwrapped`` see what they expect; tests/test_env.py plays it against PettingZoo's own stack move for move."""

    def __init__(self, env: "DurakEnv", illegal_reward: float = -1):
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._terminated = False  # terminated by an illegal move

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        raw = self.env
        agent = raw.agent_selection
        return (self.observe(agent) if observe else None, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])

    def step(self, action) -> None:
        raw = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        refusal = refused(raw.game, action)
        if refusal is None:
            raw.step(action)
            return
        code, why = refusal
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw.infos[agent] = {**raw.infos[agent], "illegal_action": action, "refusal": code,
                            "refusal_reason": why}
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True


def env(rules: Rules | dict | str | None = None, render_mode: str | None = None, **kwargs: Any):
    """The environment wrapped as PettingZoo's classic games are (``ClassicWrapper``): an illegal action ends
    the game with -1 for the seat that tried it."""
    return ClassicWrapper(raw_env(rules=rules, render_mode=render_mode, **kwargs), illegal_reward=-1)
