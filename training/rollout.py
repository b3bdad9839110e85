"""Self-play rollouts: a batch of AEC environments stepping together, in one or more processes.

Each game seats the current policy in one random seat (the learner); every other
seat is, by the configured shares, the current policy too (self-play: it learns
from those seats as well), a past snapshot from the pool, or a baseline bot.
Decisions of the current policy are batched across games into one forward pass.
A seat's trajectory is its own decisions; the deal's reward arrives at its last one.
Trajectories still running when a rollout ends carry over into the next.
"""

from __future__ import annotations

import multiprocessing as mp
import random
from dataclasses import dataclass

import numpy as np
import torch

from baselines import EasyBot, HeuristicBot, RandomBot, SearchBot
from durak_env.environment import DurakEnv
from durak_env.engine.rules import Rules

from .config import TrainConfig
from .policy import PolicyNet, sample_masked

LEARN = "self"


@dataclass
class Batch:
    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    advantage: np.ndarray
    ret: np.ndarray
    games: int
    learner_rewards: list
    game_moves: list
    """Moves of each finished game, forced moves included."""
    env_steps: int = 0
    """Moves played in every game during this collection, forced moves included."""

    @staticmethod
    def concat(batches: list["Batch"]) -> "Batch":
        cat = lambda name: np.concatenate([getattr(b, name) for b in batches])  # noqa: E731
        return Batch(cat("obs"), cat("mask"), cat("action"), cat("logp"), cat("value"), cat("advantage"), cat("ret"),
                     sum(b.games for b in batches), sum((b.learner_rewards for b in batches), []),
                     sum((b.game_moves for b in batches), []), sum(b.env_steps for b in batches))


class RolloutWorker:
    """Owns ``num_envs`` games and plays them with the latest weights it is sent."""

    def __init__(self, cfg: TrainConfig, rules: Rules, seed: int):
        torch.set_num_threads(1)
        self.cfg, self.rules = cfg, rules
        self.rng = random.Random(seed)
        self.torch_rng = torch.Generator().manual_seed(seed)
        self.envs = [DurakEnv(rules) for _ in range(cfg.num_envs)]
        probe = self.envs[0]
        self.obs_size, self.num_actions = probe.encoder.size, probe.layout.size
        self.policy = PolicyNet(self.obs_size, self.num_actions, cfg.hidden_sizes)
        self.pool: list[PolicyNet] = []
        self.pool_version = -1
        self.bots = {"heuristic": HeuristicBot(), "easy": EasyBot(seed), "random": RandomBot(seed),
                     "search": SearchBot(seed, level="fast")}
        kinds = list(cfg.opponents)
        self.kinds, self.shares = kinds, [cfg.opponents[k] for k in kinds]
        self.controllers: list[list[tuple]] = [[] for _ in self.envs]
        self.pending: list[list[list]] = [[[] for _ in range(rules.num_players)] for _ in self.envs]
        for e in range(len(self.envs)):
            self._new_game(e)

    def _new_game(self, e: int) -> None:
        env = self.envs[e]
        env.reset(seed=self.rng.getrandbits(63))
        n = self.rules.num_players
        learner = self.rng.randrange(n)
        seats = []
        for s in range(n):
            kind = LEARN if s == learner else self.rng.choices(self.kinds, self.shares)[0]
            if kind == "pool":
                kind = ("pool", self.rng.randrange(len(self.pool))) if self.pool else LEARN
            seats.append(kind if isinstance(kind, tuple) else (kind,))
        self.controllers[e] = seats
        self.pending[e] = [[] for _ in range(n)]

    def set_weights(self, state: dict, pool_states: list[dict] | None, pool_version: int) -> None:
        self.policy.load_state_dict(state)
        if pool_states is not None and pool_version != self.pool_version:
            self.pool = []
            for sd in pool_states:
                net = PolicyNet(self.obs_size, self.num_actions, self.cfg.hidden_sizes)
                net.load_state_dict(sd)
                self.pool.append(net)
            self.pool_version = pool_version

    def collect(self, steps: int) -> Batch:
        out = {k: [] for k in ("obs", "mask", "action", "logp", "value", "advantage", "ret")}
        collected = games = 0
        learner_rewards: list[float] = []
        game_moves: list[int] = []
        envs, encoder = self.envs, self.envs[0].encoder
        steps_before = sum(env.moves for env in envs)
        while collected < steps:
            groups: dict[tuple, list[int]] = {}
            for e, env in enumerate(envs):
                groups.setdefault(self.controllers[e][env.game.to_act], []).append(e)
            for ctrl, idx in groups.items():
                games_now = [envs[e].game for e in idx]
                views = [g.view(g.to_act) for g in games_now]
                if ctrl[0] in (LEARN, "pool"):
                    obs = encoder.encode_many(views)
                    mask = np.zeros((len(idx), self.num_actions), dtype=np.int8)
                    for i, v in enumerate(views):
                        encoder.mask(v, mask[i])
                    net = self.policy if ctrl[0] == LEARN else self.pool[ctrl[1]]
                    with torch.inference_mode():
                        logits, value = net(torch.from_numpy(obs), torch.from_numpy(mask))
                        actions, logp = sample_masked(logits, self.torch_rng)
                    actions, logp, value = actions.tolist(), logp.numpy(), value.numpy()
                    for i, e in enumerate(idx):
                        if ctrl[0] == LEARN:
                            self.pending[e][views[i].seat].append((obs[i], mask[i], actions[i], logp[i], value[i]))
                        envs[e].step(actions[i])
                else:
                    bot = self.bots[ctrl[0]]
                    for e, v in zip(idx, views):
                        envs[e].step(bot.act(v))
            for e, env in enumerate(envs):
                if env.game.result is None:
                    continue
                rewards = env.game.result.rewards()
                for seat, ctrl in enumerate(self.controllers[e]):
                    traj = self.pending[e][seat]
                    if ctrl[0] != LEARN or not traj:
                        continue
                    self._finish(traj, rewards[seat], out)
                    collected += len(traj)
                    if seat == self._learner_seat(e):
                        learner_rewards.append(rewards[seat])
                games += 1
                game_moves.append(env.moves)
                steps_before -= env.moves
                self._new_game(e)
        env_steps = sum(env.moves for env in envs) - steps_before
        arrays = {k: np.asarray(v) for k, v in out.items()}
        return Batch(arrays["obs"].astype(np.float32), arrays["mask"].astype(np.int8), arrays["action"].astype(np.int64),
                     arrays["logp"].astype(np.float32), arrays["value"].astype(np.float32),
                     arrays["advantage"].astype(np.float32), arrays["ret"].astype(np.float32), games,
                     learner_rewards, game_moves, env_steps)

    def _learner_seat(self, e: int) -> int:
        return next(s for s, c in enumerate(self.controllers[e]) if c[0] == LEARN)

    def _finish(self, traj: list, reward: float, out: dict) -> None:
        """GAE over one seat's finished trajectory: the reward comes with its last decision."""
        gamma, lam = self.cfg.gamma, self.cfg.gae_lambda
        advantage = 0.0
        next_value = 0.0
        advs = [0.0] * len(traj)
        for t in range(len(traj) - 1, -1, -1):
            r = reward if t == len(traj) - 1 else 0.0
            v = float(traj[t][4])
            delta = r + gamma * next_value - v
            advantage = delta + gamma * lam * advantage
            advs[t] = advantage
            next_value = v
        for (obs, mask, action, logp, value), adv in zip(traj, advs):
            out["obs"].append(obs)
            out["mask"].append(mask)
            out["action"].append(action)
            out["logp"].append(logp)
            out["value"].append(value)
            out["advantage"].append(adv)
            out["ret"].append(adv + float(value))


