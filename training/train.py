"""Self-play PPO for Durak, CleanRL style: one readable loop.

    durak train --config configs/default.yaml            # or: python -m training --config ...
    durak train --resume runs/default-...                # continue from the last checkpoint

A run folder holds the resolved config, checkpoints (``checkpoints/update_*.pt`` and an
atomically replaced ``latest.pt``), TensorBoard logs (``tb/``), the evaluations against
HeuristicBot (``evals.jsonl`` and ``learning_curve.png``) and, at the end, the final
policy exported as ``bot.onnx``.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from durak_env.engine.actions import LAYOUT_VERSION
from durak_env.environment import DurakEnv
from durak_env.observation import OBSERVATION_VERSION

from .config import ConfigError, TrainConfig
from .policy import PolicyNet
from .rollout import Batch, Rollouts

CHECKPOINT_FORMAT = 1


def save_atomic(obj: dict, path: Path) -> None:
    """Write to a temporary file and rename, so a kill mid-write never leaves a damaged file."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def checkpoint_meta(cfg: TrainConfig, rules_dict: dict) -> dict:
    return {"format": CHECKPOINT_FORMAT, "rules": rules_dict, "observation_version": OBSERVATION_VERSION,
            "layout_version": LAYOUT_VERSION, "hidden_sizes": list(cfg.hidden_sizes), "config": cfg.to_dict()}


