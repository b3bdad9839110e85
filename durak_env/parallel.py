"""The deal as a PettingZoo ``ParallelEnv``: every seat observes after every move, the seat to act plays.

Durak is turn-based; this face is for the libraries that take only parallel environments (PufferLib's
PettingZoo emulation, BenchMARL-style multi-agent trainers).  Where a library takes AEC environments, the
AEC face (``durak_env.env``) is the natural one.

    env = durak_env.parallel_env(rules="podkidnoy")
    observations, infos = env.reset(seed=42)
    while env.agents:
        actions = {agent: policy(observations[agent]) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

Each step plays the action of the seat to act (``infos[agent]["acting"]`` is True for it alone) and
ignores the others', which may be left out.  Every live seat gets an observation each step, as the AEC
face's ``observe`` gives it; a seat with no decision (not its turn, or the deal over) gets the idle mask
(``ObservationEncoder.idle_mask``: every action allowed, none played), so that a masked sampler over every
seat stays defined.  Rewards come when the deal ends (the AEC face's), then ``agents`` is empty.

An illegal action of the seat to act ends the deal with -1 for that seat and 0 for the others
(``illegal_action="lose"``, the default, what unmasked learners need, as ``durak_env.env()`` does), its
``Refusal`` code and words in ``env.refusal``; with ``illegal_action="raise"`` it raises ``IllegalAction``
(a ValueError saying why) and plays nothing.  Infos hold one fixed structure from reset on (``{"acting":
bool}``), so that libraries that store or tensorize infos can.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .engine.game import IllegalAction
from .engine.loop import MOVE_LIMIT
from .engine.refusal import Refusal
from .engine.rules import Rules
from .environment import ILLEGAL_ACTIONS, DurakEnv, refused


class DurakParallelEnv(ParallelEnv):
    """The AEC face's deal (``DurakEnv``, forced moves played by the environment), stepped one move at a time
    with every seat's observation returned (see the module docstring)."""

    def __init__(self, rules: Rules | dict | str | None = None, render_mode: str | None = None,
                 max_moves: int | None = MOVE_LIMIT, engine: str = "auto", illegal_action: str = "lose"):
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.refusal: tuple[Refusal, str] | None = None
        """Why the last illegal action was refused (its ``Refusal`` code and words), where one ended the deal."""
        self.aec = DurakEnv(rules=rules, render_mode=render_mode, max_moves=max_moves, engine=engine)
        """The AEC environment that plays the deal."""
        self.metadata = {**self.aec.metadata, "is_parallelizable": True}
        self.rules, self.render_mode = self.aec.rules, render_mode
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self._idle = self.aec.encoder.idle_mask()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec.action_space(agent)

    @property
    def agent_selection(self) -> str:
        """The seat to act."""
        return self.aec.agent_selection

    @property
    def game(self):
        """The deal (``durak_env.Game``, or its native twin)."""
        return self.aec.game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal a new game (``DurakEnv.reset``'s seed and options); returns ``(observations, infos)``."""
        self.aec.reset(seed=seed, options=options)
        self.agents, self.refusal = list(self.possible_agents), None
        acting = self._acting()
        return self._observations(acting), self._infos(acting)

    def step(self, actions: dict[str, Any]):
        """Play the acting seat's action from ``actions``; returns observations, rewards, terminations,
        truncations and infos for every seat that was live."""
        if not self.agents:
            raise RuntimeError("the deal is over; call reset()")
        agent = self.aec.agent_selection
        if agent not in actions:
            raise IllegalAction(f"{agent} is to act and actions has no action for it", code=Refusal.NOT_AN_ACTION)
        action = actions[agent]
        action = int(action) if isinstance(action, np.integer) else action
        aec = self.aec
        if self.illegal_action == "lose":
            self.refusal = refused(aec.game, action)
            if self.refusal is not None:
                return self._lost(agent)
        aec.step(action)  # refused: raises IllegalAction, plays nothing; renders in "human" mode
        acting = self._acting()
        observations, infos = self._observations(acting), self._infos(acting)
        rewards = {a: float(aec.rewards[a]) for a in self.agents}
        terminations = {a: aec.terminations[a] for a in self.agents}
        truncations = {a: aec.truncations[a] for a in self.agents}
        if acting is None:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _lost(self, agent: str):
        """The step's results when ``agent``'s illegal action ends the deal: -1 for it, 0 for the others."""
        observations = self._observations(None)
        rewards = {a: -1.0 if a == agent else 0.0 for a in self.agents}
        ended = dict.fromkeys(self.agents, True)
        infos = self._infos(None)
        self.agents = []
        return observations, rewards, ended, dict.fromkeys(ended, False), infos

    def _acting(self) -> str | None:
        """The seat with a decision to make; None once the deal is over."""
        aec = self.aec
        agent = aec.agent_selection
        return None if aec.terminations[agent] or aec.truncations[agent] else agent

    def _observations(self, acting: str | None) -> dict[str, dict[str, np.ndarray]]:
        """Every live seat's observation, with the idle mask for every seat but ``acting``."""
        out = {}
        for agent in self.agents:
            obs = self.aec.observe(agent)
            if agent != acting:
                obs["action_mask"] = self._idle.copy()
            out[agent] = obs
        return out

    def _infos(self, acting: str | None) -> dict[str, dict[str, bool]]:
        return {a: {"acting": a == acting} for a in self.agents}

    def render(self) -> str | None:
        return self.aec.render()

    def state(self) -> np.ndarray:
        raise NotImplementedError("Durak hides cards: there is no global state that is an observation; "
                                  "durak_env.privileged has what a critic may see in training")

    def close(self) -> None:
        self.aec.close()


def parallel_env(rules: Rules | dict | str | None = None, render_mode: str | None = None,
                 **kwargs: Any) -> DurakParallelEnv:
    """The parallel face (``DurakParallelEnv``) for ``rules`` (a ``Rules``, a dict of fields, a preset name or
    None); ``max_moves`` and ``engine`` as ``durak_env.env`` takes them."""
    return DurakParallelEnv(rules=rules, render_mode=render_mode, **kwargs)
