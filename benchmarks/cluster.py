"""The trainer on Ray against the trainer on this machine, side by side in one run, and a model for bigger clusters.

    python benchmarks/cluster.py                      # configs/default.yaml, 8 updates a setting; needs root
    python benchmarks/cluster.py --updates 4 --no-netns

Each setting trains ``--updates`` updates of the default recipe from scratch (no warm start, no evaluations):
``durak train`` with its worker processes, ``--backend ray`` on a Ray of this machine's own, and ``--backend ray``
on a cluster of two hosts made of network namespaces on this machine (``tests/netns_cluster.py``), each with as
many rollout workers.  The learner's decisions a second are read from the run's TensorBoard scalars
(``train/steps_per_s``: each update's decisions over its wall time), from the second update on.  All settings
share this machine's cores, so their ratio is the per-core ratio.

Then the parts of a model: one rollout core's decisions a second (``RolloutWorker.collect`` alone), the learner's
ceiling (decisions a second that one PPO update on this machine's cores consumes), the bytes an update moves (the
weights to each node, each actor's batch back), and from them the speed at 8, 64 and 512 cores: sampling grows with
the cores until the learner's ceiling, past which only a faster learner (data-parallel learners, or a GPU) helps.
Writes cluster.json and cluster.md here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
HERE = Path(__file__).parent


def config(updates: int, workers: int):
    from training.config import TrainConfig

    cfg = TrainConfig.load(ROOT / "configs" / "default.yaml")
    return dataclasses.replace(cfg, pretrain_games=0, eval_every=0, checkpoint_every=10_000, time_budget=None,
                               total_steps=updates * cfg.rollout_steps, num_workers=workers, threads=1)


def steady_rate(run: Path) -> float:
    """The median of the run's per-update learner decisions a second, the first update left out."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tb")).Reload()
    rates = [e.value for e in events.Scalars("train/steps_per_s")]
    return statistics.median(rates[1:] or rates)


def local_rate(updates: int, workers: int) -> float:
    from training.train import train_ppo

    with tempfile.TemporaryDirectory() as tmp:
        run = train_ppo(config(updates, workers), Path(tmp) / "run", progress=False, export_onnx=False)
        return steady_rate(run)


def ray_rate(updates: int, workers: int, address: str | None = None) -> float:
    from training.train import train_ppo

    with tempfile.TemporaryDirectory() as tmp:
        run = train_ppo(config(updates, workers), Path(tmp) / "run", progress=False, export_onnx=False,
                        backend="ray", address=address, actors=workers)
        return steady_rate(run)


def netns_rate(updates: int, workers: int) -> float:
    """The same run driven from the head of a two-host cluster, one rollout actor on each host."""
    from netns_cluster import NetnsCluster

    with tempfile.TemporaryDirectory() as tmp, NetnsCluster(nodes=2, cpus=max(1, workers // 2)) as cluster:
        script = (f"import sys, json; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import cluster as c; "
                  f"print(json.dumps(c.ray_rate({updates}, {workers}, {cluster.address!r})))")
        done = cluster.command(0, [sys.executable, "-c", script], timeout=1800, cwd=tmp)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-1500:])
        return json.loads(done.stdout.strip().splitlines()[-1])


def parts(workers: int) -> dict:
    """One rollout core's decisions a second, the learner's ceiling, and the bytes of an update."""
    import torch

    from durak_env.observation import network_shape
    from training.policy import PolicyNet
    from training.rollout import RolloutWorker, as_arrays
    from training.train import ppo_update

    cfg = config(2, workers)
    rules = cfg.make_rules()
    torch.set_num_threads(1)
    worker = RolloutWorker(cfg, rules, 1)
    net = PolicyNet(*network_shape(rules), cfg.hidden_sizes)
    worker.set_weights(net.state_dict(), [], 0)
    share = cfg.rollout_steps // workers
    worker.collect(share)  # warm
    started = time.perf_counter()
    batch = worker.collect(share)
    per_core = len(batch.obs) / (time.perf_counter() - started)
    full = worker.collect(cfg.rollout_steps)
    torch.set_num_threads(os.cpu_count() or 1)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    gen = torch.Generator().manual_seed(0)
    ppo_update(net, None, opt, full, cfg, gen)  # warm
    started = time.perf_counter()
    ppo_update(net, None, opt, full, cfg, gen)
    learner = len(full.obs) / (time.perf_counter() - started)
    weights = len(pickle.dumps(as_arrays(net.state_dict())))
    return {"rollout_decisions_per_s_per_core": per_core, "learner_decisions_per_s": learner,
            "rollout_steps": cfg.rollout_steps, "weights_bytes": weights,
            "batch_bytes_per_decision": len(pickle.dumps(batch)) / len(batch.obs), "learner_threads": os.cpu_count()}


