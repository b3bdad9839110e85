"""Names: the environments registered with Gymnasium and PettingZoo, and bots named by installed packages.

``register_envs`` is called by ``import durak_env`` when those packages are installed
(they are dependencies, but the engine runs without them), so after ``import durak_env``::

    gymnasium.make("durak_env/Durak-v0", rules="podkidnoy", opponents="heuristic")
    pettingzoo.make("aec", "durak_env/Durak-v0", rules="perevodnoy")
    pettingzoo.make("parallel", "durak_env/Durak-v0", rules="perevodnoy")

The Gymnasium environment seats bots by name ("heuristic", "search:fast", "trained")
without importing the bots package, which sits a layer above it: a package offers a
bot maker under the entry-point group ``durak_env.bots`` (this project's ``baselines``
registers ``baselines:make_bot`` in pyproject.toml), and ``make_named_bot`` asks the
makers installed.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

ENV_ID = "durak_env/Durak-v0"
BOT_MAKERS = "durak_env.bots"
"""The entry-point group of bot makers: callables ``(spec, seed=None, rules=None) -> bot`` that raise
ValueError for a name they do not know."""


def make_named_bot(spec: str, rules: Any = None, seed: int | None = None):
    """The bot an installed bot package calls ``spec`` (made for ``rules`` where that matters, e.g. "trained")."""
    makers = sorted(entry_points(group=BOT_MAKERS), key=lambda ep: ep.name)
    if not makers:
        raise ValueError(f"no installed package names bots (entry points '{BOT_MAKERS}'), so {spec!r} means "
                         "nothing; pass bot objects, or install durak-env with its bots")
    errors = []
    for maker in makers:
        try:
            return maker.load()(spec, seed=seed, rules=rules)
        except ValueError as err:
            errors.append(str(err))
    raise ValueError("; ".join(errors))


def register_envs() -> None:
    """Register ``ENV_ID`` in Gymnasium's registry (single-agent) and PettingZoo's (AEC and parallel); idempotent."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="durak_env.gym_env:DurakGymEnv",
                           vector_entry_point="durak_env.vector:DurakVectorEnv", disable_env_checker=False)
    try:
        import pettingzoo
    except ImportError:
        return
    if hasattr(pettingzoo, "register") and ENV_ID not in pettingzoo.aec_registry:  # the registry is new in 1.27
        pettingzoo.register("aec", ENV_ID, entry_point="durak_env.environment:env")
        pettingzoo.register("parallel", ENV_ID, entry_point="durak_env.parallel:parallel_env")
