"""Train sb3-contrib's MaskablePPO against HeuristicBot on the Gymnasium environment, then evaluate the
result with the project's duplicate-deal evaluator.  Needs the ``sb3`` extra (``pip install -e ".[sb3]"``).

    python -m training.sb3_maskable_ppo --steps 200000 --eval-games 1000 --save runs/sb3.zip

The policy sees the same observation and mask as every other learner here; the
mask reaches MaskablePPO through ``DurakGymEnv.action_masks()``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from baselines.policy_file import PolicyBot


def make_env(rules: Any = "podkidnoy", opponents: str = "heuristic", envs: int = 4, seed: int = 0):
    """A vectorised Gymnasium env for SB3: ``envs`` copies of ``durak_env/Durak-v0`` for ``rules`` (a preset name,
    a dict of fields or a ``Rules``)."""
    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    import durak_env  # noqa: F401  (registers durak_env/Durak-v0)

    def one(i: int):
        def build():
            return gymnasium.make("durak_env/Durak-v0", rules=rules, opponents=opponents)
        return build

    venv = DummyVecEnv([one(i) for i in range(envs)])
    venv.seed(seed)
    return venv


def train_maskable_ppo(steps: int, rules: str = "podkidnoy", opponents: str = "heuristic", envs: int = 4, seed: int = 0,
          n_steps: int = 512, verbose: int = 0):
    """A MaskablePPO model trained for ``steps`` learner decisions."""
    from sb3_contrib import MaskablePPO

    venv = make_env(rules, opponents, envs, seed)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=n_steps, batch_size=min(256, n_steps * envs),
                        gamma=1.0, gae_lambda=0.95, ent_coef=0.003, learning_rate=3e-4, seed=seed, verbose=verbose,
                        policy_kwargs={"net_arch": [128, 128]}, device="cpu")
    model.learn(total_timesteps=steps)
    return model


class MaskablePPOBot(PolicyBot):
    """A trained MaskablePPO model behind the project's bot interface, so the evaluator can seat it."""

    def __init__(self, model, rules, name: str = "maskable_ppo"):
        import torch

        def probabilities(obs, mask):
            tensor, _ = model.policy.obs_to_tensor({"observation": obs, "action_mask": mask})
            with torch.no_grad():
                dist = model.policy.get_distribution(tensor, action_masks=mask.astype(bool))
            return dist.distribution.probs.cpu().numpy()

        super().__init__(probabilities, rules, name)


def evaluate_model(model, rules: str = "podkidnoy", games: int = 1000, seed: int = 0, opponent: str = "heuristic"):
    """The evaluator's report of ``model`` against ``opponent`` over duplicate deals."""
    from baselines.evaluate import evaluate
    from durak_env.environment import make_rules

    rules_obj = make_rules(rules)
    return evaluate([MaskablePPOBot(model, rules_obj), opponent], rules_obj, games=games, seed=seed)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.sb3_maskable_ppo", description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200_000, help="learner decisions to train for")
    p.add_argument("--rules", default="podkidnoy", help="a preset name")
    p.add_argument("--opponents", default="heuristic", help="the bot at the other seats")
    p.add_argument("--envs", type=int, default=4, help="games played at once")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--save", help="write the model here (SB3's .zip)")
    args = p.parse_args(argv)
    if args.steps < 1 or args.envs < 1 or args.eval_games < 1:
        p.error("--steps, --envs and --eval-games must be positive")
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        print('error: this example needs sb3-contrib: pip install -e ".[sb3]"', file=sys.stderr)
        return 2
    try:
        from baselines import make_bot
        from durak_env.environment import make_rules

        make_rules(args.rules), make_bot(args.opponents)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    model = train_maskable_ppo(args.steps, args.rules, args.opponents, args.envs, args.seed, verbose=1)
    if args.save:
        model.save(args.save)
    report = evaluate_model(model, args.rules, args.eval_games, args.seed, args.opponents)
    print(report.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
