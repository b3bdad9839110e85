"""Self-play rollouts: many deals stepped as one batch (``durak_env.native.make_vector_games``), in one or more
processes.

Each deal seats the current policy in one random seat (the learner); every other seat is, by the
configured shares, the current policy too (self-play: it learns from those seats as well), a past
snapshot from the pool, or a baseline bot (handed the seat's view).  Every step, the pending decision
of every deal comes out of the vector core at once; the current policy's decisions are one forward
pass, each pool snapshot's another.  A seat's trajectory is its own decisions; the deal's reward
arrives at its last one.  Trajectories still running when a collection ends carry over into the next.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field

import numpy as np
import torch

from baselines import make_bot
from baselines.policy_file import PolicyBot
from baselines.progress import interrupted
from durak_env.engine.game import staked
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import derive_seed
from durak_env.privileged import PrivilegedEncoder
from durak_env.vector_games import make_vector_games
from durak_env.workers import WorkerGone, Workers, ignore_interrupts

from .config import BOT_KINDS, TrainConfig
from .policy import PolicyNet, sample_masked

LEARN = "self"
FIELDS = ("obs", "mask", "action", "logp", "value")


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
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Decisions of each trajectory, in the rows' order (the rows are whole trajectories, one after another)."""
    finals: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    """Each trajectory's reward, at its last decision."""
    hidden: np.ndarray | None = None
    """With a full-information critic (``critic: full``): each row's cards hidden from its seat
    (``durak_env.privileged``), which the critic alone reads."""

    @staticmethod
    def concat(batches: list["Batch"]) -> "Batch":
        cat = lambda name: np.concatenate([getattr(b, name) for b in batches])  # noqa: E731
        return Batch(cat("obs"), cat("mask"), cat("action"), cat("logp"), cat("value"), cat("advantage"), cat("ret"),
                     sum(b.games for b in batches), sum((b.learner_rewards for b in batches), []),
                     sum((b.game_moves for b in batches), []), sum(b.env_steps for b in batches), cat("lengths"),
                     cat("finals"), None if batches[0].hidden is None else cat("hidden"))


