"""Files that reach the package from outside: checkpoints and bot files by path or by name, through every
loader and every CLI command.  Nothing in a file runs (a pickle payload is tried through each); a bot
made for other rules or another layout says what it was made for."""

import os
import pickle
from pathlib import Path

import pytest
import torch

from baselines import SHIPPED_BOTS, make_bot
from baselines.evaluate import evaluate
from baselines.policy_file import load_bot
from durak_env import Rules
from frontends.cli import main
from training.checkpoints import load_checkpoint
from training.export import export
from training.train import train_ppo

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"
SHIPPED = str(SHIPPED_BOTS["podkidnoy"][0])


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_payload_never_runs_through_any_loader(tmp_path, capsys):
    """Every way a file reaches this package: checkpoints, bot files by path or name, export, resume,
    the CLI's eval/play/export, the evaluator, the Gymnasium env's opponents."""
    from durak_env.gym_env import DurakGymEnv

    marker = tmp_path / "pwned"
    payloads = []
    for name, write in (("evil.pt", lambda p: torch.save({"format": 1, "model": _Payload(marker)}, p)),
                        ("evil.onnx", lambda p: torch.save({"format": 1, "model": _Payload(marker)}, p)),
                        ("evil.pkl", lambda p: p.write_bytes(pickle.dumps(_Payload(marker)))),
                        ("evil.durak", lambda p: p.write_bytes(pickle.dumps(_Payload(marker))))):
        write(tmp_path / name)
        payloads.append(tmp_path / name)
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text(TINY.read_text())
    torch.save({"format": 1, "model": _Payload(marker)}, run / "checkpoints" / "latest.pt")

    for path in payloads:
        for load in (load_checkpoint, load_bot, make_bot, lambda p: export(p, "onnx", tmp_path / "o.onnx"),
                     lambda p: export(p, "torchscript", tmp_path / "o.ts"),
                     lambda p: evaluate([str(p), "heuristic"], games=2, workers=1),
                     lambda p: DurakGymEnv(opponents=str(p))):
            with pytest.raises(ValueError):
                load(path)
        for argv in (["eval", "heuristic", str(path), "--games", "2"], ["play", "--opponent", str(path)],
                     ["export", str(path), "-o", str(tmp_path / "o.onnx")]):
            assert main(argv) == 2
    with pytest.raises(ValueError):
        train_ppo(resume=run, progress=False)
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    capsys.readouterr()
    assert not marker.exists()


def test_a_bot_for_other_rules_or_layout_says_what_it_was_made_for(tmp_path):
    with pytest.raises(ValueError, match="trained for") as err:
        load_bot(SHIPPED, rules=Rules.preset("tournament"))
    assert "podkidnoy" in str(err.value) or "num_players" in str(err.value)
    import onnx

    model = onnx.load(SHIPPED)
    for prop in model.metadata_props:
        if prop.key == "durak_env":
            import json

            meta = json.loads(prop.value)
            meta["observation_version"] = 99
            prop.value = json.dumps(meta)
    onnx.save(model, tmp_path / "future.onnx")
    with pytest.raises(ValueError, match="observation layout v99"):
        load_bot(tmp_path / "future.onnx")
