"""sb3-contrib's MaskablePPO on the Gymnasium environment (issue 5): a short learn() and one evaluation."""

import subprocess
import sys

from training.sb3_maskable_ppo import MaskablePPOBot, evaluate_model, train_maskable_ppo


def test_maskable_ppo_learns_briefly_and_is_evaluated_against_heuristic():
    model = train_maskable_ppo(steps=512, envs=2, n_steps=128, seed=0)
    assert model.num_timesteps >= 512
    report = evaluate_model(model, games=20, seed=1)
    assert [s.name for s in report.stats] == ["maskable_ppo", "heuristic"] and report.games == 20
    assert sum(s.fools for s in report.stats) + report.stats[0].draws == 20


def test_maskable_ppo_bot_only_plays_legal_moves():
    from durak_env import Game, Rules

    model = train_maskable_ppo(steps=256, envs=1, n_steps=128, seed=1)
    bot = MaskablePPOBot(model, Rules())
    game = Game(Rules(), seed=3)
    while not game.is_over:
        seat = game.to_act
        action = bot.act(game.view(seat))
        assert action in game.legal_actions()
        game.step(action)


def test_script_usage_errors_exit_2():
    out = subprocess.run([sys.executable, "-m", "training.sb3_maskable_ppo", "--rules", "bridge", "--steps", "10"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "unknown rules preset" in out.stderr and "Traceback" not in out.stderr
