"""The project's own trainer on Ray (issue 45): ``durak train --backend ray`` runs the same recipe with its rollout
workers as Ray actors (``durak_env.cluster.RayWorkers``, ``training.rollout.RolloutActor``), seeded as the local
workers are, so the same config and seed train the same network; an actor lost mid-run is replaced and its batch
collected again."""

from __future__ import annotations

import pytest
import torch

from training.config import TrainConfig
from training.train import train_ppo


def tiny(**changes) -> TrainConfig:
    cfg = TrainConfig.load("tiny")
    for key, value in changes.items():
        setattr(cfg, key, value)
    return cfg


def weights(run) -> dict:
    return torch.load(run / "checkpoints" / "latest.pt", map_location="cpu", weights_only=True)["model"]


@pytest.mark.parametrize("workers, overlap", [(1, False), (2, True)])
def test_the_ray_backend_trains_the_same_network_as_the_local_one(tmp_path, workers, overlap):
    cfg = tiny(num_workers=workers, overlap=overlap, total_steps=768, eval_every=0)
    here = train_ppo(cfg, tmp_path / "local", progress=False, export_onnx=False)
    there = train_ppo(cfg, tmp_path / "ray", progress=False, export_onnx=False, backend="ray", actors=workers)
    mine, theirs = weights(here), weights(there)
    assert mine.keys() == theirs.keys()
    assert all(torch.equal(mine[k], theirs[k]) for k in mine)  # the same batches, so the same updates
    before = weights(train_ppo(tiny(seed=4, total_steps=768, eval_every=0), tmp_path / "other", progress=False,
                               export_onnx=False))
    assert not all(torch.equal(mine[k], before[k]) for k in mine)  # a comparison that can fail


def test_an_actor_lost_mid_collection_is_replaced_and_its_batch_made_again():
    import ray

    from durak_env.cluster import connect, disconnect
    from durak_env.observation import network_shape
    from training.rollout import Rollouts
    from training.policy import PolicyNet

    cfg = tiny(num_workers=2)
    rules = cfg.make_rules()
    net = PolicyNet(*network_shape(rules), cfg.hidden_sizes)
    connect(None, num_cpus=3)
    try:
        rollouts = Rollouts(cfg, rules, seed=5, actors=2)
        whole = rollouts.collect(net.state_dict(), [], 0)
        rollouts.request(net.state_dict(), [], 0)
        ray.kill(rollouts.workers.actors[1], no_restart=True)  # as its process or its node would go
        again = rollouts.receive()
        assert rollouts.restarts == 1
        # The lost share was collected anew, whole: as many decisions as a share, each game counted once.
        assert len(again.action) >= cfg.rollout_steps and again.games == len(again.game_moves) > 0
        assert len(whole.action) >= cfg.rollout_steps
        assert set(rollouts.workers.nodes()) == {ray.util.get_node_ip_address()}
        rollouts.close()
    finally:
        disconnect()


def test_the_command_line_takes_the_ray_backend_and_refuses_its_options_elsewhere(tmp_path, capsys):
    from frontends.cli import main

    assert main(["train", "--config", "tiny", "--actors", "2"]) == 2
    assert "--actors only works with --backend ray" in capsys.readouterr().err
    assert main(["train", "--config", "tiny", "--address", "auto"]) == 2
    assert "--address needs a cluster backend" in capsys.readouterr().err
    assert main(["train", "--config", "tiny", "--backend", "ray", "--actors", "0"]) == 2
    assert main(["train", "--config", "tiny", "--backend", "ray", "--actors", "1", "--total-steps", "512",
                 "--run-dir", str(tmp_path / "run"), "--quiet"]) == 0
    assert (tmp_path / "run" / "bot.onnx").is_file()
    assert main(["train", "--resume", str(tmp_path / "run"), "--backend", "ray", "--actors", "1", "--quiet"]) == 0


def test_an_evaluation_on_ray_reports_what_one_machine_reports(tmp_path):
    """Duplicate deals stay duplicate, and every deck is the same seeded deck wherever it is played."""
    from baselines.evaluate import evaluate
    from durak_env import Rules
    from durak_env.cluster import connect, disconnect

    rules = Rules.preset("after-beaten-transfer", num_players=3)
    here = evaluate(["heuristic", "random", "easy"], rules, games=60, seed=7, workers=1)
    connect(None, num_cpus=2)
    try:
        there = evaluate(["heuristic", "random", "easy"], rules, games=60, seed=7, address="local")
    finally:
        disconnect()
    assert there.records == here.records and len(here.records) == 60  # the same games, in the same order
    timing = ("seconds", "ms_per_move", "decisions")
    same = lambda report: [{k: v for k, v in b.items() if k not in timing} for b in report.to_json()["stats"]]  # noqa: E731
    assert same(there) == same(here)


