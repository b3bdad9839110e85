"""Magnetic mirror descent (``magnet_coef``, ``configs/mmd.yaml``): the policy loss pulls the policy toward the
magnet, a copy of itself refreshed every ``magnet_every`` updates, which a resumed run keeps."""

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from durak_env import Game, Rules
from durak_env.observation import ObservationEncoder
from training.checkpoints import load_checkpoint
from training.config import ConfigError, TrainConfig
from training.policy import PolicyNet
from training.rollout import Batch
from training.train import RunState, mmd_magnet, ppo_update, take_snapshots, train_ppo

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"


def random_batch(rules: Rules, rows: int, seed: int) -> Batch:
    """Positions of random play with zero advantages and returns: a batch whose PPO loss has no pull of its own."""
    rng = np.random.default_rng(seed)
    enc, games, seats = ObservationEncoder(rules), [], []
    game = Game(rules, seed=seed)
    while len(games) < rows:
        if game.result is not None:
            game = Game(rules, seed=int(rng.integers(2**31)))
        games.append(game.clone())
        seats.append(game.to_act)
        game.step(int(rng.choice(game.legal_actions())))
    obs = enc.encode_games(games, seats, np.zeros((rows, enc.size), np.float32))
    mask = np.zeros((rows, enc.num_actions), np.int8)
    action = np.zeros(rows, np.int64)
    for i, g in enumerate(games):
        legal = g.legal_actions()
        mask[i, legal] = 1
        action[i] = legal[0]
    zeros = np.zeros(rows, np.float32)
    return Batch(obs, mask, action, np.full(rows, -1.0, np.float32), zeros, zeros, zeros, 0, [], [])


def kl(net: PolicyNet, magnet: PolicyNet, batch: Batch) -> float:
    obs, mask = torch.from_numpy(batch.obs), torch.from_numpy(batch.mask)
    with torch.no_grad():
        p = torch.log_softmax(net(obs, mask)[0], -1)
        q = torch.log_softmax(magnet(obs, mask)[0], -1)
        return float((p.exp() * (p - q)).sum(-1).mean())


def test_the_magnet_term_pulls_the_policy_toward_the_magnet_and_nothing_else_does():
    """From the same weights on a batch without advantages, updates with ``magnet_coef`` bring the policy closer to
    a magnet of other weights; without it (or with the entropy bonus off and the coefficient 0) they do not."""
    rules = Rules.preset("podkidnoy")
    cfg = dataclasses.replace(TrainConfig.load(TINY), ent_coef=0.0, update_epochs=8, minibatch_size=64,
                              learning_rate=3e-3)
    batch = random_batch(rules, 256, seed=4)
    enc = ObservationEncoder(rules)
    torch.manual_seed(0)
    start = PolicyNet(enc.size, enc.num_actions, [32])
    magnet = copy.deepcopy(start).requires_grad_(False)
    with torch.no_grad():  # far from the fresh weights, whose moves are all but uniform
        for p in magnet.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.3)
    before = kl(start, magnet, batch)
    after = {}
    for coef in (0.0, 1.0):
        net = copy.deepcopy(start)
        opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
        stats = ppo_update(net, None, opt, batch, dataclasses.replace(cfg, magnet_coef=coef),
                           torch.Generator().manual_seed(0), magnet=magnet if coef else None)
        after[coef] = kl(net, magnet, batch)
        assert (stats["magnet_kl"] > 0) == bool(coef)
    assert after[1.0] < 0.5 * before
    assert after[0.0] > 0.9 * before


def test_the_magnet_is_the_policy_after_the_last_multiple_of_magnet_every_updates():
    cfg = dataclasses.replace(TrainConfig.load(TINY), magnet_coef=0.1, magnet_every=3)
    net = PolicyNet(10, 4, [8])
    state = RunState()
    magnet = mmd_magnet(state, net, cfg)  # as the run starts: the policy then
    taken = copy.deepcopy(net.state_dict())
    for update in (1, 2, 3, 4):
        with torch.no_grad():
            for p in net.parameters():
                p.add_(1.0)
        state.update = update
        take_snapshots(state, net, magnet, cfg)
        if update == 3:
            taken = copy.deepcopy(net.state_dict())
        assert all(torch.equal(magnet.state_dict()[k], taken[k]) and torch.equal(state.magnet[k], taken[k])
                   for k in taken), update
    assert mmd_magnet(state, net, dataclasses.replace(cfg, magnet_coef=0.0)) is None
    resumed = mmd_magnet(state, PolicyNet(10, 4, [8]), cfg)  # a resumed run's: the checkpoint's magnet
    assert all(torch.equal(resumed.state_dict()[k], taken[k]) for k in taken)


def test_a_run_with_a_magnet_keeps_it_in_its_checkpoints_and_resumes(tmp_path):
    cfg = dataclasses.replace(TrainConfig.load(TINY), magnet_coef=0.1, magnet_every=2, eval_every=0)
    run = train_ppo(cfg, run_dir=tmp_path / "run", progress=False, export_onnx=False, stop_after=3)
    ckpt = load_checkpoint(run / "checkpoints" / "latest.pt")
    one, two = (load_checkpoint(run / "checkpoints" / f"update_00000{u}.pt") for u in (1, 2))
    same = lambda a, b: a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)  # noqa: E731
    assert ckpt["update"] == 3
    assert same(two["magnet"], two["model"]) and same(ckpt["magnet"], two["model"])  # taken after update 2
    assert not same(one["magnet"], one["model"]) and not same(one["magnet"], two["magnet"])  # the fresh weights
    train_ppo(resume=run, progress=False, export_onnx=False)
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 4


def test_the_mmd_config_is_self_play_from_fresh_weights_with_a_magnet():
    cfg = TrainConfig.load("mmd")
    assert cfg.opponents == {"self": 1.0} and cfg.pretrain_games == 0 and cfg.init_from is None
    assert cfg.magnet_coef > 0 and cfg.time_budget == 30
    for name, bad in (("magnet_coef", -0.1), ("magnet_every", 0)):
        with pytest.raises(ConfigError, match=name):
            TrainConfig.from_dict({name: bad})
