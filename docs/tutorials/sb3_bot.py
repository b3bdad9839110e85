"""Train with Stable-Baselines3: sb3-contrib's MaskablePPO on the single-agent Gymnasium environment (HeuristicBot
at the other seat), then the project's duplicate-deal evaluator on the model, against an opponent it never met.

    python docs/tutorials/sb3_bot.py            # 200,000 decisions, about four minutes on 2 cores
    python docs/tutorials/sb3_bot.py --tiny     # the tests run this

Needs the sb3 extra: pip install -c constraints.txt -e ".[sb3]".
"""

import argparse

import gymnasium
from sb3_contrib import MaskablePPO

import durak_env  # noqa: F401  (registers durak_env/Durak-v0)
from baselines.evaluate import evaluate
from durak_env import Rules
from training.sb3_maskable_ppo import MaskablePPOBot

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a few hundred decisions, to see it run")
    args = parser.parse_args()

    # 1. The environment: one seat is the learner, a bot plays the other; the mask of legal moves reaches
    #    MaskablePPO through env.action_masks().  Illegal moves cannot be chosen, so none is tried.
    env = gymnasium.make("durak_env/Durak-v0", rules="podkidnoy", opponents="heuristic")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=256 if args.tiny else 2048, batch_size=64, gamma=1.0,
                        seed=0, device="cpu")
    model.learn(total_timesteps=512 if args.tiny else 200_000)

    # 2. One episode by hand, as any Gymnasium agent plays it.
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(int(action))
        done = terminated or truncated
    print("one episode's reward:", reward)

    # 3. The evaluator seats the model as a bot: duplicate deals against HeuristicBot (its training opponent) and
    #    against search:fast, which it never met.
    bot = MaskablePPOBot(model, Rules.preset("podkidnoy"))
    for opponent in ("heuristic", "search:fast"):
        print(evaluate([bot, opponent], games=20 if args.tiny else 1000, seed=2).table())
    print("keep it with model.save(\"runs/sb3.zip\")")


if __name__ == "__main__":  # the evaluator's worker processes import this file: run only once
    main()
