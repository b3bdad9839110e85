"""The command line: every subcommand answers bad input in one line with status 2 and no traceback; help,
version and the list of commands; Ctrl-C stops quietly; outputs are checked before the work starts."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines import SHIPPED_BOTS
from frontends.cli import main
from helpers import CTRL_C_STATUSES, sigint_at_its_default

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"
SHIPPED = str(SHIPPED_BOTS["podkidnoy"][0])
DURAK = [sys.executable, "-m", "frontends"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("files")
    (d / "garbage.onnx").write_bytes(os.urandom(300))
    (d / "garbage.pt").write_bytes(os.urandom(300))
    (d / "empty.onnx").write_bytes(b"")
    (d / "text.yaml").write_text("rules: podkidnoy\ntotal_steps: [\n")
    (d / "binary.yaml").write_bytes(os.urandom(200))
    (d / "notes.txt").write_text("hello")
    (d / "run").mkdir()
    return d


CASES = [
    # (argv, words in the one error line); {d} is the fixture folder
    (["rules", "--show", "nope"], "unknown rules preset 'nope'"),
    (["rules", "--bogus"], "unrecognized arguments: --bogus"),
    (["demo", "--rules", "tournament", "--players", "1"], "num_players"),
    (["demo", "--set", "deck_size=40"], "deck_size"),
    (["demo", "--set", "transfer=maybe"], "transfer"),
    (["demo", "--games", "-3"], "--games"),
    (["demo", "--colour", "red"], "unrecognized arguments"),
    (["eval", "heuristic"], "at least two bots"),
    (["eval", "heuristic", "grandmaster"], "unknown bot 'grandmaster'"),
    (["eval", "heuristic", "easy:lots"], "easy takes a share"),
    (["eval", "heuristic", "search:huge"], "search"),
    (["eval", "heuristic", "{d}/missing.onnx"], "missing.onnx"),
    (["eval", "heuristic", "{d}/garbage.onnx"], "garbage.onnx"),
    (["eval", "heuristic", "{d}/empty.onnx"], "empty.onnx"),
    (["eval", "heuristic", "{d}/garbage.pt"], "garbage.pt"),
    (["eval", "heuristic", "{d}/notes.txt"], "notes.txt"),
    (["eval", "heuristic", SHIPPED, "--players", "3"], "trained for other rules (podkidnoy, 2 players)"),
    (["eval", "heuristic", "random", "--games", "0"], "games"),
    (["eval", "heuristic", "random", "--games", "ten"], "invalid int"),
    (["eval", "heuristic", "random", "--games", "4", "--json", "{d}/notes.txt/out.json"], "cannot make its folder"),
    (["eval", "heuristic", "random", "--games", "4", "--chart", "{d}/r.txt"], "a chart is written as .png"),
    (["eval", "heuristic", "random", "--games", "4", "--csv", "{d}/run"], "is a folder"),
    (["train"], "--config"),
    (["train", "--config", "{d}/missing.yaml"], "cannot read config"),
    (["train", "--config", "{d}/text.yaml"], "not valid YAML"),
    (["train", "--config", "{d}/binary.yaml"], "config"),
    (["train", "--config", str(TINY), "--total-steps", "0"], "total_steps"),
    (["train", "--config", str(TINY), "--time-budget", "0"], "time_budget"),
    (["train", "--config", str(TINY), "--time-budget", "soon"], "invalid float"),
    (["train", "--resume", "{d}/run"], "not a run folder"),
    (["train", "--resume", "{d}/nowhere"], "not a run folder"),
    (["train", "--backend", "tf", "--config", str(TINY)], "unknown backend"),
    (["export", "{d}/missing.pt", "-o", "{d}/x.onnx"], "no checkpoint"),
    (["export", "{d}/garbage.pt", "-o", "{d}/x.onnx"], "garbage.pt"),
    (["export", "{d}/garbage.pt", "--format", "tflite", "-o", "{d}/x"], "invalid choice"),
    (["export", "{d}/garbage.pt"], "required: -o/--output"),
    (["play", "--opponent", "grandmaster"], "unknown bot"),
    (["play", "--opponent", "{d}/garbage.onnx"], "garbage.onnx"),
    (["play", "--opponent", SHIPPED, "--rules", "tournament"], "trained for podkidnoy, 2 players; this game is tournament"),
    (["play", "--opponent", "heuristic", "--opponent", "random", "--opponent", "easy"], "one --opponent for every"),
    (["play", "--save", "{d}/run"], "is a folder"),
    (["play", "--seat", "5"], "seat"),
    (["play", "--rules", "chess"], "unknown rules preset"),
    (["train", "--config", "nonsense"], "cannot read config"),
    (["init-config", "nonsense", "-o", "{d}/c.yaml"], "no shipped config 'nonsense'; configs: "),
    (["init-config", "default", "-o", "{d}/notes.txt"], "exists; pass --force"),
    (["init-config", "default", "-o", "{d}/notes.txt/c.yaml"], "cannot write"),
    (["init-config", "default"], "required: -o/--output"),
    (["serve", "--port", "70000"], "--port must be from 0 to 65535"),
    (["serve", "--port", "eighty"], "invalid int"),
    (["serve", "--opponent", "grandmaster"], "--opponent grandmaster: the page offers"),
    (["serve", "--opponent", "random", "--opponent", "easy", "--opponent", "random"], "one --opponent for every"),
    (["serve", "--bot", "mine"], "--bot takes NAME=PATH"),
    (["serve", "--bot", "heuristic={d}/garbage.onnx"], "that name is a built-in bot"),
    (["serve", "--bot", "mine={d}/garbage.onnx"], "--bot mine: "),
    (["serve", "--rules", "tournament", "--players", "9"], "num_players"),
    (["site", "{d}/out", "--opponent", "search:net"], "the page offers"),  # it batches with numpy
    (["site", "{d}/out", "--bot", "x={d}/garbage.onnx"], "--bot x"),
    (["site", "{d}/out", "--bot", "x=mine.pt"], "ONNX bot files"),
    (["site", "{d}/garbage.onnx"], "is a file"),
    (["site"], "the following arguments are required"),
]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_every_subcommand_answers_bad_input_in_one_line_with_status_2(argv, words, files, capsys):
    argv = [a.replace("{d}", str(files)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_console_script_exits_2_without_a_traceback(files):
    for argv in (["eval", "heuristic", f"{files}/garbage.onnx"], ["train", "--config", f"{files}/binary.yaml"]):
        proc = subprocess.run([*DURAK, *argv], capture_output=True, text=True)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_demo_prints_a_game(capsys):
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Trump " in out and "player_0: attack" in out and "result after" in out and "places:" in out


def test_rules_lists_and_shows(capsys):
    assert main(["rules"]) == 0
    assert "tournament" in capsys.readouterr().out
    assert main(["rules", "--show", "tournament"]) == 0
    assert '"max_bouts": 150' in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["demo", "--rules", "nope"], "unknown rules preset 'nope'"),
    (["demo", "--players", "9"], "num_players"),
    (["demo", "--set", "foo=1"], "unknown rules field 'foo'"),
    (["demo", "--set", "transfer"], "FIELD=VALUE"),
    (["demo", "--games", "0"], "--games"),
    (["demo", "--seed", "x"], "invalid int"),
    (["bogus"], "invalid choice"),
    (["train", "--backend", "jax", "--config", "configs/tiny.yaml"], "unknown backend 'jax'; backends: torch, ray, rllib"),
    (["train", "--config", "configs/tiny.yaml", "--address", "auto"], "--address needs a cluster backend: --backend ray (or rllib)"),
    (["train", "--backend", "rllib"], "give --config NAME or FILE"),
    (["train", "--backend", "rllib", "--config", "configs/tiny.yaml", "--iterations", "0"], "--iterations must be at least 1"),
    (["train", "--backend", "rllib", "--config", "configs/nope.yaml"], "nope.yaml"),
    (["train", "--backend", "rllib", "--resume", "runs/x"], "--resume applies to the torch backend"),
])
def test_usage_errors_exit_2_with_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_console_script_exit_status():
    proc = subprocess.run([*DURAK, "demo", "--rules", "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("durak: error:")


def test_help_works_for_the_command_and_every_subcommand(capsys):
    """``durak --help`` crashed on the eval help's "95%" (argparse formats help with %)."""
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    commands = ["rules", "demo", "eval", "train", "export", "play"]
    assert all(f"    {c} " in out for c in commands)
    for command in commands:
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0 and f"usage: durak {command}" in capsys.readouterr().out


