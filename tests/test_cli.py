"""The command line: the README's main job runs; usage errors are one line and exit status 2."""

import subprocess
import sys

import pytest

from durak_env.cli import main


def test_demo_prints_a_game(capsys):
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Trump:" in out and "player_0: attack" in out and "result after" in out


def test_rules_lists_and_shows(capsys):
    assert main(["rules"]) == 0
    assert "seed003" in capsys.readouterr().out
    assert main(["rules", "--show", "seed003"]) == 0
    assert '"max_bouts": 150' in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["demo", "--rules", "nope"], "unknown rules preset 'nope'"),
    (["demo", "--players", "9"], "num_players"),
    (["demo", "--set", "foo=1"], "unknown rules field 'foo'"),
    (["demo", "--set", "transfer"], "FIELD=VALUE"),
    (["demo", "--games", "0"], "--games"),
    (["demo", "--seed", "x"], "invalid int"),
    (["bogus"], "invalid choice"),
    (["train", "--backend", "jax", "--config", "configs/tiny.yaml"], "unknown backend 'jax'; backends: torch, rllib"),
    (["train", "--config", "configs/tiny.yaml", "--address", "auto"], "--address only work with --backend rllib"),
    (["train", "--backend", "rllib"], "give --config FILE"),
    (["train", "--backend", "rllib", "--config", "configs/tiny.yaml", "--iterations", "0"], "--iterations must be at least 1"),
    (["train", "--backend", "rllib", "--config", "configs/nope.yaml"], "nope.yaml"),
    (["train", "--backend", "rllib", "--resume", "runs/x"], "--resume applies to the torch backend"),
    ([], "required"),
])
def test_usage_errors_exit_2_with_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_console_script_exit_status():
    proc = subprocess.run([sys.executable, "-m", "durak_env", "demo", "--rules", "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("durak: error:")