def test_a_real_cluster_of_three_hosts_trains_evaluates_and_survives_a_lost_node(tmp_path):
    """Issue 45, item 4: a head and two workers, each a network namespace with its own ``ray start``.  A short
    training spreads its actors over every node (as Ray reports each actor's node), goes on when a worker node is
    killed mid-run (its actor replaced, its lost collection made again), is stopped and resumes from its
    checkpoint on the cluster; an evaluation across the nodes reports what one machine reports."""
    import json
    import signal
    import time

    from netns_cluster import BIN, NetnsCluster

    from baselines.evaluate import evaluate

    run = tmp_path / "run"
    with NetnsCluster(nodes=3, cpus=2) as cluster:
        assert all("default" not in cluster.routes(n) for n in range(3))  # no way out of the namespaces
        durak = [str(BIN / "durak"), "train", "--config", "tiny", "--total-steps", str(256 * 40), "--backend", "ray",
                 "--address", cluster.address, "--quiet"]
        trainer = cluster.spawn(0, [*durak, "--actors", "3", "--run-dir", str(run)], tmp_path / "train.log")

        def updates() -> int:  # the last checkpoint's update (older ones are pruned)
            return max((int(p.stem.split("_")[1]) for p in run.glob("checkpoints/update_*.pt")), default=0)

        def wait_for(count: int) -> None:
            for _ in range(1200):
                if updates() >= count or trainer.poll() is not None:
                    return
                time.sleep(0.1)

        wait_for(3)
        placed = json.loads((run / "cluster.json").read_text())
        assert sorted(placed["actors"]) == cluster.ips and placed["nodes"] == cluster.ips  # one actor a node
        cluster.kill(2)  # a worker node lost mid-run
        lost_at = updates()
        wait_for(lost_at + 4)
        trainer.send_signal(signal.SIGINT)  # stopped as Ctrl-C stops it: its checkpoint is the resume point
        assert trainer.wait(120) == 130, (tmp_path / "train.log").read_text()[-2000:]
        log = (tmp_path / "train.log").read_text()
        lost = placed["actors"].index(cluster.ips[2])  # the actor that was on the lost node
        assert f"rollout worker {lost} died (its process or its node was lost)" in log, log[-2000:]
        after = json.loads((run / "cluster.json").read_text())
        assert after["restarts"] == 1 and cluster.ips[2] not in after["actors"]  # replaced on a node still there
        stopped_at = updates()
        assert lost_at < stopped_at < 40
        resumed = cluster.command(0, [*durak[:2], "--resume", str(run), "--backend", "ray", "--address",
                                      cluster.address, "--actors", "2", "--quiet"], timeout=600)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert updates() == 40 and (run / "bot.onnx").is_file()
        checkpoint = torch.load(run / "checkpoints" / "latest.pt", map_location="cpu", weights_only=True)
        assert checkpoint["update"] == 40

        report = tmp_path / "eval.json"
        evaluated = cluster.command(0, [str(BIN / "durak"), "eval", "heuristic", "random", "--games", "80", "--seed",
                                        "5", "--address", cluster.address, "--json", str(report), "--quiet"],
                                    timeout=300)
        assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    here = evaluate(["heuristic", "random"], games=80, seed=5, workers=1)
    there = json.loads(report.read_text())
    assert [s["fools"] for s in there["stats"]] == [s.fools for s in here.stats]
    assert there["games"] == here.games == 80


def test_the_expert_rounds_search_games_on_ray_are_the_ones_played_here(tmp_path):
    import numpy as np

    from durak_env.cluster import disconnect
    from training.expert import play_parts, search_deals

    from baselines import SHIPPED_BOTS

    bot = str(SHIPPED_BOTS["podkidnoy"][0])
    tasks = [(bot, 8, 2, seed, (("heuristic", 1.0),)) for seed in (1, 2, 3)]
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    here = play_parts(tmp_path / "here", tasks, search_deals, 2, lambda line: None)
    try:
        there = play_parts(tmp_path / "there", tasks, search_deals, 2, lambda line: None, address="local")
    finally:
        disconnect()
    assert here.keys() == there.keys() and all(np.array_equal(here[k], there[k]) for k in here)
    assert len(here["outcome"]) > 0
