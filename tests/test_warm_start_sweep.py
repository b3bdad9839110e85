"""benchmarks/warm_start_sweep.py: variants of PPO that all start from one run's warm start."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from training.checkpoints import load_checkpoint
from training.config import ConfigError, TrainConfig
from training.train import train_ppo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from warm_start_sweep import start_from_warm_start, variant_config  # noqa: E402


@pytest.fixture(scope="module")
def warm_run(tmp_path_factory):
    cfg = TrainConfig.load(ROOT / "configs" / "tiny.yaml")
    cfg.total_steps, cfg.eval_every, cfg.pretrain_games, cfg.pretrain_teacher = 256, 0, 10, "heuristic"
    return train_ppo(cfg, run_dir=tmp_path_factory.mktemp("sweep") / "warm", progress=False, export_onnx=False)


def test_a_variant_starts_from_the_warm_start_with_its_change_and_trains_on(warm_run, tmp_path):
    cfg = variant_config(warm_run, ["learning_rate=0.01", "opponents={heuristic: 1.0}"])
    assert cfg.learning_rate == 0.01 and cfg.opponents == {"heuristic": 1.0}
    assert cfg.pretrain_games == 10  # everything else is the run's own config
    variant = tmp_path / "variant"
    start_from_warm_start(warm_run, cfg, variant)
    warm = load_checkpoint(warm_run / "checkpoints" / "update_000000.pt")
    start = load_checkpoint(variant / "checkpoints" / "latest.pt")
    assert start["update"] == 0 and all(torch.equal(start["model"][k], v) for k, v in warm["model"].items())
    train_ppo(resume=variant, progress=False, export_onnx=False)
    evals = [json.loads(line) for line in (variant / "evals.jsonl").read_text().splitlines()]
    assert evals[-1]["update"] == 1 and evals[-1]["global_step"] >= 256  # PPO ran, no second warm start
    assert not (variant / "pretrain.json").exists()
    assert TrainConfig.load(variant / "config.yaml").learning_rate == 0.01


def test_a_bad_change_is_refused_with_its_name(warm_run):
    with pytest.raises(ConfigError, match="learning_rate"):
        variant_config(warm_run, ["learning_rate=fast"])
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        variant_config(warm_run, ["learning_rate"])
    with pytest.raises(ConfigError, match="colour"):
        variant_config(warm_run, ["colour=red"])


def test_the_command_line_refuses_bad_input_in_one_line_with_status_2(warm_run, tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "warm_start_sweep.py"), *args],
                              capture_output=True, text=True, timeout=120)

    bad = run(str(warm_run), "--variant", "learning_rate=-1", "--out-dir", str(tmp_path))
    assert bad.returncode == 2 and "learning_rate" in bad.stderr.strip().splitlines()[-1]
    missing = run(str(tmp_path / "nowhere"), "--variant", "learning_rate=0.01", "--out-dir", str(tmp_path))
    assert missing.returncode == 2 and "config.yaml" in missing.stderr
    cold = tmp_path / "cold"
    (cold / "checkpoints").mkdir(parents=True)
    (cold / "config.yaml").write_text((warm_run / "config.yaml").read_text())
    no_warm_start = run(str(cold), "--variant", "learning_rate=0.01", "--out-dir", str(tmp_path / "out"))
    assert no_warm_start.returncode == 2 and "no checkpoint of update 0" in no_warm_start.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cold"]  # nothing written for refused input