def gae(values: np.ndarray, lengths: np.ndarray, finals: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """GAE advantages of whole trajectories laid end to end (``lengths`` decisions each, the reward ``finals`` at
    each one's last decision and none before): ``values`` are the critic's estimates at each decision."""
    out = np.zeros(len(values), np.float32)
    end = 0
    for length, reward in zip(lengths.tolist(), finals.tolist()):
        start, end = end, end + length
        vals = values[start:end].tolist()
        adv, next_value = 0.0, 0.0
        for t in range(length - 1, -1, -1):
            delta = (reward if t == length - 1 else 0.0) + gamma * next_value - vals[t]
            adv = delta + gamma * lam * adv
            out[start + t] = adv
            next_value = vals[t]
    return out


class RolloutWorker:
    """Owns ``num_envs`` deals and plays them with the latest weights it is sent."""

    def __init__(self, cfg: TrainConfig, rules: Rules | None, seed: int):
        torch.set_num_threads(1)
        self.cfg, self.rules = cfg, rules
        self.rng = random.Random(seed)
        self.torch_rng = torch.Generator().manual_seed(seed)
        self.tables = cfg.make_tables()  # rules: any, deals drawn from the tables (universal arrays)
        self.vec = make_vector_games(rules or Rules(), cfg.num_envs, tables=self.tables)
        self.vec.reset(seed=self.rng.getrandbits(62))
        self.obs_size, self.num_actions = self.vec.encoder.size, self.vec.num_actions
        self.policy = PolicyNet(self.obs_size, self.num_actions, cfg.hidden_sizes)
        self.privileged = PrivilegedEncoder(rules or Rules(), self.tables is not None) if cfg.critic == "full" else None
        """Writes the learner's hidden cards for a full-information critic (None: the critic reads the observation)."""
        self.fields = FIELDS + ("hidden",) * (self.privileged is not None)
        self.pool: list[PolicyNet] = []
        self.pool_version = -1
        self.bots = {kind: make_bot(kind, seed=seed) for kind in BOT_KINDS}
        for spec in cfg.opponents:  # a named bot (a frozen policy file, a search level): made once, here
            if spec not in self.bots and spec not in (LEARN, "pool"):
                self.bots[spec] = make_bot(spec, seed=seed, rules=rules)
        # Who reads observations (the rest read their views): the networks, and frozen policies, batched.
        self.observed = {LEARN, "pool", *(spec for spec, bot in self.bots.items() if isinstance(bot, PolicyBot))}
        kinds = list(cfg.opponents)
        self.kinds, self.shares = kinds, [cfg.opponents[k] for k in kinds]
        self.controllers: list[list[tuple]] = [[] for _ in range(cfg.num_envs)]
        self.learner = [0] * cfg.num_envs
        self.pending: list[list[list[int]]] = [[] for _ in range(cfg.num_envs)]
        self.carry: dict[str, np.ndarray] | None = None  # decisions of trajectories still running
        self.start_moves = [0] * cfg.num_envs
        for i in range(cfg.num_envs):
            self._seat_players(i)

    def _seat_players(self, i: int) -> None:
        """Who plays each seat of the deal now in slot i: the learner at a random seat, the rest by the shares."""
        n = self.vec.games[i].n
        learner = self.rng.randrange(n)
        seats = []
        for s in range(n):
            kind = LEARN if s == learner else self.rng.choices(self.kinds, self.shares)[0]
            if kind == "pool":
                kind = ("pool", self.rng.randrange(len(self.pool))) if self.pool else LEARN
            seats.append(kind if isinstance(kind, tuple) else (kind,))
        self.controllers[i], self.learner[i] = seats, learner
        self.pending[i] = [[] for _ in range(n)]

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
        """Play until ``steps`` decisions of finished learner trajectories are gathered."""
        vec, games = self.vec, self.vec.games
        chunks = [self.carry] if self.carry is not None else []
        stored = len(self.carry["action"]) if self.carry is not None else 0
        finished: list[tuple[list[int], float]] = []
        collected = game_count = 0
        learner_rewards: list[float] = []
        game_moves: list[int] = []
        played = vec.played
        actions = np.zeros(vec.num_envs, dtype=np.int64)
        groups = self._groups()
        while collected < steps:
            for ctrl, rows in groups.items():
                if ctrl[0] in (LEARN, "pool"):
                    obs, mask = vec.obs[rows], vec.mask[rows]
                    net = self.policy if ctrl[0] == LEARN else self.pool[ctrl[1]]
                    with torch.inference_mode():
                        logits, value = net(torch.from_numpy(obs), torch.from_numpy(mask))
                        acts, logp = sample_masked(logits, self.torch_rng)
                    actions[rows] = acts.numpy()
                    if ctrl[0] == LEARN:
                        chunks.append({"obs": obs, "mask": mask, "action": acts.numpy(), "logp": logp.numpy(),
                                       "value": value.numpy()})
                        if self.privileged is not None:
                            chunks[-1]["hidden"] = self.privileged.encode_games([games[i] for i in rows])
                        seats = vec.seats[rows].tolist()
                        for k, (i, seat) in enumerate(zip(rows, seats)):
                            self.pending[i][seat].append(stored + k)
                        stored += len(rows)
                elif ctrl[0] in self.observed:  # a frozen policy: its decisions in one batch
                    actions[rows] = self.bots[ctrl[0]].choose_many(vec.obs[rows], vec.mask[rows])
                else:
                    bot = self.bots[ctrl[0]]
                    for i in rows:
                        game = games[i]
                        action = bot.act(game.view(game.to_act))
                        actions[i] = action if self.tables is None else vec.to_network(game, action)
            vec.step(actions, write=False)
            games = vec.games
            for i in np.flatnonzero(vec.ended | vec.truncated).tolist():
                if vec.ended[i]:
                    rewards = vec.rewards[i, :len(self.controllers[i])].tolist()
                    paid = staked(rewards, self.cfg.reward)
                    for seat, ctrl in enumerate(self.controllers[i]):
                        traj = self.pending[i][seat]
                        if ctrl[0] == LEARN and traj:
                            finished.append((traj, paid[seat]))
                            collected += len(traj)
                    learner_rewards.append(rewards[self.learner[i]])
                    game_count += 1
                    game_moves.append(vec.final_moves[i])
                self._seat_players(i)  # a truncated deal's trajectories teach nothing: dropped
            groups = self._groups()
        return self._batch(chunks, finished, game_count, learner_rewards, game_moves, vec.played - played)

    def _groups(self) -> dict[tuple, list[int]]:
        """The deals grouped by who plays the seat to act; the policies' rows get their observations written
        (a bot's seat needs only its view)."""
        groups: dict[tuple, list[int]] = {}
        for i, seat in enumerate(self.vec.seats.tolist()):
            groups.setdefault(self.controllers[i][seat], []).append(i)
        self.vec.write([i for ctrl, rows in groups.items() if ctrl[0] in self.observed for i in rows])
        return groups

    def _batch(self, chunks, finished, games, learner_rewards, game_moves, env_steps) -> Batch:
        """The finished trajectories as a batch with GAE advantages; the running ones kept for the next."""
        fields = self.fields
        every = {name: np.concatenate([c[name] for c in chunks]) for name in fields}
        index = [p for traj, _ in finished for p in traj]
        lengths = np.array([len(traj) for traj, _ in finished], dtype=np.int64)
        finals = np.array([reward for _, reward in finished], dtype=np.float32)
        running = [(i, s) for i, seats in enumerate(self.pending) for s, traj in enumerate(seats) if traj]
        keep = [p for i, s in running for p in self.pending[i][s]]
        take = np.array(index, dtype=np.intp)
        batch = {name: every[name][take] for name in fields}
        self.carry = {name: every[name][np.array(keep, dtype=np.intp)] for name in fields} if keep else None
        position = 0
        for i, s in running:  # the kept decisions are renumbered from 0, in order
            count = len(self.pending[i][s])
            self.pending[i][s] = list(range(position, position + count))
            position += count
        value = batch["value"].astype(np.float32)
        advantage = gae(value, lengths, finals, self.cfg.gamma, self.cfg.gae_lambda)
        return Batch(batch["obs"], batch["mask"], batch["action"].astype(np.int64), batch["logp"].astype(np.float32),
                     value, advantage, advantage + value, games, learner_rewards, game_moves, env_steps, lengths,
                     finals, batch.get("hidden"))


def as_arrays(state: dict) -> dict:
    """A state dict as numpy copies (pickled by value)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in state.items()}


def as_tensors(state: dict) -> dict:
    return {k: torch.from_numpy(v) for k, v in state.items()}


def answer(worker: RolloutWorker, state: dict, pool_states: list[dict] | None, pool_version: int,
           steps: int) -> Batch:
    """A request of ``Rollouts`` (weights as numpy arrays, the pool where it changed, the steps wanted), collected."""
    worker.set_weights(as_tensors(state), pool_states and [as_tensors(sd) for sd in pool_states], pool_version)
    return worker.collect(steps)


def _worker_main(conn, cfg_dict: dict, seed: int) -> None:
    ignore_interrupts()  # already, when started from the main thread
    cfg = TrainConfig.from_dict(cfg_dict)
    worker = RolloutWorker(cfg, cfg.make_rules(), seed)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the trainer is gone
            break
        if msg is None:
            break
        conn.send(answer(worker, *msg))


class RolloutActor:
    """A rollout worker as a Ray actor (``durak_env.cluster.RayWorkers``): the same worker, a request a call."""

    def __init__(self, cfg_dict: dict, seed: int):
        cfg = TrainConfig.from_dict(cfg_dict)
        self.worker = RolloutWorker(cfg, cfg.make_rules(), seed)

    def handle(self, state: dict, pool_states: list[dict] | None, pool_version: int, steps: int) -> Batch:
        # Read from the object store, the arrays are read-only views: the network copies them in.
        state = {k: np.array(v) for k, v in state.items()}
        pool_states = pool_states and [{k: np.array(v) for k, v in sd.items()} for sd in pool_states]
        return answer(self.worker, state, pool_states, pool_version, steps)

    def node(self) -> str:
        from durak_env.cluster import node_address

        return node_address()


class WorkerDied(RuntimeError):
    """Rollout workers kept dying: the run stops, and its last checkpoint is there to resume from."""


class Rollouts:
    """The rollout workers: in child processes (``cfg.workers()`` of them, a ``durak_env.workers.Workers``), as
    Ray actors on a cluster (``actors`` of them, a ``durak_env.cluster.RayWorkers``), or, for one
    worker without ``overlap``, in this process.  Each gathers its share of ``rollout_steps`` per update; worker w
    is seeded alike wherever it runs, so a run on Ray with as many actors as local workers makes the same batches.

    A worker that dies (killed, out of memory, its node lost) is noticed while the trainer waits for it (within a
    second, ``Workers.POLL``, for a process; when Ray declares the actor or its node dead, for an actor); a new
    one takes its place and is sent the same request, so the run goes on and the lost collection is made again
    (a batch comes whole or not at all: no game is counted twice).  After ``RESTARTS`` deaths (or one for each
    worker, where there are more) the run stops with ``WorkerDied``, its last checkpoint kept for ``--resume``."""

    RESTARTS = 3

    def __init__(self, cfg: TrainConfig, rules: Rules, seed: int, actors: int | None = None):
        self.cfg = cfg
        self.local = None
        self.workers: Workers | None = None
        self.sent_pool_version = -1
        self.overlap = cfg.overlap
        self.in_flight = False
        self.seed, self.restarts = seed, 0
        self._pool: list[dict] = []  # the pool as last sent (a new worker gets all of it)
        self._request: tuple | None = None
        workers = cfg.workers() if actors is None else actors
        self.share = -(-cfg.rollout_steps // workers)
        self.max_restarts = max(self.RESTARTS, workers)
        self.on_ray = actors is not None
        args = [(cfg.to_dict(), derive_seed("worker", seed, w)) for w in range(workers)]
        if actors is not None:
            from durak_env.cluster import RayWorkers

            self.workers = RayWorkers(RolloutActor, args)
            return
        if workers == 1 and not cfg.overlap:
            self.local = RolloutWorker(cfg, rules, args[0][1])  # no process: collect, then update, in turn
            return
        self.workers = Workers(_worker_main, args)

    def request(self, state: dict, pool_states: list[dict], pool_version: int) -> None:
        """Start collecting a batch with these weights (in the background when there are worker processes)."""
        steps = self.share
        if self.local is not None:
            self.local.set_weights(state, pool_states, pool_version)
            self._local_batch = self.local.collect(steps)
            return
        send_pool = None
        if pool_version != self.sent_pool_version:
            send_pool = self._pool = [as_arrays(sd) for sd in pool_states]
        self.sent_pool_version = pool_version
        # Copies by value: torch would pass the live tensors through shared memory, and the optimiser
        # changes them in place while the workers still read them.
        weights = as_arrays(state)
        self._request = (weights, pool_version, steps)
        for w in range(len(self.workers)):
            self.workers.send(w, (weights, send_pool, pool_version, steps))  # a dead one: receive() restarts it
        self.in_flight = True

    def receive(self) -> Batch:
        if self.local is not None:
            return self._local_batch
        self.in_flight = False
        return Batch.concat([self._receive_from(w) for w in range(len(self.workers))])

    def _receive_from(self, w: int) -> Batch:
        """Worker w's batch, replacing the worker if it dies meanwhile."""
        while True:
            try:
                return self.workers.receive(w)
            except WorkerGone as gone:
                if interrupted(gone):  # Ctrl-C that came out as the worker's loss (inside Ray's wait): a stop
                    raise KeyboardInterrupt from None
                self.restarts += 1
                if self.restarts > self.max_restarts:
                    raise WorkerDied(f"rollout workers died {self.restarts} times (the last with exit code "
                                     f"{gone.exitcode}); the run stopped at its last checkpoint: durak train "
                                     "--resume RUN_DIR goes on") from None
                why = "its process or its node was lost" if gone.exitcode is None else f"exit code {gone.exitcode}"
                print(f"durak train: rollout worker {w} died ({why}); a new one takes its place", file=sys.stderr,
                      flush=True)
                self.workers.start(w, (self.cfg.to_dict(), derive_seed("worker", self.seed, w, self.restarts)))
                weights, pool_version, steps = self._request
                self.workers.send(w, (weights, self._pool, pool_version, steps))  # dead at once: noticed again

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
        if self.workers is not None:
            self.workers.close()
