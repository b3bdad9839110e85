"""Ray RLlib self-play (issue 5): the observation adapter, and real training iterations on a local Ray."""

import math
from pathlib import Path

import numpy as np

from training.config import TrainConfig
from training.rllib_selfplay import make_env, train_rllib


def test_rllib_env_gives_float_masks_under_rllib_keys_and_plays_to_the_end():
    env = make_env({"rules": {"preset": "perevodnoy", "num_players": 3}})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        obs, rewards, terms, truncs, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if terms["__all__"] or truncs["__all__"]:
            break
    assert terms["__all__"] and sorted(rewards.values()) == [-1.0, 0.0, 1.0]


def test_two_iterations_on_local_ray_play_episodes_with_finite_losses(tmp_path):
    cfg = TrainConfig.load(Path(__file__).parent.parent / "configs" / "tiny.yaml")
    cfg.eval_games = 4
    history = train_rllib(cfg, tmp_path, env_runners=1, envs_per_runner=2, iterations=2, progress=False)
    assert len(history) == 2
    last = history[-1]
    assert last["episodes_lifetime"] > 0 and last["env_steps_lifetime"] >= 2 * cfg.rollout_steps
    for key in ("policy_loss", "vf_loss", "entropy"):
        assert all(math.isfinite(row[key]) for row in history), key
    assert 0.0 <= last["eval_not_fool"] <= 1.0
    assert (tmp_path / "evals.jsonl").read_text().strip()
    assert (tmp_path / "checkpoint").is_dir()
    # The policy is exported as a bot file that the project's loaders read and that plays legal moves.
    from baselines.policy_file import load_bot
    from durak_env import Game

    bot = load_bot(tmp_path / "bot.onnx")
    game = Game(cfg.make_rules(), seed=5)
    while not game.is_over:
        action = bot.act(game.view(game.to_act))
        assert action in game.legal_actions()
        game.step(action)
    assert bot.value(game.view(0)) is not None  # the file carries RLlib's value head too


def test_a_killed_env_runner_is_restarted_and_the_run_finishes(tmp_path):
    """Issue 15: SIGKILL an RLlib env runner mid-run: RLlib's fault tolerance (restart_failed_env_runners, as
    build_config sets it) starts a new one and the iterations go on."""
    import os
    import signal
    import subprocess
    import threading
    import time

    cfg = TrainConfig.load(Path(__file__).parent.parent / "configs" / "tiny.yaml")
    cfg.eval_games, cfg.eval_every = 4, 0
    killed = []

    def kill_one_runner():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            found = subprocess.run(["pgrep", "-f", "ray::MultiAgentEnvRunner"], capture_output=True, text=True).stdout
            if found.split():
                time.sleep(0.5)  # let it sample a little first
                try:
                    os.kill(int(found.split()[0]), signal.SIGKILL)
                    killed.append(int(found.split()[0]))
                except ProcessLookupError:  # that one had already gone: look again
                    pass
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one_runner, daemon=True)
    killer.start()
    history = train_rllib(cfg, tmp_path, env_runners=1, envs_per_runner=2, iterations=6, progress=False)
    killer.join(5)
    assert killed, "no env runner was found to kill"
    assert len(history) == 6 and history[-1]["env_steps_lifetime"] > history[0]["env_steps_lifetime"]
    assert (tmp_path / "bot.onnx").exists()


def test_training_on_an_existing_cluster_with_address_auto(tmp_path):
    """`ray start --head` makes a one-node cluster; `durak train --backend rllib --address auto` joins it
    and ships the package's code to it."""
    import os
    import shutil
    import subprocess
    import sys

    ray = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run([ray, "start", "--head", "--port=0", "--num-cpus=2", "--include-dashboard=false",
                    "--disable-usage-stats"], check=True, capture_output=True, env=env, timeout=300)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "frontends", "train", "--backend", "rllib", "--config",
             str(Path(__file__).parent.parent / "configs" / "tiny.yaml"), "--address", "auto", "--iterations", "1",
             "--env-runners", "1", "--run-dir", str(tmp_path / "run"), "--quiet"],
            capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "1 iterations" in proc.stdout and (tmp_path / "run" / "checkpoint").is_dir()
        assert (tmp_path / "run" / "bot.onnx").exists()
    finally:
        subprocess.run([ray, "stop", "--force"], capture_output=True, env=env, timeout=300)
