"""Self-play PPO for Durak, CleanRL style: one readable loop, its steps named below it.

    durak train --config configs/default.yaml            # the README's main job
    durak train --resume runs/default-...                # continue from the last checkpoint

A run folder holds the resolved config, checkpoints (``checkpoints/update_*.pt`` and an
atomically replaced ``latest.pt``), TensorBoard logs (``tb/``), the evaluations against
HeuristicBot (``evals.jsonl`` and ``learning_curve.png``) and, at the end, the final
policy exported as ``bot.onnx``.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import yaml

from baselines.progress import CtrlC, interrupted
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import derive_seed
from durak_env.observation import network_shape

from .checkpoints import WriteFailed, load_checkpoint, make_checkpoint, save_atomic
from .config import ConfigError, TrainConfig
from .policy import FullCritic, PolicyNet, widen
from .rollout import Batch, Rollouts, WorkerDied, gae


@dataclass
class RunState:
    """What a checkpoint restores besides the weights: counters, the opponent pool, the evaluations."""

    update: int = 0
    global_step: int = 0
    """Learner decisions trained on."""
    games: int = 0
    pool: list = field(default_factory=list)
    """State dicts of past policies, the "pool" opponents."""
    pool_version: int = 0
    evals: list = field(default_factory=list)
    seconds: float = 0.0
    """Wall time the run has taken so far (a resumed run goes on counting against ``time_budget``)."""
    finished: bool = False
    """The run reached its end (total_steps or time_budget) and was evaluated there."""
    ppo_from: float = 0.0
    """Seconds into the run when PPO began (the time budget's annealing runs from there)."""
    magnet: dict | None = None
    """With ``magnet_coef``: the state dict of the policy the loss pulls toward (``refresh_magnet``)."""


class Clock:
    """The run's wall time against ``time_budget``: PPO stops early enough to leave room for the last
    evaluation, which is timed on the evaluations before it."""

    def __init__(self, cfg: TrainConfig, state: RunState):
        self.budget = cfg.time_budget * 60 if cfg.time_budget else None
        self.started = time.monotonic() - state.seconds
        self.eval_seconds = 2 + 0.04 * cfg.eval_games  # a guess, until an evaluation has been timed
        self.ppo_from = 0.0  # seconds into the run when PPO began (after the warm start)

    def start_ppo(self, state: "RunState") -> None:
        """PPO begins (or resumes): its start, for the annealing, into the clock and the run's state."""
        self.ppo_from = state.ppo_from = self.elapsed() if state.update == 0 else state.ppo_from

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def out_of_time(self) -> bool:
        return self.budget is not None and self.elapsed() + 1.2 * self.eval_seconds + 5 >= self.budget

    def fraction(self) -> float:
        """How far the budget left for PPO is spent, for annealing (0 without a budget)."""
        if self.budget is None:
            return 0.0
        span = max(1.0, self.budget - self.eval_seconds - self.ppo_from)
        return min(1.0, (self.elapsed() - self.ppo_from) / span)


def train_ppo(cfg: TrainConfig | None = None, run_dir: str | Path | None = None, resume: str | Path | None = None,
              progress: bool = True, export_onnx: bool = True, stop_after: int | None = None,
              backend: str = "torch", address: str | None = None, actors: int | None = None) -> Path:
    """Train (or resume) a run with this package's PPO; returns the run folder.  ``stop_after`` ends after that
    many updates, as if the run were killed (tests).  ``backend="ray"``: rollouts on Ray (``open_rollouts``)."""
    cfg, run_dir, resumed = open_run(cfg, run_dir, resume)
    rules = cfg.make_rules()
    torch.set_num_threads(cfg.torch_threads())
    net, critic, opt = learner(cfg, rules)
    gen = torch.Generator().manual_seed(cfg.seed)
    state = restore(run_dir, net, critic, opt, gen) if resumed else RunState()
    log = RunLog(run_dir, cfg, state, progress)
    clock = Clock(cfg, state)
    if not resumed and (cfg.init_from is not None or cfg.pretrain_games):
        warm_start(net, cfg, rules, run_dir, progress)
        checkpoint(run_dir, cfg, rules, net, critic, opt, gen, state, log, clock, evaluate=True)
    num_updates = max(1, -(-cfg.total_steps // cfg.rollout_steps))
    last = num_updates if stop_after is None else min(num_updates, state.update + stop_after)
    rollouts = open_rollouts(cfg, rules, state, run_dir, backend, address, actors, progress)
    magnet = mmd_magnet(state, net, cfg)
    clock.start_ppo(state)
    log.start(state, clock)
    reason = None  # why the run ended, for its last line (baselines.progress.REASONS)
    try:
        while state.update < last and not state.finished:
            CtrlC.check()  # a Ctrl-C that a library swallowed still stops the run
            anneal(opt, cfg, max(state.update / num_updates, clock.fraction()))
            t0 = time.perf_counter()
            more = state.update + 1 < last and not clock.out_of_time()
            batch = rollouts.next_batch(net.state_dict(), state.pool, state.pool_version, more=more)
            t_roll = time.perf_counter() - t0
            if critic is not None:
                judge(critic, batch, cfg)
            stats = ppo_update(net, critic, opt, batch, cfg, gen, state.update < cfg.value_warmup, magnet)
            advance(state, batch)
            take_snapshots(state, net, magnet, cfg)
            final = state.update == last or clock.out_of_time()
            state.finished = state.update == num_updates or clock.out_of_time()
            want_eval = final or (cfg.eval_every and state.update % cfg.eval_every == 0)
            if want_eval or state.update % cfg.checkpoint_every == 0:
                checkpoint(run_dir, cfg, rules, net, critic, opt, gen, state, log, clock, evaluate=bool(want_eval))
            log.update(state, stats, batch, t_roll, time.perf_counter() - t0, opt.param_groups[0]["lr"])
        reason = ("total" if state.update == num_updates else "budget") if state.finished else None
    except WorkerDied:
        checkpoint(run_dir, cfg, rules, net, critic, opt, gen, state, log, clock, evaluate=False)  # the resume point
        raise
    except BaseException as err:
        if not interrupted(err):
            raise
        reason = "stopped"
        raise KeyboardInterrupt from None
    finally:
        close_rollouts(rollouts, run_dir, address)
        log.close(reason, f"; durak train --resume {run_dir} continues from its last checkpoint"
                  if reason == "stopped" else "")
    if export_onnx and state.finished:
        from .export import export

        export(run_dir, "onnx", run_dir / "bot.onnx")
    return run_dir


# ----- the steps ---------------------------------------------------------------------------

def open_rollouts(cfg: TrainConfig, rules: Rules | None, state: RunState, run_dir: Path, backend: str,
                  address: str | None, actors: int | None, progress: bool) -> Rollouts:
    """The rollout workers: processes of this machine, or with ``backend="ray"`` Ray actors (``actors``, by default
    one for each core of the cluster but one, the learner's) on the cluster at ``address`` or on a Ray of this
    machine's own, joined here; the weights reach them through Ray's object store, and ``cluster.json`` in the run
    folder says where they run.  Everything else (checkpoints, evaluations, TensorBoard, resume, export) is the
    same run."""
    if backend != "ray":
        if actors is not None or address is not None:
            raise ValueError("actors and address apply to the ray backend")
        return Rollouts(cfg, rules, seed=derive_seed("rollouts", cfg.seed, state.update))
    from durak_env.cluster import connect

    cores = int(connect(address, num_cpus=cfg.workers() + 1).get("CPU", 2))
    actors = actors or max(1, cores - 1)
    if progress:
        print(f"durak train: {actors} rollout actors on Ray ({cores} cores"
              f"{' at ' + address if address else ' on this machine'})", flush=True)
    rollouts = Rollouts(cfg, rules, seed=derive_seed("rollouts", cfg.seed, state.update), actors=actors)
    write_cluster(run_dir, address, rollouts)
    return rollouts


def close_rollouts(rollouts: Rollouts, run_dir: Path, address: str | None) -> None:
    if rollouts.on_ray:
        write_cluster(run_dir, address, rollouts)
    rollouts.close()
    if rollouts.on_ray:
        from durak_env.cluster import disconnect

        disconnect()


def write_cluster(run_dir: Path, address: str | None, rollouts: Rollouts) -> None:
    """``cluster.json``: where a ray run's rollout actors run now (each actor's node, as Ray reports it to the
    actor), the cluster's nodes, and how many actors were lost and replaced so far."""
    from durak_env.cluster import alive_nodes

    try:
        actors = rollouts.workers.nodes()
    except Exception:  # noqa: BLE001 - an actor lost just now: its replacement is reported next time
        actors = None
    (run_dir / "cluster.json").write_text(json.dumps({"address": address, "actors": actors, "nodes": alive_nodes(),
                                                      "restarts": rollouts.restarts}, indent=1) + "\n")


def open_run(cfg: TrainConfig | None, run_dir, resume) -> tuple[TrainConfig, Path, bool]:
    """The config and run folder of a new run (the config written there) or of one to resume."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").exists():
            raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
        cfg = TrainConfig.load(run_dir / "config.yaml")
        return cfg, run_dir, (run_dir / "checkpoints" / "latest.pt").exists()
    if cfg is None:
        raise ConfigError("train_ppo() needs a config or a run folder to resume")
    run_dir = Path(run_dir) if run_dir is not None else Path("runs") / time.strftime("run-%Y%m%d-%H%M%S")
    try:
        (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    except OSError as err:
        raise WriteFailed(f"cannot write the run folder {run_dir}: {err.strerror or err}") from None
    return cfg, run_dir, False


def learner(cfg: TrainConfig, rules: Rules | None) -> tuple[PolicyNet, FullCritic | None, torch.optim.Optimizer]:
    """The policy, its full-information critic (``critic: full``; else None) and one optimiser of both, their
    first weights from the run's seed."""
    torch.manual_seed(cfg.seed)
    net = PolicyNet(*network_shape(rules), cfg.hidden_sizes)
    critic = full_critic(cfg, rules)
    opt = torch.optim.Adam([*net.parameters(), *(critic.parameters() if critic else ())], lr=cfg.learning_rate, eps=1e-5)
    return net, critic, opt


def full_critic(cfg: TrainConfig, rules: Rules | None) -> FullCritic | None:
    """The run's full-information critic (``critic: full``), of the policy's widths; None for ``critic: seat``."""
    if cfg.critic != "full":
        return None
    from durak_env.privileged import PrivilegedEncoder

    obs_size, _ = network_shape(rules)
    return FullCritic(obs_size, PrivilegedEncoder(rules or Rules(), rules is None).size, cfg.hidden_sizes)


def restore(run_dir: Path, net: PolicyNet, critic: FullCritic | None, opt: torch.optim.Optimizer,
            gen: torch.Generator) -> RunState:
    """Load the last checkpoint into the network (and critic), optimiser and generator; returns the run's state."""
    ckpt = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    net.load_state_dict(ckpt["model"])
    if critic is not None:
        critic.load_state_dict(ckpt["critic"])
    opt.load_state_dict(ckpt["optimizer"])
    gen.set_state(ckpt["generator"])
    return RunState(**{k: ckpt[k] for k in RunState.__dataclass_fields__ if k in ckpt})  # older runs: no magnet


def warm_start(net: PolicyNet, cfg: TrainConfig, rules: Rules | None, run_dir: Path, progress: bool) -> None:
    """Before PPO: take the weights of the ``init_from`` bot, if any, then imitate the teacher bot, if any
    (training/pretrain.py; its figures go to ``pretrain.json``)."""
    if cfg.init_from is not None:
        from .export import policy_from_bot_file

        start = policy_from_bot_file(cfg.init_path())
        if start.hidden_sizes != net.hidden_sizes:
            start = widen(start, net.hidden_sizes, cfg.seed)
        net.load_state_dict(start.state_dict())
    if not cfg.pretrain_games:
        return
    from .pretrain import collect, fit

    data = collect(rules, cfg.pretrain_teacher, cfg.pretrain_games, cfg.seed, cfg.workers(), progress=progress,
                   tables=cfg.make_tables())
    stats = fit(net, data, cfg.pretrain_epochs, 1e-3, cfg.minibatch_size, cfg.seed)
    net.sharpen(cfg.pretrain_temperature)
    stats["decisions"], stats["temperature"] = len(data[0]), cfg.pretrain_temperature
    (run_dir / "pretrain.json").write_text(json.dumps(stats))


def anneal(opt: torch.optim.Optimizer, cfg: TrainConfig, done: float) -> None:
    """The learning rate falls linearly to zero as the run's steps (or its time budget) are spent."""
    if cfg.anneal_lr:
        opt.param_groups[0]["lr"] = cfg.learning_rate * max(0.0, 1 - done)


def judge(critic: FullCritic, batch: Batch, cfg: TrainConfig) -> None:
    """The batch's values, advantages and returns from the full-information critic, as it is now (the workers'
    were the policy's own value head's)."""
    with torch.no_grad():
        batch.value = critic(torch.from_numpy(batch.obs), torch.from_numpy(batch.hidden)).numpy()
    batch.advantage = gae(batch.value, batch.lengths, batch.finals, cfg.gamma, cfg.gae_lambda)
    batch.ret = batch.advantage + batch.value


def ppo_update(net: PolicyNet, critic: FullCritic | None, opt: torch.optim.Optimizer, batch: Batch, cfg: TrainConfig,
               gen: torch.Generator, value_only: bool = False, magnet: PolicyNet | None = None) -> dict[str, float]:
    """``update_epochs`` passes of clipped PPO over the batch in shuffled minibatches; returns the mean losses.
    ``value_only``: the critic's warm-up, the value loss alone.  With a full-information ``critic`` the value loss
    is the critic's and the policy's own value head's together, both on the batch's returns.  With a ``magnet``
    (MMD), ``cfg.magnet_coef`` times KL(policy || magnet) joins the policy loss (``magnet_kl``: 0 without)."""
    obs = torch.from_numpy(batch.obs)
    mask = torch.from_numpy(batch.mask)
    actions = torch.from_numpy(batch.action)
    old_logp = torch.from_numpy(batch.logp)
    adv = torch.from_numpy(batch.advantage)
    ret = torch.from_numpy(batch.ret)
    hidden = None if critic is None else torch.from_numpy(batch.hidden)
    n = len(obs)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0, "magnet_kl": 0.0}
    count = 0
    for _ in range(cfg.update_epochs):
        order = torch.randperm(n, generator=gen)
        for start in range(0, n, cfg.minibatch_size):
            mb = order[start:start + cfg.minibatch_size]
            # index_select, not obs[mb]: the same rows, several times faster on the CPU
            mb_obs, mb_mask = obs.index_select(0, mb), mask.index_select(0, mb)
            logits, value = net(mb_obs, mb_mask)
            logp_all = torch.log_softmax(logits, dim=-1)
            logp = logp_all.gather(-1, actions.index_select(0, mb).unsqueeze(-1)).squeeze(-1)
            # softmax rather than logp_all.exp(): exp of the masked logits' huge negative logs takes the CPU's
            # slow underflow path.  Masked actions get probability exactly 0, so they add nothing to the entropy.
            probs = torch.softmax(logits, dim=-1)
            entropy = -(probs * logp_all).sum(-1).mean()
            mb_old = old_logp.index_select(0, mb)
            ratio = (logp - mb_old).exp()
            a = adv.index_select(0, mb)
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            pull = torch.zeros(()) if magnet is None else magnet_kl(probs, logp_all, magnet, mb_obs, mb_mask)
            mb_ret = ret.index_select(0, mb)
            v_loss = 0.5 * ((value - mb_ret) ** 2).mean()
            if critic is not None:
                v_loss = v_loss + 0.5 * ((critic(mb_obs, hidden.index_select(0, mb)) - mb_ret) ** 2).mean()
            policy_loss = pg - cfg.ent_coef * entropy + cfg.magnet_coef * pull
            loss = cfg.vf_coef * v_loss if value_only else policy_loss + cfg.vf_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            if critic is not None:
                torch.nn.utils.clip_grad_norm_(critic.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"] += pg.item()
                stats["value_loss"] += v_loss.item()
                stats["entropy"] += entropy.item()
                stats["approx_kl"] += ((ratio - 1) - (logp - mb_old)).mean().item()
                stats["clipfrac"] += ((ratio - 1).abs() > cfg.clip_coef).float().mean().item()
                stats["magnet_kl"] += pull.item()
            count += 1
    out = {k: v / max(1, count) for k, v in stats.items()}
    var = ret.var().item()
    out["explained_variance"] = float("nan") if var == 0 else 1 - (ret - torch.from_numpy(batch.value)).var().item() / var
    return out


def magnet_kl(probs: torch.Tensor, logp: torch.Tensor, magnet: PolicyNet, obs: torch.Tensor,
              mask: torch.Tensor) -> torch.Tensor:
    """KL(policy || magnet), the mean over a minibatch, from the policy's probabilities and log-probabilities.
    Masked moves have probability exactly 0 under both (``MASKED_LOGIT`` is finite), so they add nothing."""
    with torch.no_grad():
        magnet_logp = torch.log_softmax(magnet(obs, mask)[0], dim=-1)
    return (probs * (logp - magnet_logp)).sum(-1).mean()


def advance(state: RunState, batch: Batch) -> None:
    state.update += 1
    state.global_step += len(batch.obs)
    state.games += batch.games


def mmd_magnet(state: RunState, net: PolicyNet, cfg: TrainConfig) -> PolicyNet | None:
    """With ``cfg.magnet_coef``, MMD's magnet: a frozen network of the policy's shape holding ``state.magnet``
    (the policy as the run starts, until ``take_snapshots`` replaces it); None without."""
    if not cfg.magnet_coef:
        return None
    if state.magnet is None:
        state.magnet = copy.deepcopy(net.state_dict())
    magnet = copy.deepcopy(net).requires_grad_(False)
    magnet.load_state_dict(state.magnet)
    return magnet


def take_snapshots(state: RunState, net: PolicyNet, magnet: PolicyNet | None, cfg: TrainConfig) -> None:
    """Every ``snapshot_every`` updates the current policy joins the pool of past opponents; every ``magnet_every``
    it becomes the ``magnet`` (with MMD's, ``mmd_magnet``)."""
    if state.update % cfg.snapshot_every == 0:
        state.pool = (state.pool + [copy.deepcopy(net.state_dict())])[-cfg.pool_size:]
        state.pool_version += 1
    if magnet is not None and state.update % cfg.magnet_every == 0:
        state.magnet = copy.deepcopy(net.state_dict())
        magnet.load_state_dict(state.magnet)


def checkpoint(run_dir: Path, cfg: TrainConfig, rules: Rules | None, net: PolicyNet, critic: FullCritic | None,
               opt: torch.optim.Optimizer, gen: torch.Generator, state: RunState, log: "RunLog", clock: Clock,
               evaluate: bool) -> None:
    """Write ``update_*.pt`` and ``latest.pt``; when asked, first export the policy and evaluate it against
    HeuristicBot (the evaluation is saved with the checkpoint)."""
    path = run_dir / "checkpoints" / f"update_{state.update:06d}.pt"

    def save(to: Path) -> None:
        state.seconds = clock.elapsed()
        extra = {} if critic is None else {"critic": critic.state_dict()}
        save_atomic(make_checkpoint(cfg, rules, {**asdict(state), "generator": gen.get_state(), **extra},
                                    net.state_dict(), opt.state_dict()), to)

    save(path)
    if evaluate:
        from .export import export

        started = time.monotonic()
        try:
            bot = export(path, "onnx", path.with_suffix(".onnx"))
        except (OSError, RuntimeError) as err:  # torch's ONNX writer reports a full disk as a RuntimeError
            raise WriteFailed(f"cannot write {path.with_suffix('.onnx').name} ({str(err).splitlines()[0]}); the last "
                              "checkpoint written is kept: durak train --resume continues from it") from None
        log.evaluation(state, evaluate_bot(bot, cfg, cfg.eval_games))
        clock.eval_seconds = time.monotonic() - started
        save(path)
    save(run_dir / "checkpoints" / "latest.pt")
    prune(run_dir / "checkpoints", cfg.keep_checkpoints)


def prune(folder: Path, keep: int) -> None:
    """Delete all but the last ``keep`` numbered checkpoints that were not evaluated (0: keep every one); an
    evaluated one keeps its bot file and stays."""
    if not keep:
        return
    plain = [p for p in sorted(folder.glob("update_*.pt")) if not p.with_suffix(".onnx").exists()]
    for old in plain[:-keep]:
        old.unlink(missing_ok=True)


def evaluate_bot(path: Path, cfg: TrainConfig, games: int) -> list[dict]:
    """The exported bot at one seat, HeuristicBot at every other, on duplicate deals in every rotation: a row
    for each table of ``cfg.evaluation_tables()`` (the rules trained for, or the tables of a policy for any)."""
    from baselines.evaluate import evaluate

    rows = []
    for table, rules in cfg.evaluation_tables():
        lineup = [str(path)] + ["heuristic"] * (rules.num_players - 1)
        report = evaluate(lineup, rules, games=games, seed=cfg.seed + 7, workers=cfg.workers(), keep_records=False)
        me = report.stats[0]
        rows.append({"table": table, "seats": rules.num_players, "not_fool": 1 - me.fool_rate,
                     "not_fool_ci": [1 - me.fool_ci[1], 1 - me.fool_ci[0]], "fool_rate": me.fool_rate,
                     "score": me.score, "games": report.games})
    return rows


class RunLog:
    """Where a run reports: TensorBoard, ``evals.jsonl`` with its learning curve, and the progress bar."""

    def __init__(self, run_dir: Path, cfg: TrainConfig, state: RunState, progress: bool):
        from torch.utils.tensorboard import SummaryWriter

        self.run_dir = run_dir
        self.cfg = cfg
        self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=state.global_step or None)
        self.show = progress
        self.progress = None

    def start(self, state: RunState, clock: Clock) -> None:
        """PPO begins (after the warm start, which has a bar of its own): the run's bar counts toward its step
        total and its time budget, whichever comes first, from the time already spent."""
        from baselines.progress import Progress

        self.progress = Progress("train", self.cfg.total_steps, "step", budget=clock.budget, done=state.global_step,
                                 elapsed=clock.elapsed(), enabled=self.show)

    def evaluation(self, state: RunState, results: list[dict]) -> None:
        """One evaluation's rows (a row per table; ``minutes``: the run's wall clock at its checkpoint, the warm start
        and earlier evaluations included) into TensorBoard (``eval/...``, or ``eval/<table>/...`` for a
        policy for any rules), ``evals.jsonl`` and the learning curve."""
        rows = [{"update": state.update, "global_step": state.global_step, "minutes": round(state.seconds / 60, 3),
                 **result} for result in results]
        state.evals += rows
        for row in rows:
            where = f"eval/{row['table']}/" if self.cfg.universal else "eval/"
            self.writer.add_scalar(f"{where}not_fool_vs_heuristic", row["not_fool"], state.global_step)
            self.writer.add_scalar(f"{where}score_vs_heuristic", row["score"], state.global_step)
        try:
            with open(self.run_dir / "evals.jsonl", "a") as f:
                f.writelines(json.dumps(row) + "\n" for row in rows)
            plot_curve(state.evals, self.run_dir / "learning_curve.png")
        except OSError as err:
            raise WriteFailed(f"cannot write the evaluations in {self.run_dir} ({err.strerror or err}); the last "
                              "checkpoint written is kept: durak train --resume continues from it") from None

    def update(self, state: RunState, stats: dict, batch: Batch, t_roll: float, elapsed: float, lr: float) -> None:
        stats = {**stats, "games_per_s": batch.games / elapsed, "steps_per_s": len(batch.obs) / elapsed,
                 "rollout_fraction": t_roll / elapsed, "lr": lr,
                 "learner_reward": float(np.mean(batch.learner_rewards)) if batch.learner_rewards else 0.0,
                 "game_length": float(np.mean(batch.game_moves)) if batch.game_moves else 0.0}
        for k, v in stats.items():
            self.writer.add_scalar(f"train/{k}", v, state.global_step)
        post = {"upd": state.update, "steps/s": f"{stats['steps_per_s']:.0f}", "ent": f"{stats['entropy']:.2f}"}
        if state.evals:
            last = [e["not_fool"] for e in state.evals if e["update"] == state.evals[-1]["update"]]
            post["vs heuristic"] = f"{sum(last) / len(last):.3f}"
        if self.progress is not None:
            self.progress.update(state.global_step, **post)

    def close(self, reason: str | None = None, note: str = "") -> None:
        """Close the writer and the bar; the bar's last line says why the run ended (``None``: a fault, which
        is reported elsewhere, or a test's ``stop_after``)."""
        self.writer.close()
        if self.progress is not None:
            self.progress.end(reason, note)


def plot_curve(evals: list[dict], path: Path) -> None:
    """The not-the-fool rate against HeuristicBot at every other seat over training, with its interval and
    the line a HeuristicBot in the learner's seat would draw (1 - 1/seats: 0.5 in 2-player, 0.75 in 4); one
    line per table where a policy for any rules was evaluated at several."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables: dict[str, list[dict]] = {}
    for e in evals:
        tables.setdefault(e.get("table", ""), []).append(e)
    fig, ax = plt.subplots(figsize=(6, 3.6) if len(tables) == 1 else (7, 4.5))
    colours = plt.get_cmap("tab20").colors
    for k, (table, rows) in enumerate(tables.items()):
        steps = [e["global_step"] for e in rows]
        line, = ax.plot(steps, [e["not_fool"] for e in rows], marker="o", label=table, ms=3,
                        color=colours[k % len(colours)])
        ax.fill_between(steps, [e["not_fool_ci"][0] for e in rows], [e["not_fool_ci"][1] for e in rows], alpha=0.2,
                        color=line.get_color())
    seats = {rows[0].get("seats", 2) for rows in tables.values()}
    if len(tables) == 1:
        even = 1 - 1 / seats.pop()
        ax.axhline(even, color="grey", lw=0.8, ls="--")
        ax.annotate("HeuristicBot in this seat", (evals[0]["global_step"], even), xytext=(2, 3),
                    textcoords="offset points", fontsize=8, color="grey")
        n = evals[0].get("seats", 2)
        others = "the other seat" if n == 2 else f"the other {n - 1} seats"
        ax.set_title(f"not the fool, HeuristicBot at {others} (95% CI)")
    else:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.set_title("not the fool, HeuristicBot at every other seat (95% CI)")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("not the fool vs HeuristicBot")
    ax.set_ylim(0, 1)
    fig.savefig(path, dpi=100, bbox_inches="tight")  # the margins fitted to the labels and a legend beside the axes
    plt.close(fig)


__all__ = ["RunState", "ppo_update", "train_ppo"]
