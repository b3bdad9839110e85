"""Progress that tells the truth (issue 26): a run that stops at its time budget showed "41% … 17:22 remaining"
against its step total and then ended, which reads as a crash.  The bar now counts toward whichever limit comes
first, and its last line says why the run ended: the time budget, the step (or game) total, or the user."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import baselines.progress as progress_module
from baselines.progress import Progress
from helpers import CTRL_C_STATUSES, sigint_at_its_default

ROOT = Path(__file__).resolve().parent.parent
DURAK = [sys.executable, "-m", "frontends"]


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def fake_clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    return clock


def test_the_bar_fills_by_the_limit_that_comes_first(fake_clock, capsys):
    bar = Progress("train", total=40_000_000, unit="step", budget=870.0)
    fake_clock.now += 435.0
    bar.update(4_000_000)
    assert bar.fraction() == pytest.approx(0.5)  # half the budget, a tenth of the steps: the budget binds
    assert bar.left() == pytest.approx(435.0)  # the steps alone would take 3,915 s more
    assert str(bar.bar).startswith("train:  50%|")  # what the terminal shows at its next redraw
    assert str(bar.bar).endswith("| 4.00M/40.00M steps · 7:15/14:30 budget · 7:15 left")
    bar.end("budget")
    assert capsys.readouterr().err.splitlines()[-1] == (
        "train: ended at the time budget (14.5 min): 4.00M of 40.00M steps in 7:15")


def test_without_a_budget_it_counts_units_and_their_pace(fake_clock, capsys):
    bar = Progress("eval", total=2000, unit="game")
    fake_clock.now += 10.0
    bar.update(500)
    assert bar.fraction() == pytest.approx(0.25) and bar.left() == pytest.approx(30.0)
    fake_clock.now += 30.0
    bar.update(2000)
    bar.end("total")
    assert capsys.readouterr().err.splitlines()[-1] == "eval: ended at the game total: 2,000 games in 0:40"


def test_a_resumed_run_starts_where_it_was_and_a_stop_says_so(fake_clock, capsys):
    bar = Progress("train", total=1000, unit="step", budget=100.0, done=300, elapsed=60.0)
    assert bar.fraction() == pytest.approx(0.6)
    fake_clock.now += 5.0
    bar.update(350)
    assert bar.left() == pytest.approx(35.0)  # the budget (35 s) before the total at 10 steps/s (65 s)
    bar.end("stopped", "; resume it")
    assert capsys.readouterr().err.splitlines()[-1] == "train: stopped by the user: 350 of 1,000 steps in 1:05; resume it"
    with pytest.raises(ValueError, match="unknown reason"):
        Progress("x", 1, "step", enabled=False).summary("bored")


def test_a_quiet_bar_prints_nothing(capsys):
    bar = Progress("eval", total=10, unit="game", enabled=False)
    bar.update(10)
    bar.end("total")
    assert capsys.readouterr().err == ""


def train(tmp_path: Path, budget: float | None, steps: int, interrupt_after: float | None = None):
    cfg = yaml.safe_load((ROOT / "configs" / "tiny.yaml").read_text())
    cfg["total_steps"] = steps
    if budget is not None:
        cfg["time_budget"] = budget
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.Popen([*DURAK, "train", "--config", str(tmp_path / "cfg.yaml"), "--run-dir", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # SIGABRT prints every thread's stack
                            start_new_session=True, preexec_fn=sigint_at_its_default)
    if interrupt_after is not None:
        deadline = time.monotonic() + 120
        while not (tmp_path / "run" / "checkpoints" / "latest.pt").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(interrupt_after)
        os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:  # seen twice in CI under load: the stacks say where the run stood
        os.killpg(proc.pid, signal.SIGABRT)
        out, err = proc.communicate()
        pytest.fail("the run was still going 300 s after its start or its Ctrl-C; its stacks:\n" + err[-6000:])
    lines = [line.strip() for line in err.replace("\r", "\n").splitlines() if line.strip()]
    return proc.returncode, lines


def test_a_run_that_stops_at_its_time_budget_shows_the_budget_and_says_so(tmp_path):
    code, lines = train(tmp_path, budget=0.2, steps=50_000_000)
    assert code == 0, lines[-5:]
    assert any("/50.00M steps · " in line and "/0:12 budget" in line for line in lines)
    assert lines[-1].startswith("train: ended at the time budget (0.2 min): ") and "of 50.00M steps" in lines[-1]
    bars = [line for line in lines if line.startswith("train: ") and "%|" in line]
    assert bars[-1].startswith("train: 100%")  # the bar ends full, not at the steps' 0%


def test_a_run_that_reaches_its_step_total_says_so(tmp_path):
    code, lines = train(tmp_path, budget=None, steps=1024)
    assert code == 0, lines[-5:]
    assert lines[-1].startswith("train: ended at the step total: ")


def test_a_run_stopped_with_ctrl_c_says_so_and_how_to_resume(tmp_path):
    code, lines = train(tmp_path, budget=None, steps=50_000_000, interrupt_after=1.0)
    assert code in CTRL_C_STATUSES, lines[-8:]
    said = [line for line in lines if line.startswith("train: stopped by the user: ")]
    assert said and "of 50.00M steps" in said[-1] and f"durak train --resume {tmp_path / 'run'}" in said[-1]
    assert not any("Traceback" in line for line in lines)


def test_ctrl_c_that_comes_out_as_another_error_still_stops_quietly(tmp_path, monkeypatch, capsys):
    """Ctrl-C landing while onnxruntime's extension loads comes out as "ImportError: initialization failed", the
    interrupt its cause: CI once saw the stopped run end with that traceback and status 1."""
    import training.train
    from frontends.cli import main

    def ctrl_c_mid_import(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise ImportError("initialization failed") from err

    monkeypatch.setattr(training.train, "ppo_update", ctrl_c_mid_import)
    cfg = yaml.safe_load((ROOT / "configs" / "tiny.yaml").read_text())
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["train", "--config", str(tmp_path / "cfg.yaml"), "--run-dir", str(tmp_path / "run")]) == 130
    lines = [line.strip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
    assert lines[-1].startswith("train: stopped by the user: ") and "durak train --resume" in lines[-1]
    assert not any("Traceback" in line for line in lines)


def test_a_ctrl_c_that_a_library_swallows_still_stops_the_run(tmp_path, monkeypatch, capsys, ctrl_c_handled):
    """A KeyboardInterrupt raised while a ``__del__`` or a library's callback runs is printed as "Exception ignored"
    and dropped; CI saw training runs go on after their Ctrl-C.  The run notes the Ctrl-C and stops at its next
    update all the same, where without that it trains on to its step total."""
    import training.train
    from frontends.cli import main

    update = training.train.ppo_update

    def ctrl_c_swallowed(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)  # the handler runs here, and its KeyboardInterrupt is caught below
        except KeyboardInterrupt:
            pass
        return update(*args, **kwargs)

    monkeypatch.setattr(training.train, "ppo_update", ctrl_c_swallowed)
    cfg = yaml.safe_load((ROOT / "configs" / "tiny.yaml").read_text())
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["train", "--config", str(tmp_path / "cfg.yaml"), "--run-dir", str(tmp_path / "run")]) == 130
    lines = [line.strip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
    said = re.match(r"train: stopped by the user: ([\d,]+) of 1,024 steps", lines[-1])
    assert said and int(said[1].replace(",", "")) < 512  # after its first update, not at its step total
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own handler back


def test_only_ctrl_c_under_an_error_counts_as_ctrl_c():
    from baselines.progress import interrupted

    def chained(inner: BaseException, suppress: bool) -> BaseException:
        try:
            try:
                raise inner
            except BaseException:
                if suppress:
                    raise RuntimeError("writer failed") from None  # the cause hidden, the context kept
                raise RuntimeError("writer failed")
        except RuntimeError as err:
            return err

    assert interrupted(KeyboardInterrupt())
    assert interrupted(chained(KeyboardInterrupt(), suppress=True))
    assert interrupted(chained(KeyboardInterrupt(), suppress=False))
    assert not interrupted(chained(OSError("disk full"), suppress=False))
    looped = ValueError("a")
    looped.__context__ = ValueError("b")
    looped.__context__.__context__ = looped
    assert not interrupted(looped)


def test_eval_says_it_played_its_games():
    proc = subprocess.run([*DURAK, "eval", "heuristic", "random", "--games", "40", "--workers", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0
    last = proc.stderr.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("eval: ended at the game total: 40 games in ")
    assert "head to head" in proc.stdout
