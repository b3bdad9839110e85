"""Register the environments by name with Gymnasium and PettingZoo.

Called by ``import durak_env`` when those packages are installed (they are
dependencies, but the engine runs without them), so after ``import durak_env``::

    gymnasium.make("durak_env/Durak-v0", rules="podkidnoy", opponents="heuristic")
    pettingzoo.make("aec", "durak_env/Durak-v0", rules="perevodnoy")
"""

from __future__ import annotations

ENV_ID = "durak_env/Durak-v0"


def register_envs() -> None:
    """Register ``ENV_ID`` in Gymnasium's registry (single-agent) and PettingZoo's (AEC); idempotent."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="durak_env.gym_env:DurakGymEnv", disable_env_checker=False)
    try:
        import pettingzoo
    except ImportError:
        return
    if hasattr(pettingzoo, "register") and ENV_ID not in pettingzoo.aec_registry:  # the registry is new in 1.27
        pettingzoo.register("aec", ENV_ID, entry_point="durak_env.environment:env")
