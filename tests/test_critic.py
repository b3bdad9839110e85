"""Training levers of issue 47: a critic that sees every hand while the policy sees its seat (``critic: full``,
``durak_env.privileged``), and a run started from a narrower bot's network, widened."""

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import seeded_worker

from baselines import SHIPPED_BOTS
from baselines.policy_file import load_bot
from durak_env import Game, Rules
from durak_env.engine.actions import layout_for
from durak_env.native import NativeGame, available
from durak_env.observation import ObservationEncoder, observation_slices
from durak_env.privileged import PrivilegedEncoder
from training.checkpoints import load_checkpoint
from training.config import ConfigError, TrainConfig
from training.policy import FullCritic, PolicyNet
from training.rollout import gae
from training.train import full_critic, judge, restore, train_ppo

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"


def positions(rules: Rules, seed: int, count: int):
    """Games at ``count`` positions of random play (each a copy), over as many deals as it takes."""
    rng, out = random.Random(seed), []
    game = Game(rules, seed=seed)
    while len(out) < count:
        if game.result is not None:
            game = Game(rules, seed=rng.getrandbits(32))
        out.append(game.clone())
        game.step(rng.choice(game.legal_actions()))
    return out


def test_the_hidden_planes_are_the_other_hands_and_the_stock():
    """Seed 000: each card is in one place.  With the seat's own hand, the table and the discard (its observation)
    and the other hand and the stock (the hidden planes), every card of a 2-player deal is counted exactly once;
    a plane of the wrong seat or the wrong row counts some twice and some never."""
    rules = Rules.preset("podkidnoy")
    games = positions(rules, 1, 200)
    enc, hidden = ObservationEncoder(rules), PrivilegedEncoder(rules)
    assert hidden.size == 72
    obs = enc.encode_games(games, [g.to_act for g in games], np.zeros((len(games), enc.size), np.float32))
    planes = hidden.encode_games(games)
    s = observation_slices(rules)
    seen = sum(obs[:, s[name]] for name in ("hand", "table_open", "table_beaten", "table_defence", "discard"))
    np.testing.assert_array_equal(seen + planes[:, :36] + planes[:, 36:], np.ones((len(games), 36)))
    card_of = layout_for(36).card_of
    for game, row in zip(games[:20], planes[:20]):
        other = game.hands[1 - game.to_act]
        assert [card_of[i] for i in np.flatnonzero(row[:36])] == [c for c in card_of if other >> c & 1]
        assert sorted(card_of[i] for i in np.flatnonzero(row[36:])) == sorted(game.stock)


@pytest.mark.skipif(not available(), reason="the native engine is not built (DURAK_PURE_PYTHON)")
def test_native_and_reference_games_give_the_same_hidden_planes():
    rules = Rules.preset("after-beaten-transfer", num_players=3)
    games = positions(rules, 2, 150)
    hidden = PrivilegedEncoder(rules)
    np.testing.assert_array_equal(hidden.encode_games([NativeGame.of(g) for g in games]), hidden.encode_games(games))


def test_the_universal_layout_puts_relative_seats_past_the_table_at_zero():
    rules = Rules.preset("podkidnoy", num_players=3, deck_size=24)
    game = positions(rules, 3, 5)[-1]
    row = PrivilegedEncoder(rules, universal=True).encode_games([game])[0].reshape(6, 52)
    universal = layout_for(52)
    for r in (1, 2):
        hand = game.hands[(game.to_act + r) % 3]
        assert [universal.card_of[i] for i in np.flatnonzero(row[r - 1])] == [c for c in universal.card_of
                                                                            if hand >> c & 1]
    assert not row[2:5].any()  # relative seats 3..5: no such seat at a 3-seat table
    assert sorted(universal.card_of[i] for i in np.flatnonzero(row[5])) == sorted(game.stock)


def test_gae_over_trajectories_laid_end_to_end():
    """Two trajectories (2 decisions ending in +1, 1 decision ending in -1), gamma 1 and lambda 0.5: worked by hand."""
    values = np.array([0.2, 0.6, 0.1], np.float32)
    adv = gae(values, np.array([2, 1]), np.array([1.0, -1.0], np.float32), 1.0, 0.5)
    # last decision of the first: 1 - 0.6 = 0.4; the one before: (0.6 - 0.2) + 0.5 * 0.4 = 0.6; the second: -1.1
    np.testing.assert_allclose(adv, [0.6, 0.4, -1.1], atol=1e-6)


