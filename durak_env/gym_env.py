"""One seat of a Durak deal as a single-agent Gymnasium environment; the other seats are bots.

    import gymnasium, durak_env
    env = gymnasium.make("durak_env/Durak-v0", rules="podkidnoy", opponents="heuristic")

The learner plays one seat (``seat=k``, or ``"random"``: drawn per episode); the
other seats are bots of the common interface (``act(view) -> action``,
``reset(seed)``): bot objects, or names an installed bot package knows
("heuristic", "search:fast", "trained", a path to an exported policy file; see
``registration.make_named_bot``), or one of these per other seat.  ``step()`` plays
the learner's move, then the bots' and any forced moves of the learner (exactly
one legal move), until the learner has a real choice or the deal ends.

Observations and actions are the AEC environment's: ``{"observation": float32,
"action_mask": int8}`` and ``Discrete(3D + 2)``.  The mask is also in
``info["action_mask"]`` and ``action_masks()`` (sb3-contrib's convention); the last observation of an
episode, which has no decision, allows every action (``ObservationEncoder.idle_mask``), so that a masked
sampler stays defined on it.  The
reward comes at the end: the learner's ``Result.rewards()`` entry.  An illegal
action ends the episode with -1 (``illegal_action="lose"``, what unmasked
learners need; ``info["refusal"]`` says why, a ``Refusal`` code, and ``info["refusal_reason"]`` in words) or raises
``IllegalAction`` (its ``code`` says why) and changes nothing (``"raise"``).
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from .engine.actions import layout_for
from .engine.checks import is_integer
from .engine.game import Game
from .engine.loop import CUT, ENDED, MOVE_LIMIT, PLAYING, seated, settle
from .engine.render import render
from .environment import ILLEGAL_ACTIONS, make_rules, refused
from .observation import ObservationEncoder
from .registration import make_named_bot



class DurakGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, rules=None, opponents: Any = "heuristic", seat: int | str = "random",
                 render_mode: str | None = None, illegal_action: str = "lose", max_moves: int | None = MOVE_LIMIT):
        self.rules = make_rules(rules)
        n = self.rules.num_players
        if seat != "random" and not is_integer(seat, 0, n - 1):
            raise ValueError(f"seat must be 'random' or a seat from 0 to {n - 1}, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_moves is not None and not is_integer(max_moves, 1):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        self.seat_choice, self.illegal_action, self.render_mode, self.max_moves = seat, illegal_action, render_mode, max_moves
        self.opponents = _make_opponents(opponents, n - 1, self.rules)
        self.encoder = ObservationEncoder(self.rules)
        size = layout_for(self.rules.deck_size).size
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (size,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(size)
        self.game: Game | None = None
        self.seat = 0
        self.moves = 0
        self._ending = PLAYING
        """How the deal stands (``durak_env.engine.loop.ending``) after the last step."""
        self._policies: list = [None] * n
        self._lost_by_illegal = False
        self._mask = np.zeros(size, dtype=np.int8)

    # ----- episode ------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new deal.  ``options={"state": snapshot}`` starts from a ``Game.to_dict()`` position,
        ``options={"seat": k}`` seats the learner at k for this episode."""
        super().reset(seed=seed)
        options = options or {}
        unknown = sorted(set(options) - {"state", "seat"})
        if unknown:
            raise ValueError(f"reset options {unknown} are not known; known: seat, state")
        n = self.rules.num_players
        rng = self.np_random
        self.seat = options.get("seat", self.seat_choice if self.seat_choice != "random" else int(rng.integers(n)))
        if not is_integer(self.seat, 0, n - 1):
            raise ValueError(f"seat must be from 0 to {n - 1}, got {self.seat!r}")
        if options.get("state") is not None:
            self.game = Game.from_dict(options["state"])
            if self.game.rules != self.rules:
                raise ValueError("reset state was saved under other rules than this environment's")
        else:
            self.game = Game(self.rules, seed=int(rng.integers(2**63)))
        self._policies = [None] * n
        for k, bot in enumerate(self.opponents, 1):
            self._policies[(self.seat + k) % n] = bot.act
        for bot in self.opponents:
            bot.reset(int(rng.integers(2**63)))
        self._lost_by_illegal = False
        self._play_others(0)
        return self._observation(), self._info()

    def step(self, action):
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if self._ending != PLAYING or self._lost_by_illegal:
            raise RuntimeError("the episode is over; call reset()")
        refusal = refused(game, action)
        if refusal is not None:
            if self.illegal_action == "raise":
                game.step(action)  # raises IllegalAction saying why and what is legal; the game is unchanged
            self._lost_by_illegal = True
            obs = self._observation()
            info = self._info()
            info["illegal_action"] = action
            info["refusal"], info["refusal_reason"] = refusal
            return obs, -1.0, True, False, info
        game.step(action)
        self._play_others(self.moves + 1)
        if self.render_mode == "human":
            self.render()
        reward = game.result.rewards()[self.seat] if self._ending == ENDED else 0.0
        return self._observation(), float(reward), self._ending == ENDED, self._truncated(), self._info()

    def _play_others(self, moves: int) -> None:
        """The bots' moves and every forced move (the learner's too), until the learner has a choice or the
        deal ends; ``moves`` is the deal's count before them."""
        limit = sys.maxsize if self.max_moves is None else self.max_moves
        self.moves, self._ending = settle(self.game, moves, limit, seated(self._policies),
                                          until=lambda g: g.to_act == self.seat)

    def _truncated(self) -> bool:
        return self._ending == CUT

    # ----- what the learner sees ----------------------------------------------------------

    def _observation(self) -> dict[str, np.ndarray]:
        view = self.game.view(self.seat)
        over = self._ending != PLAYING or self._lost_by_illegal
        self._mask = self.encoder.idle_mask() if over else self.encoder.mask(view)
        return {"observation": self.encoder.encode(view), "action_mask": self._mask.copy()}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "seat": self.seat, "moves": self.moves}

    def action_masks(self) -> np.ndarray:
        """The legal actions as a bool array (sb3-contrib's MaskablePPO calls this)."""
        return self._mask.astype(bool)

    def view(self):
        """The learner seat's read-only view (what a bot would be handed)."""
        return self.game.view(self.seat)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = render(self.game.view(self.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _make_opponents(opponents: Any, count: int, rules) -> list:
    """``count`` bots from a name, a bot, or a sequence of either (one per other seat)."""
    if isinstance(opponents, (str, bytes)) or hasattr(opponents, "act") or not isinstance(opponents, Sequence):
        specs = [opponents] * count
    else:
        specs = list(opponents)
        if len(specs) != count:
            raise ValueError(f"opponents lists {len(specs)} bots; this table needs {count} (one per other seat)")
    bots = []
    for spec in specs:
        if isinstance(spec, str):
            bots.append(make_named_bot(spec, rules=rules))
        elif callable(getattr(spec, "act", None)) and callable(getattr(spec, "reset", None)):
            bots.append(spec)
        else:
            raise ValueError(f"an opponent is a bot name, a path to a bot file or an object with act(view) and "
                             f"reset(seed); got {spec!r}")
    return bots
