"""Self-play deals as a native PufferLib environment (``pufferlib.PufferEnv``): one call steps every deal.

    import pufferlib.vector
    from durak_env.puffer import DurakPufferEnv

    vecenv = pufferlib.vector.make(DurakPufferEnv, backend=pufferlib.vector.PufferEnv,
                                   env_kwargs={"rules": "podkidnoy", "num_envs": 256})
    observations, infos = vecenv.reset(seed=0)

The deals are the native vector core's (``durak_env.vector.SelfPlayVectorEnv``): no Python loop per deal.
Each seat of each deal is one PufferLib agent, row ``deal * players + seat``, so that a row's trajectory is one
seat's own decisions.  A row's observation is the seat's observation (``durak_env.observation``) followed by
its action mask, both float32: ``observations[:, :obs_size]`` and ``observations[:, obs_size:]``
(``obs_size``, ``num_actions``).  Each step only the seat to act in each deal has a decision: its row has the
real mask and ``masks[row]`` True; the other rows are zero with the idle mask (every action allowed, so that a
masked sampler over the whole batch stays defined), ``masks[row]`` False, and their actions are ignored.
When a deal ends, every row of it gets the seat's reward (``Result.rewards``) and ``terminals`` True (a deal cut
off at ``max_moves``: ``truncations``, reward 0), and the rows already hold the new deal's first decision, as
PufferLib's native environments reset themselves.  An illegal action raises ``IllegalAction`` naming the
deal and plays nothing.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pufferlib

from .engine.loop import MOVE_LIMIT
from .engine.rules import Rules
from .vector import SelfPlayVectorEnv


class DurakPufferEnv(pufferlib.PufferEnv):
    """``num_envs`` self-play deals, every seat an agent (see the module docstring)."""

    def __init__(self, rules: Rules | dict | str | None = None, num_envs: int = 64, max_moves: int = MOVE_LIMIT,
                 engine: str = "auto", threads: int = 1, buf: Any = None, seed: int | None = 0):
        self.deals = SelfPlayVectorEnv(rules, num_envs=num_envs, max_moves=max_moves, engine=engine,
                                       threads=threads)
        """The self-play vector core that plays the deals."""
        self.rules, self.seed = self.deals.rules, seed
        self.players = self.rules.num_players
        self.obs_size, self.num_actions = self.deals.obs_size, self.deals.num_actions
        self.num_agents = num_envs * self.players
        self.single_observation_space = gymnasium.spaces.Box(0.0, 1.0, (self.obs_size + self.num_actions,),
                                                             dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(self.num_actions)
        super().__init__(buf)
        self._deal_rows = np.arange(num_envs) * self.players
        self._rows = self._deal_rows.copy()
        """The row of the seat to act in each deal (every other row idle)."""

    def reset(self, seed: int | None = None):
        """Deal every game afresh (``seed``, else the constructor's); returns ``(observations, [])``."""
        self.deals.reset(self.seed if seed is None else seed)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._rows[:] = self._deal_rows
        self.observations[:, :self.obs_size] = 0.0
        self.observations[:, self.obs_size:] = 1.0
        self.masks[:] = False
        self._write()
        return self.observations, []

    def step(self, actions: Any):
        """Play each deal's acting row's action; returns observations, rewards, terminals, truncations, []."""
        deals = self.deals
        deals.step(np.asarray(actions).reshape(-1)[self._rows])
        by_deal = (self.num_envs, self.players)
        np.multiply(deals.rewards[:, :self.players], deals.ended[:, None], out=self.rewards.reshape(by_deal))
        self.terminals.reshape(by_deal)[:] = deals.ended[:, None]
        self.truncations.reshape(by_deal)[:] = deals.truncated[:, None]
        self._write()
        return self.observations, self.rewards, self.terminals, self.truncations, []

    @property
    def num_envs(self) -> int:
        """The number of deals."""
        return self.deals.num_envs

    def _write(self) -> None:
        """The rows that acted become idle (zero, the idle mask); each deal's acting seat's row gets its
        observation and mask from the core.  Only ``num_envs`` rows change a step."""
        deals, obs, size = self.deals, self.observations, self.obs_size
        obs[self._rows, :size] = 0.0
        obs[self._rows, size:] = 1.0
        self.masks[self._rows] = False
        np.add(self._deal_rows, deals.seats, out=self._rows)
        obs[self._rows, :size] = deals.obs
        obs[self._rows, size:] = deals.mask
        self.masks[self._rows] = True

    def close(self) -> None:
        self.deals.close()
