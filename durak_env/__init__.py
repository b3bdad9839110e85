"""durak_env: a Durak rules engine for every common variant, and a PettingZoo AEC environment over it.

The engine (``durak_env.engine``) is pure Python; the environment, which needs
numpy, gymnasium and pettingzoo, is imported only when first used, so
``import durak_env`` and the engine stay light (RLlib workers, OpenSpiel).
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

__version__ = "0.1.0"

_LAZY = {"env": "environment", "raw_env": "environment", "DurakEnv": "environment", "make_rules": "environment", "ObservationEncoder": "observation",
         "observation_slices": "observation", "OBSERVATION_VERSION": "observation"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'durak_env' has no attribute {name!r}")


__all__ = [
    "LAYOUT_VERSION", "OBSERVATION_VERSION", "Action", "Card", "DurakEnv", "Game", "IllegalAction", "Match",
    "ObservationEncoder", "Result", "Rules", "SeatView", "beats", "decode_action", "encode_action", "env",
    "num_actions", "observation_slices", "parse_cards", "raw_env",
]