def projection(p: dict, cores: int, per_node: int = 8) -> dict:
    """Decisions a second at ``cores`` cores (one core the learner's, the rest sampling), the learner's ceiling
    capping it, and the bytes a second the cluster's network then carries (weights to each node, batches back)."""
    sampling = (cores - 1) * p["rollout_decisions_per_s_per_core"]
    rate = min(sampling, p["learner_decisions_per_s"])
    updates = rate / p["rollout_steps"]
    nodes = max(1, cores // per_node)
    traffic = updates * (nodes * p["weights_bytes"] + p["rollout_steps"] * p["batch_bytes_per_decision"])
    return {"cores": cores, "decisions_per_s": round(rate), "learner_bound": sampling > p["learner_decisions_per_s"],
            "network_mb_per_s": round(traffic / 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=8, help="updates a setting (default 8)")
    ap.add_argument("--workers", type=int, default=2, help="rollout workers (processes or actors) a setting")
    ap.add_argument("--no-netns", action="store_true", help="leave out the two-host cluster (it needs root)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    rates = {"local": local_rate(args.updates, args.workers), "ray, this machine": ray_rate(args.updates, args.workers)}
    print(rates, flush=True)
    if not args.no_netns:
        rates["ray, two hosts"] = netns_rate(args.updates, args.workers)
    p = parts(args.workers)
    saturates = 1 + p["learner_decisions_per_s"] / p["rollout_decisions_per_s_per_core"]
    result = {"when": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(), "load_1min": [round(load, 2),
              round(os.getloadavg()[0], 2)], "updates": args.updates, "workers": args.workers,
              "learner_decisions_per_s": {k: round(v) for k, v in rates.items()},
              "ratio_to_local": {k: round(v / rates["local"], 3) for k, v in rates.items()},
              "parts": {k: round(v, 1) if isinstance(v, float) else v for k, v in p.items()},
              "learner_saturates_at_cores": round(saturates),
              "projection": [projection(p, c) for c in (8, 64, 512)]}
    (HERE / "cluster.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = "\n".join(f"| {k} | {round(v):,} | {result['ratio_to_local'][k]:.2f} |" for k, v in rates.items())
    proj = "\n".join(f"| {r['cores']} | {r['decisions_per_s']:,} | {'learner' if r['learner_bound'] else 'sampling'} | "
                     f"{r['network_mb_per_s']} |" for r in result["projection"])
    (HERE / "cluster.md").write_text(
        f"The trainer on Ray (`python benchmarks/cluster.py`, {result['when']}, {os.cpu_count()} cores, load "
        f"{result['load_1min'][0]} before and {result['load_1min'][1]} after; configs/default.yaml, {args.updates} "
        f"updates, {args.workers} rollout workers a setting).\n\n"
        "| setting | learner decisions/s | to the local trainer |\n|---|---|---|\n" + rows + "\n\n"
        f"One rollout core: {p['rollout_decisions_per_s_per_core']:,.0f} decisions/s; the learner's ceiling: "
        f"{p['learner_decisions_per_s']:,.0f} decisions/s ({p['learner_threads']} threads); an update moves "
        f"{p['weights_bytes'] / 1e3:,.0f} kB of weights to each node and {p['batch_bytes_per_decision']:,.0f} bytes "
        f"a decision back ({p['rollout_steps'] * p['batch_bytes_per_decision'] / 1e6:,.1f} MB a batch).  The "
        f"learner saturates at about {result['learner_saturates_at_cores']} cores.\n\n"
        "| cores | decisions/s | bound by | network MB/s |\n|---|---|---|---|\n" + proj + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
