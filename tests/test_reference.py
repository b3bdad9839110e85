"""The reference algorithms (``python -m training.reference``): each trains for a few seconds, writes a
checkpoint, a learning-curve point and a bot file that the project's bots load and play legally, and resumes."""

import dataclasses
import json
import subprocess
import sys
import numpy as np
import pytest

from baselines import make_bot
from durak_env import Game, Rules
from training.reference.dmc import move_features
from training.reference import report
from training.reference.harness import run


pytestmark = pytest.mark.usefixtures("quiet")


@pytest.mark.parametrize("algorithm", ["dmc", "dqn", "dqn-marl", "nfsp", "ppo"])
def test_a_short_run_writes_its_curve_and_a_bot_that_plays_legally_then_resumes(algorithm, tmp_path):
    lines = []
    curve = run(algorithm, minutes=0.04, run_dir=tmp_path, seed=3, eval_every=0.02, eval_games=20, log=lines.append)
    # A stretch ends at the first check past its time, so a slow one may take the whole budget in one point.
    assert 1 <= len(curve) <= 2 and len(lines) == len(curve) and all(p["games"] == 20 for p in curve)
    assert curve[-1]["minutes"] >= 0.04 - 1e-6 and curve[0]["decisions"] > 0
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
    # The curve rounds minutes to 0.001 (0.06 s); 0.015 more is one stretch shorter than eval_every whatever the rounding.
    more = run(algorithm, minutes=curve[-1]["minutes"] + 0.015, run_dir=tmp_path, seed=3, eval_every=0.02,
               eval_games=20, resume=True, log=lines.append)
    assert len(more) == len(curve) + 1 and more[:-1] == curve and more[-1]["decisions"] > curve[-1]["decisions"]
    entry = report.reference_run(tmp_path)  # the page's entry: the resumed budget's run, with both starts
    assert entry["minutes"] == curve[-1]["minutes"] + 0.015 and len(entry["starts"]) == 2 and entry["curve"] == more
    with pytest.raises(ValueError, match="already holds a run"):
        run(algorithm, minutes=0.04, run_dir=tmp_path, seed=3)
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


def test_durak_train_runs_and_the_ladder_join_the_data(tmp_path):
    """A ``durak train`` run of a shown config joins with the options that give its settings, its evaluations as the
    curve; the ladder's pairings give each run's bot its rating; the page lists what the data still lacks."""
    import yaml

    from training.config import TrainConfig
    folder = tmp_path / "mmd-30"
    folder.mkdir()
    cfg = dataclasses.replace(TrainConfig.load("mmd"), seed=4)
    (folder / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    rows = [{"update": u, "global_step": 8192 * u, "minutes": m, "table": "podkidnoy-2", "seats": 2, "not_fool": nf,
             "not_fool_ci": [nf - 0.03, nf + 0.03], "fool_rate": 1 - nf, "score": 0.0, "games": 1000}
            for u, m, nf in ((1000, 5.2, 0.31), (5000, 29.8, 0.42))]
    (folder / "evals.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pairings = [{"a": a, "b": b, "games": 400, "a_fools": f, "b_fools": 400 - f, "draws": 0}
                for a, b, f in (("random", "heuristic", 360), ("heuristic", report.run_bot("mmd-30"), 250),
                                ("random", report.run_bot("mmd-30"), 370))]
    (tmp_path / "ladder.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pairings))
    data_path = tmp_path / "baselines.json"
    assert report.main([str(folder), "--ladder", str(tmp_path / "ladder.jsonl"), "--data", str(data_path)]) == 0
    data = json.loads(data_path.read_text())
    entry = data["runs"]["mmd-30"]
    assert entry["algorithm"] == "mmd" and entry["minutes"] == 30 and entry["seed"] == 4
    assert entry["command"] == "durak train --config configs/mmd.yaml --seed 4 --run-dir runs/reference/mmd-30"
    assert [p["decisions"] for p in entry["curve"]] == [8192000, 40960000] and entry["curve"][-1]["not_fool"] == 0.42
    ratings = data["ladder"]
    assert ratings["random"]["rating"] == 1000 and ratings[report.run_bot("mmd-30")]["rating"] > \
        ratings["heuristic"]["rating"] > 1000
    text = report.page(data)
    mmd = ratings[report.run_bot("mmd-30")]
    assert f"| 0.420 [0.390, 0.450] | 1,000 | {mmd['rating']:.0f} [" in text
    assert "runs/reference/mmd-30/bot.onnx" in report.ladder_command(data)
    assert "- NFSP (OpenSpiel) at 30 minutes." in text and "- MMD, magnetic mirror descent" not in text
    assert report.missing(data["runs"]) == [(a, 30) for a in report.NAMES if a != "mmd"] + [("recipe", 120)]
    cfg.learning_rate *= 2  # no longer the shipped file's settings: refused
    (folder / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    with pytest.raises(SystemExit) as exit_info:
        report.main([str(folder), "--data", str(data_path)])
    assert exit_info.value.code == 2


def test_the_shipped_baselines_page_is_its_data():
    """docs/baselines.md is what the report writes from docs/baselines.json (edit the data, not the page)."""
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    data = json.loads((docs / "baselines.json").read_text())
    assert (docs / "baselines.md").read_text() == report.page(data)
    assert set(run["algorithm"] for run in data["runs"].values()) <= set(report.NAMES)
