"""Merging the specialists into the universal policy (training/merge.py, issue 29): at a specialist's table the
targets are the specialist's, elsewhere the universal policy's own; a run writes a universal bot file and
resumes where it stopped."""

import json

import numpy as np
import pytest
import torch

from baselines import SHIPPED_BOTS
from baselines.policy_file import bot_metadata, load_bot
from durak_env.engine.actions import translation
from durak_env.observation import network_shape
from durak_env.tables import Tables
from training import merge
from training.export import write_bot
from training.policy import ActionProbabilities, PolicyNet, widen


def universal_file(folder, tables: Tables):
    """An untrained universal network dealt ``tables``, exported as a bot file."""
    torch.manual_seed(0)
    net = PolicyNet(*network_shape(None), [32])
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.3)
    meta = bot_metadata(None, [32], trainer="test", tables=tables.to_dict())
    return str(write_bot(ActionProbabilities(net), meta, *network_shape(None), "onnx", folder / "universal.onnx"))


class Lowest:
    """A stand-in specialist whose probabilities are all on the lowest legal move in its own layout."""

    universal = False

    def probabilities(self, view):
        probs = np.zeros(len(translation(view.rules.deck_size)), dtype=np.float32)
        probs[min(view.legal_actions)] = 1.0
        return probs


def test_where_no_specialist_plays_the_targets_are_the_students_own(tmp_path):
    start = universal_file(tmp_path, Tables(presets=("attacker-only",), seats=(2, 3), random_share=0.5))
    merge._players.cache_clear()
    part = merge.taught_deals((start, None, None, 6, 1, 0.5, 0.5, 0.3, 0))
    assert len(part["obs"]) > 50 and (part["mask"].sum(1) > 1).all()
    own = load_bot(start).predict(part["obs"], part["mask"])[0]
    np.testing.assert_allclose(part["share"], own, atol=1e-5)
    assert (np.abs(part["outcome"]) <= 1).all()


def test_at_a_specialists_table_the_targets_are_the_specialists(tmp_path, monkeypatch):
    """Every decision at podkidnoy-2 (its specialist's table) is taught the specialist's probabilities,
    translated into the universal layout: here all on the lowest legal move."""
    start = universal_file(tmp_path, Tables(presets=("podkidnoy",), seats=(2,), random_share=0.0))
    monkeypatch.setattr(merge, "specialists", lambda tables: {rules: Lowest() for _, rules in tables.named()})
    merge._players.cache_clear()
    part = merge.taught_deals((start, None, None, 4, 2, 1.0, 0.5, 0.0, 0))
    merge._players.cache_clear()
    assert len(part["obs"]) > 20
    np.testing.assert_allclose(part["share"].sum(1), 1.0)
    assert (part["share"].argmax(1) == part["mask"].argmax(1)).all()  # the lowest legal move, in either layout
    own = load_bot(start).predict(part["obs"], part["mask"])[0]
    assert np.abs(part["share"] - own).max() > 0.5


def test_with_playouts_the_targets_elsewhere_are_the_searchs_move_shares(tmp_path):
    """At a table without a specialist the search guided by the student teaches: each row is its playouts
    through each move (twelfths, at 12 playouts), not the student's own probabilities."""
    start = universal_file(tmp_path, Tables(presets=("attacker-only",), seats=(3,), random_share=0.0))
    merge._players.cache_clear()
    part = merge.taught_deals((start, None, None, 2, 3, 0.0, 1.0, 0.0, 12))
    assert len(part["obs"]) > 10
    np.testing.assert_allclose(part["share"].sum(1), 1.0, atol=1e-5)
    assert (part["share"][part["mask"] == 0] == 0).all()
    np.testing.assert_allclose(part["share"] * 12, np.round(part["share"] * 12), atol=1e-4)  # 12 playouts
    own = load_bot(start).predict(part["obs"], part["mask"])[0]
    assert np.abs(part["share"] - own).max() > 0.3


def test_the_shipped_specialists_are_found_at_their_tables():
    tables = Tables(presets=("podkidnoy", "attacker-only", "tournament"), seats=(2, 4))
    found = merge.specialists(tables)
    assert set(found) == {SHIPPED_BOTS["podkidnoy"][1], SHIPPED_BOTS["tournament"][1]}
    assert all(not bot.universal and bot.rules == rules for rules, bot in found.items())


