"""benchmarks/distil_sweep.py: an expert-iteration run's deals distilled again with other settings."""

import json
import sys
from pathlib import Path

import pytest

from baselines import SHIPPED_BOTS
from baselines.policy_file import load_bot
from training.expert import ExpertConfig, run

BOT = str(SHIPPED_BOTS["podkidnoy"][0])
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from distil_sweep import main  # noqa: E402


def test_a_runs_deals_distil_again_with_other_settings(tmp_path, capsys):
    """benchmarks/distil_sweep.py: a run's rounds taught again to its start bot, here on the search's move alone;
    a folder that is no run is a usage error."""
    run(ExpertConfig(BOT, str(tmp_path / "run"), rounds=1, games=4, playouts=8, epochs=1, workers=1), say=lambda _: None)
    assert main([str(tmp_path / "run"), str(tmp_path / "again.onnx"), "--temperature", "0", "--epochs", "2"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["decisions"] == json.loads((tmp_path / "run" / "round-1" / "distil.json").read_text())["decisions"]
    assert load_bot(tmp_path / "again.onnx").metadata["guided_by"] == "podkidnoy.onnx"
    with pytest.raises(SystemExit) as usage:
        main([str(tmp_path / "nothing"), str(tmp_path / "x.onnx")])
    assert usage.value.code == 2 and "is not an expert-iteration run" in capsys.readouterr().err
