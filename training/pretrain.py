"""An optional warm start before PPO: imitate a teacher bot (behaviour cloning).

The teacher is a bot of the common interface, by default seed 001's "stronger
player" (``search:fast``), which reads only its own view; its decisions and the
deal's final reward for its seat are recorded from games against the heuristic
and against itself.  The policy head learns the teacher's choices (cross-entropy
over the masked logits) and the value head the outcomes, so PPO starts from a
sensible policy and critic instead of from uniform play.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch

from baselines import make_bot
from durak_env.engine.game import Game
from durak_env.engine.loop import play, seated
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import derive_seed
from durak_env.observation import ObservationEncoder

from .policy import PolicyNet


def teacher_games(task: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` deals; returns the teacher's (observations, masks, actions, returns)."""
    rules_dict, teacher_spec, games, seed, self_share = task
    rules = Rules.from_dict(rules_dict)
    enc = ObservationEncoder(rules)
    rng = random.Random(seed)
    teacher = make_bot(teacher_spec, seed=seed, rules=rules)
    opponent = make_bot("heuristic")
    obs, masks, actions, returns = [], [], [], []

    def taught_move(view) -> int:
        action = teacher.act(view)
        obs.append(enc.encode(view))
        masks.append(enc.mask(view))
        actions.append(action)
        returns.append(view.seat)  # the seat for now; its reward once the deal ends
        return action

    for _ in range(games):
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


def collect(rules: Rules, teacher: str, games: int, seed: int, workers: int, self_share: float = 0.3,
            progress: bool = False):
    """The teacher's decisions over ``games`` deals, played in ``workers`` processes."""
    chunk = 25
    tasks = [(rules.to_dict(), teacher, min(chunk, games - i), derive_seed("teacher", seed, i), self_share)
             for i in range(0, games, chunk)]
    parts = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc=f"teacher {teacher}", leave=False)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            for task, part in zip(tasks, pool.map(teacher_games, tasks)):
                parts.append(part)
                if bar is not None:
                    bar.update(task[2])
    else:
        for task in tasks:
            parts.append(teacher_games(task))
            if bar is not None:
                bar.update(task[2])
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
