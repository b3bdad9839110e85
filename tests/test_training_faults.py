"""Faults (issue 7): training killed with SIGKILL mid-update, or while a checkpoint is being written,
resumes from its last checkpoint and finishes; "latest" is never left damaged."""

import signal
import subprocess
import sys
from pathlib import Path

from training.checkpoints import load_checkpoint
from training.train import train_ppo

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"  # 4 updates of 256 decisions, a checkpoint after each

KILL_IN_UPDATE = """
import os, signal, sys
import training.train as T
from training.config import TrainConfig
real, calls = T.ppo_update, [0]
def update(*args, **kwargs):
    calls[0] += 1
    if calls[0] == 3:  # halfway through the third update's gradient steps
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
T.ppo_update = update
T.train_ppo(TrainConfig.load(sys.argv[1]), run_dir=sys.argv[2], progress=False)
"""

KILL_IN_CHECKPOINT = """
import io, os, signal, sys
from pathlib import Path
import torch
import training.train as T
from training.config import TrainConfig
real, writes = torch.save, [0]
def save(obj, f, *args, **kwargs):
    if str(f).endswith("latest.pt.tmp"):
        writes[0] += 1
        if writes[0] == 2:  # the second "latest": half its bytes reach the disk, then the kill
            buf = io.BytesIO()
            real(obj, buf)
            Path(f).write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
    return real(obj, f, *args, **kwargs)
torch.save = save
T.train_ppo(TrainConfig.load(sys.argv[1]), run_dir=sys.argv[2], progress=False)
"""


def run_and_kill(script: str, run: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", script, str(TINY), str(run)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]


def test_sigkill_mid_update_resumes_from_the_last_checkpoint_and_finishes(tmp_path):
    run = tmp_path / "run"
    run_and_kill(KILL_IN_UPDATE, run)
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 2
    assert not (run / "bot.onnx").exists()
    train_ppo(resume=run, progress=False)
    final = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert final["update"] == 4 and final["global_step"] >= 1024
    assert (run / "bot.onnx").exists()


def test_sigkill_while_writing_a_checkpoint_leaves_the_previous_latest_intact(tmp_path):
    run = tmp_path / "run"
    run_and_kill(KILL_IN_CHECKPOINT, run)
    assert (run / "checkpoints" / "latest.pt.tmp").exists()  # the torn write
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 1  # "latest" is the last whole one
    proc = subprocess.run([sys.executable, "-m", "frontends", "train", "--resume", str(run), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 4
    assert (run / "bot.onnx").exists()