def _worker_main(conn, cfg_dict: dict, seed: int) -> None:
    cfg = TrainConfig.from_dict(cfg_dict)
    worker = RolloutWorker(cfg, cfg.make_rules(), seed)
    while True:
        msg = conn.recv()
        if msg is None:
            break
        state, pool_states, pool_version, steps = msg
        worker.set_weights(state, pool_states, pool_version)
        conn.send(worker.collect(steps))


class Rollouts:
    """``num_workers`` rollout workers: in this process for one, in child processes for more."""

    def __init__(self, cfg: TrainConfig, rules: Rules, seed: int):
        self.cfg = cfg
        self.local = None
        self.procs, self.conns = [], []
        self.sent_pool_version = -1
        self.overlap = cfg.overlap and cfg.num_workers > 1
        self.in_flight = False
        if cfg.num_workers == 1:
            self.local = RolloutWorker(cfg, rules, seed)
            return
        ctx = mp.get_context("spawn")
        for w in range(cfg.num_workers):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker_main, args=(child, cfg.to_dict(), seed * 1000 + w), daemon=True)
            p.start()
            self.procs.append(p)
            self.conns.append(parent)

    def request(self, state: dict, pool_states: list[dict], pool_version: int) -> None:
        """Start collecting a batch with these weights (in the background when there are worker processes)."""
        steps = self.cfg.rollout_steps
        if self.local is not None:
            self.local.set_weights(state, pool_states, pool_version)
            self._local_batch = self.local.collect(steps)
            return
        send_pool = pool_states if pool_version != self.sent_pool_version else None
        self.sent_pool_version = pool_version
        for conn in self.conns:
            conn.send((state, send_pool, pool_version, steps))
        self.in_flight = True

    def receive(self) -> Batch:
        if self.local is not None:
            return self._local_batch
        self.in_flight = False
        return Batch.concat([conn.recv() for conn in self.conns])

    def collect(self, state: dict, pool_states: list[dict], pool_version: int) -> Batch:
        self.request(state, pool_states, pool_version)
        return self.receive()

    def next_batch(self, state: dict, pool_states: list[dict], pool_version: int, more: bool) -> Batch:
        """The next batch to train on.  With ``overlap`` the workers collected it with the previous weights
        while the trainer updated, and now start on the one after with these (when ``more`` are wanted)."""
        if not self.overlap:
            return self.collect(state, pool_states, pool_version)
        if not self.in_flight:
            self.request(state, pool_states, pool_version)
        batch = self.receive()
        if more:
            self.request(state, pool_states, pool_version)
        return batch

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
