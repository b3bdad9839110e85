"""Training end to end on a tiny config: masked sampling, checkpoints, resume, export, loading, playing."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from baselines import SHIPPED_BOTS, make_bot
from baselines.evaluate import evaluate
from baselines.policy_file import load_bot
from durak_env import Game, Rules
from frontends.cli import main
from training.checkpoints import load_checkpoint
from training.config import TrainConfig
from training.export import export, policy_from_checkpoint
from training.policy import sample_masked
from training.train import train_ppo

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"


def test_masked_sampling_never_picks_an_illegal_action():
    gen = torch.Generator().manual_seed(0)
    for _ in range(50):
        mask = (torch.rand(64, 110, generator=gen) < 0.05).to(torch.int8)
        mask[torch.arange(64), torch.randint(0, 110, (64,), generator=gen)] = 1
        logits = torch.randn(64, 110, generator=gen) * 5
        logits = logits.masked_fill(mask == 0, -1e9)
        actions, logp = sample_masked(logits, gen)
        assert mask[torch.arange(64), actions].all()
        assert torch.isfinite(logp).all()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("run") / "tiny"
    cfg = TrainConfig.load(TINY)
    train_ppo(cfg, run_dir=run, progress=False, stop_after=2)  # as if killed after two updates
    first = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert first["update"] == 2 and not (run / "bot.onnx").exists()
    train_ppo(resume=run, progress=False)
    return run


def test_training_runs_resumes_and_exports(tiny_run):
    ckpt = load_checkpoint(tiny_run / "checkpoints" / "latest.pt")
    assert ckpt["update"] == 4 and ckpt["global_step"] >= 1024
    assert (tiny_run / "bot.onnx").exists() and (tiny_run / "learning_curve.png").exists()
    evals = [json.loads(line) for line in (tiny_run / "evals.jsonl").read_text().splitlines()]
    assert [e["update"] for e in evals] == [2, 4]
    assert 0 < evals[0]["minutes"] <= evals[1]["minutes"] <= ckpt["seconds"] / 60  # the run's wall clock, resumed
    assert list((tiny_run / "tb").iterdir())


def test_exported_onnx_matches_torch(tiny_run, tmp_path):
    ckpt = load_checkpoint(tiny_run / "checkpoints" / "latest.pt")
    net = policy_from_checkpoint(ckpt)
    onnx_bot = load_bot(export(tiny_run, "onnx", tmp_path / "bot.onnx"))
    ts_bot = load_bot(export(tiny_run, "torchscript", tmp_path / "bot.pt"))
    game = Game(Rules(), seed=5)
    rng = np.random.default_rng(0)
    compared = 0
    while not game.is_over:
        view = game.view(game.to_act)
        if len(view.legal_actions) > 1:
            p_onnx, p_ts = onnx_bot.probabilities(view), ts_bot.probabilities(view)
            obs = torch.from_numpy(onnx_bot.encoder.encode(view)[None])
            mask = torch.from_numpy(onnx_bot.encoder.mask(view)[None])
            with torch.no_grad():
                p_torch = torch.softmax(net(obs, mask)[0], -1).numpy()[0]
            np.testing.assert_allclose(p_onnx, p_torch, atol=1e-5)
            np.testing.assert_allclose(p_ts, p_torch, atol=1e-5)
            assert p_onnx[[a for a in range(len(p_onnx)) if a not in view.legal_actions]].max() < 1e-6
            compared += 1
        game.step(int(rng.choice(view.legal_actions)))
    assert compared > 5


def test_exported_bot_plays_in_the_evaluator(tiny_run):
    report = evaluate([str(tiny_run / "bot.onnx"), "heuristic"], Rules(), games=4, workers=1)
    assert report.games == 4 and report.stats[0].decisions > 0


def test_bot_for_other_rules_is_refused(tiny_run, capsys):
    with pytest.raises(ValueError, match="trained for other rules"):
        load_bot(tiny_run / "bot.onnx", rules=Rules.preset("tournament"))
    assert main(["eval", str(tiny_run / "bot.onnx"), "heuristic", "--rules", "tournament", "--quiet"]) == 2
    assert "other rules" in capsys.readouterr().err


def test_damaged_and_foreign_files_are_refused(tiny_run, tmp_path):
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes((tiny_run / "bot.onnx").read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable ONNX bot"):
        load_bot(damaged)
    with pytest.raises(ValueError, match="not an exported bot"):
        load_bot(tiny_run / "checkpoints" / "latest.pt")
    text = tmp_path / "bot.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match="not a bot file"):
        load_bot(text)
    with pytest.raises(ValueError, match="no bot file"):
        load_bot(tmp_path / "missing.onnx")


def test_export_cli(tiny_run, tmp_path, capsys):
    assert main(["export", str(tiny_run / "checkpoints" / "latest.pt"), "--format", "torchscript",
                 "-o", str(tmp_path / "b.pt")]) == 0
    assert make_bot(str(tmp_path / "b.pt")).rules == Rules()
    assert main(["export", str(tmp_path / "nope.pt"), "-o", str(tmp_path / "x.onnx")]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_resume_needs_a_run_folder(tmp_path, capsys):
    assert main(["train", "--resume", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
    shutil.rmtree(tmp_path)


def test_teacher_warm_start_learns_the_teachers_moves():
    from training.policy import PolicyNet
    from training.pretrain import collect, fit

    data = collect(Rules(), "heuristic", games=30, seed=1, workers=1)
    obs, masks, actions, returns = data
    assert len(obs) == len(masks) == len(actions) == len(returns) > 100
    assert masks[np.arange(len(actions)), actions].all()  # every recorded move was legal
    assert set(np.unique(returns)) <= {-1.0, 0.0, 1.0}
    net = PolicyNet(obs.shape[1], masks.shape[1], [64])
    stats = fit(net, data, epochs=30, lr=3e-3, batch_size=256, seed=0)
    assert stats["accuracy"] > 0.9  # the heuristic is a deterministic function of the view


def test_sharpening_divides_the_logits_and_keeps_the_greedy_move():
    """``pretrain_temperature``: the imitation's logits over the temperature, so the sampled play comes
    closer to the greedy one; the most likely move, the masked moves and the value do not change."""
    from training.policy import PolicyNet

    torch.manual_seed(0)
    net = PolicyNet(309, 110, [32])
    obs = torch.rand(64, 309)
    mask = (torch.rand(64, 110) < 0.3).to(torch.int8)
    mask[:, 108] = 1
    before, value = net(obs, mask)
    net.sharpen(0.25)
    after, value_after = net(obs, mask)
    legal = mask == 1
    torch.testing.assert_close(after[legal], 4 * before[legal])
    assert (after[~legal] == before[~legal]).all() and torch.equal(value, value_after)
    assert torch.equal(after.argmax(1), before.argmax(1))
    entropy = lambda logits: -(torch.softmax(logits, 1) * torch.log_softmax(logits, 1)).sum(1)  # noqa: E731
    assert (entropy(after) <= entropy(before) + 1e-6).all() and entropy(after).mean() < entropy(before).mean()


def test_a_fixed_seed_reproduces_a_run(tmp_path):
    cfg = TrainConfig.load(TINY)
    cfg.total_steps, cfg.eval_every = 512, 0
    runs = [train_ppo(TrainConfig.from_dict(cfg.to_dict()), run_dir=tmp_path / f"r{i}", progress=False, export_onnx=False)
            for i in range(2)]
    cfg.seed += 1
    other = train_ppo(cfg, run_dir=tmp_path / "other", progress=False, export_onnx=False)
    weights = [load_checkpoint(r / "checkpoints" / "latest.pt")["model"] for r in (*runs, other)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert not all(torch.equal(weights[0][k], weights[2][k]) for k in weights[0])  # the control differs


def test_onnx_bot_runs_without_torch(tiny_run):
    import subprocess
    import sys

    code = ("import sys; from baselines import make_bot; from durak_env import Game, Rules; "
            f"bot = make_bot({str(tiny_run / 'bot.onnx')!r}); g = Game(Rules(), seed=1); "
            "v = g.view(g.to_act); assert bot.act(v) in v.legal_actions; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_shipped_bot_loads_and_plays():
    bot = make_bot("trained")
    assert bot.rules == Rules()
    assert (ROOT / "baselines" / "bots" / "podkidnoy.onnx").stat().st_size < 400_000
    game = Game(Rules(), seed=2)
    while not game.is_over:
        view = game.view(game.to_act)
        game.step(bot.act(view) if game.to_act == 0 else view.legal_actions[0])


@pytest.mark.parametrize("family", sorted(SHIPPED_BOTS))
def test_every_shipped_bot_says_what_it_was_trained_for(family):
    """Issue 12: "the bot files say what they were trained for" -- the rules, in words too, and the recipe."""
    path, made_for = SHIPPED_BOTS[family]
    bot = make_bot(f"trained:{family}")
    meta = bot.metadata
    if made_for is None:  # the universal bot: any rules, and what "trained" plays where no specialist does
        assert bot.universal and meta["rules"] is None and meta["trained_for"] == "any rules"
        made_for = Rules.preset("throw-after-take", num_players=5)
        assert make_bot("trained", rules=made_for).universal
    else:
        assert bot.rules == made_for and meta["trained_for"] == made_for.describe()
    assert make_bot("trained", rules=made_for).rules == made_for
    if meta["trainer"] == "distillation":  # PPO, then the specialists merged in (training/merge.py): its rounds
        assert meta["rounds"] and all(r["decisions"] > 100_000 for r in meta["rounds"])
        meta = meta["source"]
    assert meta["trainer"] == "ppo" and meta["config"].startswith("configs/") and (ROOT / meta["config"]).exists()
    kinds = {"self", "pool", "heuristic", "easy", "random", "search"}
    frozen = {name for name in meta["opponents"] if name.startswith("trained:")}  # a shipped bot, kept frozen
    assert meta["global_step"] > 1_000_000 and set(meta["opponents"]) - frozen <= kinds
    assert all(name.partition(":")[2] in SHIPPED_BOTS for name in frozen)


def test_warm_start_runs_before_ppo_and_is_evaluated(tmp_path):
    cfg = TrainConfig.load(TINY)
    cfg.total_steps, cfg.eval_every, cfg.pretrain_games, cfg.pretrain_teacher = 256, 0, 10, "heuristic"
    cfg.pretrain_temperature = 0.5
    run = train_ppo(cfg, run_dir=tmp_path / "warm", progress=False, export_onnx=False)
    pretrain = json.loads((run / "pretrain.json").read_text())
    assert pretrain["decisions"] > 50 and pretrain["temperature"] == 0.5
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert evals[0]["update"] == 0 and evals[-1]["update"] == 1
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["meta"]["teacher"] == "heuristic"


def test_a_time_budget_ends_the_run_and_leaves_room_for_the_last_evaluation(tmp_path):
    """``time_budget`` stops PPO before total_steps (here out of reach) so that the run, its last evaluation and
    the export fit in the budget; the learning rate has annealed towards zero by then."""
    import time

    cfg = TrainConfig.load(TINY)
    cfg.total_steps, cfg.time_budget, cfg.eval_every = 10**9, 0.4, 0  # 24 seconds
    started = time.monotonic()
    run = train_ppo(cfg, run_dir=tmp_path / "budget", progress=False)
    took = time.monotonic() - started
    ckpt = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert ckpt["finished"] and (run / "bot.onnx").exists() and ckpt["update"] > 2
    assert took < 24 + 15  # the budget, and a margin for the export and process start-up
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert evals[-1]["update"] == ckpt["update"]


def test_rollout_batches_hold_each_seats_own_decisions_with_the_deals_outcome():
    """Every stored decision is the acting seat's own (its observation says it is to act, the action is legal
    in its mask); with gamma = lambda = 1 every return is the deal's final reward for that seat; learner
    trajectories cross collections without losing or mixing decisions."""
    import dataclasses

    from durak_env.observation import observation_slices
    from helpers import seeded_worker

    cfg = dataclasses.replace(TrainConfig.load(TINY), gamma=1.0, gae_lambda=1.0, num_envs=6,
                              opponents={"self": 0.5, "heuristic": 0.5})
    rules = cfg.make_rules()
    worker = seeded_worker(cfg)
    to_act = observation_slices(rules)["to_act"]
    for _ in range(3):
        batch = worker.collect(300)
        assert len(batch.action) >= 300 and batch.games > 0
        assert (batch.obs[:, to_act.start] == 1).all()  # relative seat 0, the observer, is the one to act
        assert batch.mask[np.arange(len(batch.action)), batch.action].all()
        assert set(np.unique(np.round(batch.ret, 5)).tolist()) <= {-1.0, 0.0, 1.0}
        np.testing.assert_allclose(batch.advantage + batch.value, batch.ret, atol=1e-5)


@pytest.mark.parametrize("reward, paid", [("placings", {-1.0, 0.0, 1.0}), ("fool", {-1.0, 0.0, 0.5})])
def test_a_deal_pays_by_placings_or_puts_its_stake_on_the_fool(reward, paid):
    """``reward: fool``: at three seats the fool's decisions return -1 and the other two seats' +1/2 each, where
    placings pay first +1, second 0, the fool -1 (gamma = lambda = 1: each return is the deal's payment)."""
    import dataclasses

    from helpers import seeded_worker

    cfg = dataclasses.replace(TrainConfig.load(TINY), rules={"preset": "podkidnoy", "num_players": 3}, reward=reward,
                              gamma=1.0, gae_lambda=1.0, num_envs=6, opponents={"self": 1.0})
    returns = set(np.round(seeded_worker(cfg).collect(600).ret, 5).tolist())
    assert {-1.0} < returns <= paid and returns - {-1.0, 0.0}  # a fool and a seat that is not


def test_a_stake_on_the_fool_reads_the_fool_off_the_placings():
    from durak_env.engine.game import staked

    assert staked([1.0, -1.0], "fool") == [1.0, -1.0]  # two seats: the same
    assert staked([0.2, -1.0, 1.0, -0.2, 0.6, -0.6], "fool") == [0.2, -1.0, 0.2, 0.2, 0.2, 0.2]
    assert staked([1.0, 0.0, 0.0], "fool") == [0.0, 0.0, 0.0]  # a draw: no fool, no stake
    assert staked([1.0, 0.0, -1.0], "placings") == [1.0, 0.0, -1.0]
    with pytest.raises(ValueError, match="a stake is one of placings, fool"):
        staked([1.0, -1.0], "win")
    with pytest.raises(ValueError, match="reward must be one of placings, fool"):
        TrainConfig.from_dict({"rules": "podkidnoy", "reward": "win"})


def test_a_run_can_start_from_a_bot_files_network(tmp_path):
    """``init_from``: PPO starts from the bot's own weights (a learning rate of almost nothing leaves them as
    they were: the exported policy plays the bot's moves), and a bot of other widths or rules is refused."""
    from training.config import ConfigError

    shipped = str(SHIPPED_BOTS["podkidnoy"][0])
    cfg = TrainConfig.load(TINY)
    cfg.init_from, cfg.hidden_sizes, cfg.learning_rate, cfg.total_steps, cfg.eval_every = shipped, [128, 128], 1e-7, 256, 0
    cfg.validate()
    run = train_ppo(cfg, run_dir=tmp_path / "init", progress=False)
    start, after = load_bot(shipped), load_bot(run / "bot.onnx")
    assert after.metadata["init_from"] == "podkidnoy.onnx"
    from helpers import opening_batch

    obs, mask = opening_batch(start.encoder, 32)
    np.testing.assert_allclose(after.predict(obs, mask)[0], start.predict(obs, mask)[0], atol=1e-3)
    with pytest.raises(ConfigError, match=r"init_from: .* is a network of \[128, 128\]"):
        TrainConfig.from_dict({**TrainConfig.load(TINY).to_dict(), "init_from": shipped})
    assert TrainConfig.from_dict({**cfg.to_dict(), "init_from": "trained"}).init_path() == SHIPPED_BOTS["podkidnoy"][0]
    with pytest.raises(ConfigError, match="init_from"):
        TrainConfig.from_dict({**TrainConfig.load(TINY).to_dict(), "init_from": str(tmp_path / "none.onnx")})


def test_old_checkpoints_are_pruned_and_evaluated_ones_kept(tmp_path):
    """A 40-minute run kept all of its 850 checkpoints (250 MB): now the last ``keep_checkpoints`` plain ones stay,
    with every evaluated one (its bot file beside it) and latest.pt."""
    cfg = TrainConfig.from_dict({**TrainConfig.load(TINY).to_dict(), "keep_checkpoints": 1, "source": ""})
    run = train_ppo(cfg, run_dir=tmp_path / "run", progress=False, export_onnx=False)
    names = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert names == ["latest.pt", "update_000002.onnx", "update_000002.pt", "update_000003.pt",
                     "update_000004.onnx", "update_000004.pt"]
    assert load_checkpoint(run / "checkpoints" / "update_000003.pt")["update"] == 3
