"""Expert iteration (training/expert.py): the search's move shares are what the policy learns, a bot file's
network loads back exactly, and a run resumes where it stopped."""

import json

import numpy as np
import pytest
import torch
from helpers import opening_batch

from baselines import SHIPPED_BOTS
from baselines.policy_file import load_bot
from durak_env.engine.game import Game
from training.expert import ExpertConfig, distil, run, search_deals
from training.export import policy_from_bot_file

BOT = str(SHIPPED_BOTS["podkidnoy"][0])


def test_a_bot_files_network_loads_with_its_weights():
    """The network rebuilt from a bot file gives the file's own probabilities and value, on real positions."""
    bot = load_bot(BOT)
    net = policy_from_bot_file(BOT)
    obs, mask = opening_batch(bot.encoder, 8)
    probs, values = bot.predict(obs, mask)
    with torch.no_grad():
        logits, head = net(torch.from_numpy(obs), torch.from_numpy(mask))
    np.testing.assert_allclose(torch.softmax(logits, -1).numpy(), probs, atol=1e-5)
    np.testing.assert_allclose(head.numpy(), values, atol=1e-5)


def test_the_search_records_its_move_shares_at_its_choices_only():
    """Every recorded decision had a choice; its shares are a distribution over legal moves only; outcomes are
    the deal's results (1 for out, -1 for the fool, 0 for a draw)."""
    part = search_deals((BOT, 16, 3, 5, (("heuristic", 1.0),)))
    n = len(part["obs"])
    assert n > 20 and len(part["mask"]) == len(part["share"]) == len(part["outcome"]) == n
    assert (part["mask"].sum(1) > 1).all()
    np.testing.assert_allclose(part["share"].sum(1), 1.0, atol=1e-5)
    assert (part["share"][part["mask"] == 0] == 0).all()
    assert set(np.unique(part["outcome"])) <= {-1.0, 0.0, 1.0}


def test_distilling_moves_the_policy_to_the_searchs_choice(tmp_path):
    """Taught that the search prefers another move than the policy's own in these positions, the distilled bot
    plays it: the policy learns the targets, not its old self."""
    bot = load_bot(BOT)
    enc = bot.encoder
    obs, masks, shares = [], [], []
    for seed in range(200):
        game = Game(bot.rules, seed=seed)
        row = np.zeros(enc.size, dtype=np.float32)
        enc.encode_game(game, game.to_act, row)
        mask = np.zeros(enc.num_actions, dtype=np.int8)
        legal = sorted(game.legal_actions())
        mask[legal] = 1
        own = int(np.argmax(bot.predict(row[None], mask[None])[0][0]))
        other = next(a for a in legal if a != own)
        share = np.zeros(enc.num_actions, dtype=np.float32)
        share[other] = 1.0
        obs.append(row), masks.append(mask), shares.append(share)
    data = {"obs": np.array(obs), "mask": np.array(masks), "share": np.array(shares),
            "outcome": np.zeros(len(obs), dtype=np.float32)}
    cfg = ExpertConfig(BOT, str(tmp_path), epochs=40, learning_rate=1e-3, batch_size=64)
    stats = distil(BOT, data, cfg, tmp_path / "bot.onnx")
    taught = load_bot(tmp_path / "bot.onnx")
    probs = taught.predict(data["obs"], data["mask"])[0]
    assert (probs.argmax(1) == data["share"].argmax(1)).mean() > 0.9
    assert stats["held_out_after"]["agreement"] > stats["held_out_before"]["agreement"]
    assert taught.metadata["trainer"] == "expert-iteration" and taught.rules == bot.rules


def test_a_run_resumes_and_refuses_another_configuration(tmp_path):
    """A rerun keeps the parts and the bots made; the same folder with other settings is refused."""
    cfg = ExpertConfig(BOT, str(tmp_path), rounds=1, games=4, playouts=8, epochs=1, workers=1)
    lines = []
    bot = run(cfg, say=lines.append)
    assert load_bot(bot).metadata["guided_by"] == "podkidnoy.onnx"
    assert sorted(p.name for p in (tmp_path / "round-1").iterdir()) == ["bot.onnx", "distil.json", "part-0000.npz"]
    assert json.loads((tmp_path / "round-1" / "distil.json").read_text())["decisions"] > 0
    made = (tmp_path / "round-1" / "bot.onnx").stat().st_mtime_ns
    again = []
    assert run(cfg, say=again.append) == bot and again == []
    assert (tmp_path / "round-1" / "bot.onnx").stat().st_mtime_ns == made
    with pytest.raises(ValueError, match="another configuration"):
        run(ExpertConfig(BOT, str(tmp_path), rounds=1, games=4, playouts=16, epochs=1, workers=1))


def test_rounds_learn_from_a_window_of_rounds_in_a_wider_network(tmp_path, capsys):
    """``window``: round 2 learns from round 1's deals and its own; ``hidden_sizes``: the start's network is widened
    (the same moves) before the first distillation and stays so.  Bad widths are a usage error."""
    from training.expert import main, read_parts

    cfg = ExpertConfig(BOT, str(tmp_path), rounds=2, games=4, playouts=8, epochs=1, workers=1, window=2,
                       hidden_sizes=(160, 128))
    bot = run(cfg, say=lambda line: None)
    own = [len(read_parts(tmp_path / f"round-{k}")["obs"]) for k in (1, 2)]
    stats = [json.loads((tmp_path / f"round-{k}" / "distil.json").read_text()) for k in (1, 2)]
    assert [s["decisions"] for s in stats] == [own[0], own[0] + own[1]]
    assert load_bot(bot).metadata["hidden_sizes"] == [160, 128]
    with pytest.raises(SystemExit) as usage:
        main([BOT, str(tmp_path / "bad"), "--hidden-sizes", "256,x"])
    assert usage.value.code == 2 and "layer widths from 1 to 8192" in capsys.readouterr().err

