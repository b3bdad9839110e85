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
    Refusal,
    Result,
    Rules,
    SeatView,
    beats,
    decode_action,
    encode_action,
    num_actions,
    parse_cards,
)

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("durak-env")  # one place: pyproject.toml
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

_LAZY = {"env": "environment", "raw_env": "environment", "DurakEnv": "environment", "make_rules": "environment",
         "ObservationEncoder": "observation", "observation_slices": "observation",
         "OBSERVATION_VERSION": "observation", "DurakGymEnv": "gym_env",
         "parallel_env": "parallel", "DurakParallelEnv": "parallel"}


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
    "LAYOUT_VERSION", "Action", "Card", "Game", "IllegalAction", "Match", "Refusal", "Result", "Rules", "SeatView",
    "beats",
    "decode_action", "encode_action", "num_actions", "parse_cards",
]
"""The engine's names, bound at import.  ``env``, ``raw_env``, ``DurakEnv``, ``ObservationEncoder``,
``observation_slices``, ``OBSERVATION_VERSION``, ``DurakGymEnv``, ``parallel_env`` and ``DurakParallelEnv`` are
here too, loaded on first use
(they need numpy and gymnasium): ``durak_env.environment``, ``durak_env.observation``,
``durak_env.gym_env`` and ``durak_env.parallel`` document them."""
