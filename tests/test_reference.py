"""The reference algorithms (``python -m training.reference``): each trains for a few seconds, writes a
checkpoint, a learning-curve point and a bot file that the project's bots load and play legally, and resumes."""

import json
import subprocess
import sys
import numpy as np
import pytest

from baselines import make_bot
from durak_env import Game, Rules
from training.reference.dmc import move_features
from training.reference.harness import run


pytestmark = pytest.mark.usefixtures("quiet")


@pytest.mark.parametrize("algorithm", ["dmc", "dqn", "dqn-marl", "nfsp", "ppo"])
def test_a_short_run_writes_its_curve_and_a_bot_that_plays_legally_then_resumes(algorithm, tmp_path):
    lines = []
    curve = run(algorithm, minutes=0.06, run_dir=tmp_path, seed=3, eval_every=0.03, eval_games=20, log=lines.append)
    # A stretch ends at the first check past its time, so a slow one may take the whole budget in one point.
    assert 1 <= len(curve) <= 2 and len(lines) == len(curve) and all(p["games"] == 20 for p in curve)
    assert curve[-1]["minutes"] >= 0.06 - 1e-6 and curve[0]["decisions"] > 0
    assert all(a["decisions"] < b["decisions"] and a["minutes"] < b["minutes"] for a, b in zip(curve, curve[1:]))
    assert all(0 <= p["ci"][0] <= p["not_fool"] <= p["ci"][1] <= 1 for p in curve)
    stored = [json.loads(line) for line in (tmp_path / "curve.jsonl").read_text().splitlines()]
    assert stored == curve
    bot = make_bot(str(tmp_path / "bot.onnx"), rules=Rules())
    assert bot.metadata["trainer"] == f"training.reference:{algorithm}"
    game = Game(Rules(), seed=5)
    while not game.is_over:
        action = bot.act(game.view(game.to_act))
        assert action in game.legal_actions()
        game.step(action)
    more = run(algorithm, minutes=curve[-1]["minutes"] + 0.03, run_dir=tmp_path, seed=3, eval_every=0.03,
               eval_games=20, resume=True, log=lines.append)
    assert len(more) == len(curve) + 1 and more[:-1] == curve and more[-1]["decisions"] > curve[-1]["decisions"]
    with pytest.raises(ValueError, match="already holds a run"):
        run(algorithm, minutes=0.06, run_dir=tmp_path, seed=3)
    with pytest.raises(ValueError, match="seed"):
        run(algorithm, minutes=0.2, run_dir=tmp_path, seed=4, resume=True)


def test_dmc_move_features_name_each_moves_kind_and_card():
    rules = Rules()
    features = move_features(rules)
    deck = rules.deck_size
    assert features.shape == (3 * deck + 2, 5 + deck) and (features[:, :5].sum(axis=1) == 1).all()
    for action, kind in [(0, 0), (deck + 7, 1), (2 * deck + 35, 2), (3 * deck, 3), (3 * deck + 1, 4)]:
        assert features[action, kind] == 1
    assert np.flatnonzero(features[deck + 7, 5:]).tolist() == [7] and not features[3 * deck, 5:].any()


def test_usage_errors_exit_2(tmp_path, capsys):
    from training.reference.__main__ import main

    for args in (["nope", "--run-dir", str(tmp_path)], ["dmc"], ["dmc", "--run-dir", str(tmp_path), "--minutes", "0"],
                 ["dmc", "--run-dir", str(tmp_path / "none"), "--resume"]):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        assert exit_info.value.code == 2 and "error:" in capsys.readouterr().err.splitlines()[-1], args
    proc = subprocess.run([sys.executable, "-m", "training.reference", "dmc"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "--run-dir" in proc.stderr  # the module runs as a command


def test_the_baselines_page_and_figure_come_from_the_data(tmp_path):
    from training.reference import report

    run("dmc", minutes=0.03, run_dir=tmp_path / "dmc-tiny", seed=1, eval_every=0.03, eval_games=10, log=print)
    data_path = tmp_path / "baselines.json"
    assert report.main([str(tmp_path / "dmc-tiny"), "--data", str(data_path), "--page", str(tmp_path / "b.md"),
                        "--figure", str(tmp_path / "b.png")]) == 0
    data = json.loads(data_path.read_text())
    entry = data["runs"]["dmc-tiny"]
    assert entry["algorithm"] == "dmc" and entry["seed"] == 1 and len(entry["curve"]) == 1
    text = (tmp_path / "b.md").read_text()
    last = entry["curve"][-1]
    assert f"{last['not_fool']:.3f} [{last['ci'][0]:.3f}, {last['ci'][1]:.3f}]" in text
    assert text == report.page(data) and (tmp_path / "b.png").stat().st_size > 1000
    with pytest.raises(SystemExit) as exit_info:
        report.main([str(tmp_path), "--data", str(data_path)])  # not a run folder
    assert exit_info.value.code == 2


def test_the_shipped_baselines_page_is_its_data():
    """docs/baselines.md is what the report writes from docs/baselines.json (edit the data, not the page)."""
    from pathlib import Path

    from training.reference import report

    docs = Path(__file__).resolve().parent.parent / "docs"
    data = json.loads((docs / "baselines.json").read_text())
    assert (docs / "baselines.md").read_text() == report.page(data)
    assert set(run["algorithm"] for run in data["runs"].values()) <= set(report.NAMES)