def test_no_command_lists_the_commands_and_exits_2(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "usage: durak" in err and all(c in err for c in ("rules", "demo", "eval", "train", "export", "play"))


def test_version_comes_from_the_package(capsys):
    from durak_env import __version__

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"durak-env {__version__}"


def test_eval_help_lists_every_bot_name_trained_included(capsys):
    from baselines import BOT_NAMES

    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "trained" in out and all(name.split(":")[0] in out for name in BOT_NAMES)


def test_eval_outputs_are_checked_before_any_game_is_played(tmp_path, monkeypatch, capsys):
    import baselines.evaluate

    def never(*args, **kwargs):
        raise AssertionError("the tournament ran before its outputs were checked")

    monkeypatch.setattr(baselines.evaluate, "evaluate", never)
    (tmp_path / "file").write_text("")
    for flag, path in (("--chart", "r.txt"), ("--json", "file/r.json"), ("--csv", ".")):
        assert main(["eval", "heuristic", "random", flag, str(tmp_path / path), "--quiet"]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_missing_output_folders_are_made_by_eval_and_export_alike(tmp_path, capsys):
    """One behaviour for both: ``export -o`` made missing folders while ``eval --json`` refused them."""
    assert main(["eval", "heuristic", "random", "--games", "2", "--quiet", "--workers", "1",
                 "--json", str(tmp_path / "a" / "b" / "r.json")]) == 0
    assert (tmp_path / "a" / "b" / "r.json").exists()
    from baselines.evaluate import prepare_outputs
    from training.export import write_bot

    assert "missing folders are made" in (prepare_outputs.__doc__ + write_bot.__doc__)


def test_eval_plays_a_bot_file_at_the_table_it_was_trained_for(capsys):
    """Without --rules, --players or --set, eval takes the rules from the first bot file named (it used to play
    podkidnoy and refuse the file as trained for other rules); rules that are given still decide."""
    transfer_bot = str(SHIPPED_BOTS["after-beaten-transfer"][0])
    assert main(["eval", "heuristic", transfer_bot, "--games", "3", "--quiet", "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("3 games (1 decks, duplicate), 3 players, 36 cards")
    assert main(["eval", transfer_bot, "heuristic", "--games", "3", "--quiet", "--players", "3"]) == 2
    assert "trained for other rules" in capsys.readouterr().err


def test_play_trained_names_the_rules_that_have_a_shipped_bot(capsys, monkeypatch):
    """Asked for a trained bot where none is shipped (the universal bot taken away: it plays any rules), play
    says which rules it is for and which have one."""
    from baselines import SHIPPED_BOTS

    monkeypatch.delitem(SHIPPED_BOTS, "universal")
    assert main(["play", "--rules", "neighbours", "--players", "5", "--opponent", "trained"]) == 2
    err = capsys.readouterr().err
    assert "neighbours, 5 players" in err
    assert all(f"{family} (" in err for family in SHIPPED_BOTS)


@pytest.mark.parametrize("argv, stdin", [
    (["play", "--seed", "1"], True),
    (["eval", "search:strong", "heuristic", "--games", "100000", "--workers", "2"], False),  # native: 400 took 2 s
    (["demo", "--games", "100000"], False),
])
def test_ctrl_c_stops_quietly_and_at_once(argv, stdin):
    """Ctrl-C printed a KeyboardInterrupt traceback (from every eval worker too), and eval was slow to stop."""
    proc = subprocess.Popen([*DURAK, *argv], stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True, preexec_fn=sigint_at_its_default)
    time.sleep(4)
    os.killpg(proc.pid, signal.SIGINT)  # the terminal sends it to the whole process group
    started = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - started < 5
    assert proc.returncode in CTRL_C_STATUSES and "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]



def test_a_reader_that_stops_reading_ends_the_command_quietly():
    """``durak demo | head``: the reader closes the pipe; the command stops with status 0 and no traceback."""
    proc = subprocess.Popen([*DURAK, "demo", "--games", "100000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT)
    proc.stdout.read(2000)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err and "Exception ignored" not in err, err[-2000:]


def test_a_broken_pipe_of_the_commands_own_is_a_fault_not_success():
    """A worker's pipe breaking (the trainer once ended a run that way with status 0) is not the reader of the
    output going away: it fails, with its traceback."""
    code = ("import sys, frontends.cli as cli\n"
            "def broken(args):\n    raise BrokenPipeError(32, 'a worker pipe')\n"
            "cli.COMMANDS['demo'] = (broken, *cli.COMMANDS['demo'][1:])\nsys.exit(cli.main(['demo']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 1 and "BrokenPipeError" in proc.stderr and "a worker pipe" in proc.stderr

def test_configs_by_name_list_and_copy(tmp_path, capsys):
    from training.config import TrainConfig, shipped_configs

    assert main(["train", "--list-configs"]) == 0
    listed = capsys.readouterr().out
    for name in ("default", "shipped", "tiny", "perevodnoy", "four_players"):
        assert name in shipped_configs() and name in listed
    out = tmp_path / "mine" / "default.yaml"
    assert main(["init-config", "default", "-o", str(out)]) == 0
    assert TrainConfig.load(out) == TrainConfig.load("default") == TrainConfig.load(ROOT / "configs" / "default.yaml")
    out.write_text("rules: podkidnoy\n")
    assert main(["init-config", "tiny", "-o", str(out), "--force"]) == 0
    assert TrainConfig.load(out) == TrainConfig.load("tiny")


def test_serve_occupied_port_is_one_line(capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve on 127.0.0.1:{port}" in err and err.count("\n") == 1
