"""durak_env: a Durak rules engine for every common variant, and a PettingZoo AEC environment over it.

The engine (``durak_env.engine``) is pure Python and runs without numpy,
gymnasium or pettingzoo.  The environments, which need them, are imported only
when first used; importing the package registers their names
(``durak_env/Durak-v0``) with Gymnasium and PettingZoo where those are installed.
"""

from .engine import (
    LAYOUT_VERSION,
    Action,
    Card,
    Game,
    IllegalAction,
    Match,
    Result,
    Rules,
    SeatView,
    beats,
    decode_action,
    encode_action,
    num_actions,
    parse_cards,
)

__version__ = "0.2.0"

_LAZY = {"env": "environment", "raw_env": "environment", "DurakEnv": "environment", "make_rules": "environment",
         "ObservationEncoder": "observation", "observation_slices": "observation",
         "OBSERVATION_VERSION": "observation", "DurakGymEnv": "gym_env"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'durak_env' has no attribute {name!r}")


try:
    from .registration import register_envs

    register_envs()
except ImportError:  # the engine alone, without gymnasium
    pass

__all__ = [
    "LAYOUT_VERSION", "OBSERVATION_VERSION", "Action", "Card", "DurakEnv", "Game", "IllegalAction", "Match",
    "DurakGymEnv", "ObservationEncoder", "Result", "Rules", "SeatView", "beats", "decode_action", "encode_action", "env",
    "num_actions", "observation_slices", "parse_cards", "raw_env",
]
