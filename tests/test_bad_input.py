"""Bad input everywhere (issue 7): every CLI subcommand, files that are missing, damaged, foreign or
carry code, bots made for other rules.  One clear line and exit status 2; nothing from a file runs."""

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from baselines import SHIPPED_BOTS, make_bot
from baselines.evaluate import evaluate
from baselines.policy_file import load_bot
from durak_env import Rules
from durak_env.cli import main
from training.export import export
from training.train import load_checkpoint, train

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"
SHIPPED = str(SHIPPED_BOTS["podkidnoy"])


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
    (["demo", "--rules", "seed003", "--players", "1"], "num_players"),
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
    (["eval", "heuristic", SHIPPED, "--players", "3"], "trained for other rules"),
    (["eval", "heuristic", "random", "--games", "0"], "games"),
    (["eval", "heuristic", "random", "--games", "ten"], "invalid int"),
    (["eval", "heuristic", "random", "--games", "4", "--json", "{d}/no/such/dir/out.json"], "cannot write"),
    (["train"], "--config"),
    (["train", "--config", "{d}/missing.yaml"], "cannot read config"),
    (["train", "--config", "{d}/text.yaml"], "not valid YAML"),
    (["train", "--config", "{d}/binary.yaml"], "config"),
    (["train", "--config", str(TINY), "--total-steps", "0"], "total_steps"),
    (["train", "--resume", "{d}/run"], "not a run folder"),
    (["train", "--resume", "{d}/nowhere"], "not a run folder"),
    (["train", "--backend", "tf", "--config", str(TINY)], "unknown backend"),
    (["export", "{d}/missing.pt", "-o", "{d}/x.onnx"], "no checkpoint"),
    (["export", "{d}/garbage.pt", "-o", "{d}/x.onnx"], "garbage.pt"),
    (["export", "{d}/garbage.pt", "--format", "tflite", "-o", "{d}/x"], "invalid choice"),
    (["export", "{d}/garbage.pt"], "required: -o/--output"),
    (["play", "--opponent", "grandmaster"], "unknown bot"),
    (["play", "--opponent", "{d}/garbage.onnx"], "garbage.onnx"),
    (["play", "--opponent", SHIPPED, "--rules", "seed003"], "trained for"),
    (["play", "--seat", "5"], "seat"),
    (["play", "--rules", "chess"], "unknown rules preset"),
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
        proc = subprocess.run([sys.executable, "-m", "durak_env", *argv], capture_output=True, text=True)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_bad_card_strings_typed_in_play_are_answered():
    from durak_env.play import play_game

    answers = iter(["1Z", "attack 11S", "ZZZ", "", "-1", "q"])
    said = []
    bots = [None, make_bot("heuristic")]
    assert play_game(Rules(), bots, 0, lambda prompt: next(answers), said.append, seed=2) is None
    assert sum("Not a legal move here" in s for s in said) >= 4


# ----- files that carry code -----------------------------------------------------------------

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
        train(resume=run, progress=False)
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    capsys.readouterr()
    assert not marker.exists()


def test_a_bot_for_other_rules_or_layout_says_what_it_was_made_for(tmp_path):
    with pytest.raises(ValueError, match="trained for") as err:
        load_bot(SHIPPED, rules=Rules.preset("seed003"))
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
