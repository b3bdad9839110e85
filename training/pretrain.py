"""An optional warm start before PPO: imitate a teacher bot (behaviour cloning).

The teacher is a bot of the common interface, by default seed 001's "stronger
player" (``search:fast``), which reads only its own view; its decisions and the
deal's final reward for its seat are recorded from games against the heuristic
and against itself.  A policy for any rules learns from games dealt from its
tables (``durak_env.tables``), in the universal layout, each table taught by the
first of the teachers named that plays it (``[trained, search:fast]``: the shipped
specialist where there is one, the search elsewhere).  The policy head learns the teacher's choices (cross-entropy
over the masked logits) and the value head the outcomes, so PPO starts from a
sensible policy and critic instead of from uniform play.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch

from baselines import make_bot
from durak_env.engine.actions import translation
from durak_env.engine.game import Game
from durak_env.engine.loop import play, seated
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import derive_seed
from durak_env.observation import ObservationEncoder, network_shape
from durak_env.tables import Tables

from .policy import PolicyNet


def first_teacher(teachers: list[str], rules: Rules, seed: int):
    """The first of ``teachers`` (bot names) that plays ``rules``: ``trained`` is no bot for rules without a
    shipped policy, and the next name is tried."""
    for spec in teachers[:-1]:
        try:
            return make_bot(spec, seed=seed, rules=rules)
        except ValueError:
            continue
    return make_bot(teachers[-1], seed=seed, rules=rules)


def teacher_games(task: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` deals; returns the teacher's (observations, masks, actions, returns).  With tables, each
    deal's rules are drawn from them and the decisions are written in the universal layout."""
    rules_dict, tables_dict, teachers, games, seed, self_share = task
    tables = None if tables_dict is None else Tables.from_dict(tables_dict)
    rng = random.Random(seed)
    opponent = make_bot("heuristic")
    width = network_shape(None if tables else Rules.from_dict(rules_dict))[1]
    taught: dict[Rules, tuple] = {}  # rules -> (teacher, encoder, the network's index of each action)
    obs, masks, actions, returns = [], [], [], []

    def taught_move(view) -> int:
        teacher, enc, into = taught[view.rules]
        action = teacher.act(view)
        obs.append(enc.encode(view))
        mask = np.zeros(width, dtype=np.int8)
        mask[[into[a] for a in view.legal_actions]] = 1
        masks.append(mask)
        actions.append(into[action])
        returns.append(view.seat)  # the seat for now; its reward once the deal ends
        return action

    for _ in range(games):
        rules = Rules.from_dict(rules_dict) if tables is None else tables.sample(rng)
        if rules not in taught:
            enc = ObservationEncoder(rules, tables is not None)
            taught[rules] = (first_teacher(teachers, rules, seed), enc,
                             translation(rules.deck_size) if tables is not None else range(width))
        game = Game(rules, seed=rng.getrandbits(63))
        n = rules.num_players
        learner = rng.randrange(n)
        policies = [taught_move if s == learner or rng.random() < self_share else opponent.act for s in range(n)]
        first = len(returns)
        play(game, seated(policies))
        if game.result is None:  # cut off by the move limit: no outcome to learn from
            del obs[first:], masks[first:], actions[first:], returns[first:]
            continue
        rewards = game.result.rewards()
        returns[first:] = [rewards[seat] for seat in returns[first:]]
    return (np.asarray(obs, dtype=np.float32), np.asarray(masks, dtype=np.int8),
            np.asarray(actions, dtype=np.int64), np.asarray(returns, dtype=np.float32))


def collect(rules: Rules | None, teacher: str | list[str], games: int, seed: int, workers: int,
            self_share: float = 0.3, progress: bool = False, tables: Tables | None = None):
    """The teacher's decisions over ``games`` deals, played in ``workers`` processes: deals of ``rules``, or
    (``rules`` None) dealt from ``tables``, each taught by the first of the teachers that plays it."""
    chunk = 25
    teachers = [teacher] if isinstance(teacher, str) else list(teacher)
    tasks = [(rules and rules.to_dict(), tables and tables.to_dict(), teachers, min(chunk, games - i),
              derive_seed("teacher", seed, i), self_share) for i in range(0, games, chunk)]
    parts = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc=f"teacher {' / '.join(teachers)}", leave=False)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            for task, part in zip(tasks, pool.map(teacher_games, tasks)):
                parts.append(part)
                if bar is not None:
                    bar.update(task[3])
    else:
        for task in tasks:
            parts.append(teacher_games(task))
            if bar is not None:
                bar.update(task[3])
    if bar is not None:
        bar.close()
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def fit(net: PolicyNet, data, epochs: int, lr: float, batch_size: int, seed: int) -> dict[str, float]:
    """Behaviour cloning with a value regression on the outcomes; returns the final accuracy and losses."""
    obs, masks, actions, returns = (torch.from_numpy(x) for x in data)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    n = len(obs)
    stats = {}
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        correct = total_pi = total_v = 0.0
        for start in range(0, n, batch_size):
            mb = order[start:start + batch_size]
            logits, value = net(obs[mb], masks[mb])
            pi_loss = torch.nn.functional.cross_entropy(logits, actions[mb])
            v_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
            loss = pi_loss + 0.5 * v_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(-1) == actions[mb]).sum().item()
            total_pi += pi_loss.item() * len(mb)
            total_v += v_loss.item() * len(mb)
        stats = {"accuracy": correct / n, "policy_loss": total_pi / n, "value_loss": total_v / n}
    return stats