def load_checkpoint(path: str | Path) -> dict:
    """A training checkpoint, read without executing code (``weights_only=True``)."""
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    except Exception as err:  # damaged file, or one carrying code: refused either way
        raise ValueError(f"{path} is not a durak_env checkpoint that can be loaded safely ({type(err).__name__})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT or "model" not in ckpt:
        raise ValueError(f"{path} is not a durak_env checkpoint")
    return ckpt


def ppo_update(net: PolicyNet, opt: torch.optim.Optimizer, batch: Batch, cfg: TrainConfig,
               gen: torch.Generator) -> dict[str, float]:
    obs = torch.from_numpy(batch.obs)
    mask = torch.from_numpy(batch.mask)
    actions = torch.from_numpy(batch.action)
    old_logp = torch.from_numpy(batch.logp)
    adv = torch.from_numpy(batch.advantage)
    ret = torch.from_numpy(batch.ret)
    n = len(obs)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    count = 0
    for _ in range(cfg.update_epochs):
        order = torch.randperm(n, generator=gen)
        for start in range(0, n, cfg.minibatch_size):
            mb = order[start:start + cfg.minibatch_size]
            logits, value = net(obs[mb], mask[mb])
            logp_all = torch.log_softmax(logits, dim=-1)
            logp = logp_all.gather(-1, actions[mb].unsqueeze(-1)).squeeze(-1)
            probs = logp_all.exp()
            entropy = -(probs * logp_all.masked_fill(mask[mb] == 0, 0.0)).sum(-1).mean()
            ratio = (logp - old_logp[mb]).exp()
            a = adv[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
            loss = pg + cfg.vf_coef * v_loss - cfg.ent_coef * entropy
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"] += pg.item()
                stats["value_loss"] += v_loss.item()
                stats["entropy"] += entropy.item()
                stats["approx_kl"] += ((ratio - 1) - (logp - old_logp[mb])).mean().item()
                stats["clipfrac"] += ((ratio - 1).abs() > cfg.clip_coef).float().mean().item()
            count += 1
    out = {k: v / max(1, count) for k, v in stats.items()}
    var = ret.var().item()
    out["explained_variance"] = float("nan") if var == 0 else 1 - (ret - torch.from_numpy(batch.value)).var().item() / var
    return out


def evaluate_bot(path: Path, cfg: TrainConfig, rules, games: int) -> dict:
    """The exported bot against HeuristicBot on duplicate deals."""
    from baselines.evaluate import evaluate

    report = evaluate([str(path), "heuristic"], rules, games=games, seed=cfg.seed + 7, workers=cfg.num_workers,
                      keep_records=False)
    me = report.stats[0]
    return {"not_fool": 1 - me.fool_rate, "not_fool_ci": [1 - me.fool_ci[1], 1 - me.fool_ci[0]],
            "score": me.score, "games": report.games}


def plot_curve(evals: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [e["global_step"] for e in evals]
    rate = [e["not_fool"] for e in evals]
    lo = [e["not_fool_ci"][0] for e in evals]
    hi = [e["not_fool_ci"][1] for e in evals]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.fill_between(steps, lo, hi, alpha=0.25, color="#4878a8")
    ax.plot(steps, rate, marker="o", color="#4878a8")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("not the fool vs HeuristicBot")
    ax.set_ylim(0, 1)
    ax.set_title("win rate against HeuristicBot (95% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train(cfg: TrainConfig | None = None, run_dir: str | Path | None = None, resume: str | Path | None = None,
          progress: bool = True, export_onnx: bool = True, stop_after: int | None = None) -> Path:
    """Train (or resume) a run; returns the run folder.  ``stop_after`` ends after that many updates (tests)."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").exists():
            raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
        cfg = TrainConfig.load(run_dir / "config.yaml")
    elif cfg is None:
        raise ConfigError("train() needs a config or a run folder to resume")
    rules = cfg.make_rules()
    if run_dir is None:
        run_dir = Path("runs") / time.strftime("run-%Y%m%d-%H%M%S")
    run_dir = Path(run_dir)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    if resume is None:
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))

    torch.set_num_threads(cfg.threads)
    probe = DurakEnv(rules)
    obs_size, num_actions = probe.encoder.size, probe.layout.size
    torch.manual_seed(cfg.seed)  # before the network is built: its initial weights come from this seed
    net = PolicyNet(obs_size, num_actions, cfg.hidden_sizes)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    update, global_step, games_total = 0, 0, 0
    pool: list[dict] = []
    pool_version = 0
    evals: list[dict] = []
    gen = torch.Generator().manual_seed(cfg.seed)
    latest = run_dir / "checkpoints" / "latest.pt"
    resumed = resume is not None and latest.exists()
    if resumed:
        ckpt = load_checkpoint(latest)
        net.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        update, global_step, games_total = ckpt["update"], ckpt["global_step"], ckpt["games"]
        pool, pool_version, evals = list(ckpt["pool"]), ckpt["pool_version"], list(ckpt["evals"])
        gen.set_state(ckpt["generator"])
    if not resumed and cfg.pretrain_games:
        from .pretrain import collect, fit

        data = collect(rules, cfg.pretrain_teacher, cfg.pretrain_games, cfg.seed, cfg.num_workers, progress=progress)
        bc = fit(net, data, cfg.pretrain_epochs, 1e-3, cfg.minibatch_size, cfg.seed)
        bc["decisions"] = len(data[0])
        with open(run_dir / "pretrain.json", "w") as f:
            json.dump(bc, f)
    meta = checkpoint_meta(cfg, rules.to_dict())
    num_updates = max(1, -(-cfg.total_steps // (cfg.rollout_steps * cfg.num_workers)))

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"), purge_step=global_step or None)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps), unit="step", desc="train",
                   dynamic_ncols=True)

    def save_and_evaluate(state: dict, want_eval: bool) -> dict | None:
        """Checkpoint (and, when asked, export and evaluate against HeuristicBot); returns the evaluation."""
        ckpt = {**meta, **state, "model": net.state_dict(), "optimizer": opt.state_dict(), "evals": evals,
                "generator": gen.get_state()}
        path = run_dir / "checkpoints" / f"update_{state['update']:06d}.pt"
        save_atomic(ckpt, path)
        result = None
        if want_eval:
            from .export import export

            bot_path = export(path, "onnx", path.with_suffix(".onnx"))
            result = {"update": state["update"], "global_step": state["global_step"],
                      **evaluate_bot(bot_path, cfg, rules, cfg.eval_games)}
            evals.append(result)
            writer.add_scalar("eval/not_fool_vs_heuristic", result["not_fool"], state["global_step"])
            writer.add_scalar("eval/score_vs_heuristic", result["score"], state["global_step"])
            with open(run_dir / "evals.jsonl", "a") as f:
                f.write(json.dumps(result) + "\n")
            plot_curve(evals, run_dir / "learning_curve.png")
            ckpt["evals"] = evals
            save_atomic(ckpt, path)
        save_atomic(ckpt, latest)
        return result

    last_eval = evals[-1] if evals else None
    if not resumed and cfg.pretrain_games:
        last_eval = save_and_evaluate({"update": 0, "global_step": 0, "games": 0, "pool": pool,
                                       "pool_version": pool_version}, True)
    rollouts = Rollouts(cfg, rules, seed=cfg.seed * 7919 + update)
    overlap = cfg.overlap and cfg.num_workers > 1
    try:
        if overlap:
            rollouts.request(net.state_dict(), pool, pool_version)
        while update < num_updates:
            if stop_after is not None and stop_after <= 0:
                break
            if cfg.anneal_lr:
                opt.param_groups[0]["lr"] = cfg.learning_rate * (1 - update / num_updates)
            t0 = time.perf_counter()
            if overlap:
                batch = rollouts.receive()
                if update + 1 < num_updates:
                    rollouts.request(net.state_dict(), pool, pool_version)
            else:
                batch = rollouts.collect(net.state_dict(), pool, pool_version)
            t_roll = time.perf_counter() - t0
            stats = ppo_update(net, opt, batch, cfg, gen)
            update += 1
            global_step += len(batch.obs)
            games_total += batch.games
            elapsed = time.perf_counter() - t0
            stats.update({
                "games_per_s": batch.games / elapsed,
                "steps_per_s": len(batch.obs) / elapsed,
                "rollout_fraction": t_roll / elapsed,
                "learner_reward": float(np.mean(batch.learner_rewards)) if batch.learner_rewards else 0.0,
                "game_length": float(np.mean(batch.game_moves)) if batch.game_moves else 0.0,
                "lr": opt.param_groups[0]["lr"],
            })
            for k, v in stats.items():
                writer.add_scalar(f"train/{k}", v, global_step)
            if update % cfg.snapshot_every == 0:
                pool.append(copy.deepcopy(net.state_dict()))
                pool = pool[-cfg.pool_size:]
                pool_version += 1
            final = update == num_updates or (stop_after is not None and stop_after == 1)
            want_eval = final or (cfg.eval_every and update % cfg.eval_every == 0)
            if update % cfg.checkpoint_every == 0 or want_eval:
                state = {"update": update, "global_step": global_step, "games": games_total, "pool": pool,
                         "pool_version": pool_version}
                last_eval = save_and_evaluate(state, want_eval) or last_eval
            if bar is not None:
                bar.update(min(len(batch.obs), max(0, cfg.total_steps - bar.n)))
                post = {"upd": update, "games/s": f"{stats['games_per_s']:.0f}", "ent": f"{stats['entropy']:.2f}"}
                if last_eval:
                    post["vs heuristic"] = f"{last_eval['not_fool']:.3f}"
                bar.set_postfix(post)
            if stop_after is not None:
                stop_after -= 1
    finally:
        rollouts.close()
        writer.close()
        if bar is not None:
            bar.close()
    if export_onnx and update >= num_updates:
        from .export import export

        export(latest, "onnx", run_dir / "bot.onnx")
    return run_dir