def test_a_full_critic_judges_the_batch_from_the_hidden_cards():
    """The worker stores each learner decision's hidden planes (again every card once with its observation);
    ``judge`` replaces the values with the critic's, and with gamma = lambda = 1 each return is the deal's reward."""
    cfg = dataclasses.replace(TrainConfig.load(TINY), gamma=1.0, gae_lambda=1.0, num_envs=6, critic="full",
                              opponents={"self": 0.5, "heuristic": 0.5})
    rules = cfg.make_rules()
    worker = seeded_worker(cfg)
    batch = worker.collect(300)
    assert batch.hidden.shape == (len(batch.obs), 72) and batch.lengths.sum() == len(batch.obs)
    s = observation_slices(rules)
    seen = sum(batch.obs[:, s[name]] for name in ("hand", "table_open", "table_beaten", "table_defence", "discard"))
    np.testing.assert_array_equal(seen + batch.hidden[:, :36] + batch.hidden[:, 36:], 1)
    critic = FullCritic(worker.obs_size, 72, [16])
    judge(critic, batch, cfg)
    with torch.no_grad():
        expect = critic(torch.from_numpy(batch.obs), torch.from_numpy(batch.hidden)).numpy()
    np.testing.assert_allclose(batch.value, expect, atol=1e-6)
    np.testing.assert_allclose(batch.ret, np.repeat(batch.finals, batch.lengths), atol=1e-5)


def test_a_full_critic_run_resumes_with_its_critic_and_exports_a_bot_that_reads_its_seat_alone(tmp_path):
    cfg = dataclasses.replace(TrainConfig.load(TINY), critic="full", total_steps=768, eval_every=0)
    run = train_ppo(cfg, run_dir=tmp_path / "run", progress=False, stop_after=2)
    first = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert set(first["critic"]) >= {"v.weight", "trunk.0.weight"}
    assert first["critic"]["trunk.0.weight"].shape[1] == 309 + 72  # the observation and the hidden planes
    net, critic = PolicyNet(309, 110, cfg.hidden_sizes), full_critic(cfg, cfg.make_rules())
    opt = torch.optim.Adam([*net.parameters(), *critic.parameters()])
    restore(run, net, critic, opt, torch.Generator())
    assert all(torch.equal(critic.state_dict()[k], first["critic"][k]) for k in first["critic"])
    train_ppo(resume=run, progress=False)
    last = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert last["update"] == 3 and not torch.equal(last["critic"]["v.weight"], first["critic"]["v.weight"])
    bot = load_bot(run / "bot.onnx")
    assert bot.encoder.size == 309 and bot.has_value  # the policy's own value head, for search:net and hints


def test_a_run_starts_from_a_narrower_bot_widened(tmp_path):
    """A [128, 128] bot starts a [160, 128] run computing its moves (Net2Net; a learning rate of almost nothing
    keeps them); a narrower layer or another depth is refused in one line."""
    shipped = str(SHIPPED_BOTS["podkidnoy"][0])
    base = {**TrainConfig.load(TINY).to_dict(), "init_from": shipped, "learning_rate": 1e-7, "total_steps": 256,
            "eval_every": 0}
    cfg = TrainConfig.from_dict({**base, "hidden_sizes": [160, 128]})
    run = train_ppo(cfg, run_dir=tmp_path / "wide", progress=False)
    start, after = load_bot(shipped), load_bot(run / "bot.onnx")
    assert after.metadata["hidden_sizes"] == [160, 128]
    from helpers import opening_batch

    obs, mask = opening_batch(start.encoder, 32)
    np.testing.assert_allclose(after.predict(obs, mask)[0], start.predict(obs, mask)[0], atol=2e-2)
    for widths in ([64, 128], [128, 128, 128]):
        with pytest.raises(ConfigError, match=r"init_from: .* \(as many layers, none narrower\)"):
            TrainConfig.from_dict({**base, "hidden_sizes": widths})


def test_a_critic_that_is_neither_seat_nor_full_is_refused():
    with pytest.raises(ConfigError, match=r"critic must be one of seat, full, got 'perfect'"):
        TrainConfig.from_dict({**TrainConfig.load(TINY).to_dict(), "critic": "perfect"})