def test_a_run_writes_a_universal_bot_resumes_and_refuses_another_configuration(tmp_path):
    start = universal_file(tmp_path, Tables(presets=("podkidnoy", "attacker-only"), seats=(2,), random_share=0.0))
    out = tmp_path / "run"
    cfg = merge.MergeConfig(start, str(out), games=4, epochs=1, workers=1)
    lines = []
    bot = load_bot(merge.run(cfg, say=lines.append))
    assert bot.universal and bot.metadata["trainer"] == "distillation"
    assert bot.metadata["tables"]["presets"] == ["podkidnoy", "attacker-only"]
    assert json.loads((out / "merge.json").read_text())["decisions"] > 0
    made = (out / "bot.onnx").stat().st_mtime_ns
    again = []
    assert merge.run(cfg, say=again.append) == str(out / "bot.onnx") and again == []
    assert (out / "bot.onnx").stat().st_mtime_ns == made
    first = bot.metadata
    assert first["source"]["trainer"] == "test" and [r["start"] for r in first["rounds"]] == [start]
    second = load_bot(merge.run(merge.MergeConfig(str(out / "bot.onnx"), str(tmp_path / "again"), games=2, epochs=1,
                                                  workers=1, playouts=4), say=lines.append)).metadata
    assert second["source"] == first["source"] and [r["playouts"] for r in second["rounds"]] == [0, 4]
    (out / "bot.onnx").unlink()
    with pytest.raises(ValueError, match="another configuration"):
        merge.run(merge.MergeConfig(start, str(out), games=8, epochs=1, workers=1))


def test_a_specialist_file_is_refused_in_one_line(tmp_path, capsys):
    assert merge.main([str(SHIPPED_BOTS["podkidnoy"][0]), str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("merge: ") and "universal" in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("args, words", [(["--specialist-share", "1.5"], "specialist-share must be a share"),
                                         (["--games", "0"], "games must be at least 1"),
                                         (["--random-share", "-0.1"], "random-share must be a share"),
                                         (["--hidden", "64", "0"], "hidden must be layer widths")])
def test_bad_settings_are_refused_in_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as stop:
        merge.main([str(SHIPPED_BOTS["universal"][0]), str(tmp_path / "run"), *args])
    assert stop.value.code == 2 and words in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_widened_network_plays_as_the_narrow_one():
    """Net2WiderNet: more units, the same function (exactly without noise; within a hair with the noise that
    lets the copies learn apart), and never narrower."""
    torch.manual_seed(1)
    net = PolicyNet(40, 9, [24, 16])
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.5)
    obs, mask = torch.randn(200, 40), (torch.rand(200, 9) < 0.6).to(torch.int8)
    mask[:, 0] = 1
    logits, value = net(obs, mask)
    exact = widen(net, [60, 33], noise=0)
    assert exact.hidden_sizes == [60, 33] and exact.trunk[0].weight.shape == (60, 40) and exact.pi.weight.shape == (9, 33)
    wide_logits, wide_value = exact(obs, mask)
    torch.testing.assert_close(wide_logits, logits, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(wide_value, value, atol=1e-4, rtol=1e-4)
    jittered = widen(net, [60, 33], seed=3)
    copies = jittered.trunk[0].weight[24:]
    assert not torch.equal(copies, exact.trunk[0].weight[24:])  # the copies start apart
    assert torch.equal(jittered.trunk[0].weight[:24], net.trunk[0].weight)  # the originals do not move
    probs, wide_probs = torch.softmax(logits, -1), torch.softmax(jittered(obs, mask)[0], -1)
    assert (probs - wide_probs).abs().max() < 0.05 and (probs - wide_probs).abs().mean() < 1e-3
    for narrower in ([16, 16], [24]):
        with pytest.raises(ValueError, match="does not widen"):
            widen(net, narrower)


def test_a_run_can_widen_the_network_and_refuses_narrower_before_dealing(tmp_path):
    start = universal_file(tmp_path, Tables(presets=("podkidnoy",), seats=(2,), random_share=0.0))
    bot = load_bot(merge.run(merge.MergeConfig(start, str(tmp_path / "wide"), games=2, epochs=1, workers=1,
                                               hidden=(48,)), say=lambda line: None))
    assert bot.metadata["hidden_sizes"] == [48] and bot.metadata["rounds"][-1]["hidden"] == [48]
    with pytest.raises(ValueError, match="does not widen"):
        merge.run(merge.MergeConfig(start, str(tmp_path / "narrow"), games=2, epochs=1, workers=1, hidden=(16,)))
    assert not list((tmp_path / "narrow").glob("part-*"))
