"""The 2-player endgame learned from its exact solution: one network call that plays the ending as a search does.

Once the stock is empty at two seats no card is hidden (every card not in the seat's hand, on the table or in the
discard is the other hand), and the native solver (native/solve.hpp, ``Game.solve``) gives each move's exact value.
The fast policy loses most of what it loses to the network search there (benchmarks/RESULTS.md, "A fast policy a
class stronger"), and learning the search's own choices did not help: in a decided ending every move is as good, and
the search's pick among them is noise.  The solver says which moves are best, so the network learns the start
policy's probabilities kept on that set (``targets``), and its value head learns the exact value.

The bot file is one network of two parts (``GatedPolicy``): the policy it starts from plays while the stock holds
cards, and an endgame part, which also reads the other hand (the unseen cards, worked out inside the network from
the observation: nothing the seat cannot see), plays once the stock is empty.  Both run in the one call.

    python -m training.endgame baselines/bots/podkidnoy-0.3.onnx runs/endgame --games 20000
    durak eval runs/endgame/bot.onnx trained:podkidnoy-0.3 --games 4000 --seed 47

A run is a folder and resumes where it stopped: the deals are written in parts that a rerun keeps.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from baselines.policy_file import bot_metadata, load_bot
from durak_env.engine.seeds import derive_seed
from durak_env.native import available as native_available
from durak_env.native import new_game
from durak_env.observation import observation_slices

from .expert import play_parts
from .export import policy_from_bot_file, write_bot
from .policy import PolicyNet, widen

PART_GAMES = 200
"""Deals per part file (the unit a rerun keeps)."""
LOST = -2
"""The value written for an action that is not legal (every legal move is worth -1, 0 or 1)."""
SOLVED_KEYS = ("obs", "mask", "values", "unsolved")
"""The arrays of a part: the positions, their masks, each move's value, and the decisions left unsolved."""
SEEN = ("hand", "table_open", "table_beaten", "table_defence", "discard")
"""The card planes whose cards the seat knows are not the other hand's."""


@dataclass(frozen=True)
class EndgameConfig:
    start: str
    """The bot file that plays the deals and whose network both parts start from."""
    out: str
    games: int = 20000
    explore: float = 0.1
    """Share of moves before the endgame played at random, so the endings met are not only the policy's own."""
    node_limit: int = 200_000
    """Positions the solver may search for one decision; a decision past it is left out of the data."""
    hidden_sizes: tuple = (256, 256)
    """The endgame part's widths: the start's network widened to them."""
    epochs: int = 8
    learning_rate: float = 3e-4
    batch_size: int = 512
    seed: int = 1
    workers: int = 2


def unseen_cards(obs: torch.Tensor, slices: dict[str, slice]) -> torch.Tensor:
    """The cards of the deck the seat has not seen in its hand, on the table or in the discard: at two seats with
    an empty stock, the other hand."""
    seen = sum(obs[:, slices[name]] for name in SEEN)
    return (1.0 - seen).clamp(0.0, 1.0)


class GatedPolicy(nn.Module):
    """The ``main`` policy while the stock holds cards and the ``endgame`` one, which reads the unseen cards too,
    once it is empty; both in one call, the choice made per row."""

    def __init__(self, main: PolicyNet, endgame: PolicyNet, slices: dict[str, slice]):
        super().__init__()
        self.main, self.endgame, self.slices = main, endgame, slices
        self.stock = slices["stock_size"].start

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        main_logits, main_value = self.main(obs, mask)
        end_logits, end_value = self.endgame(torch.cat([obs, unseen_cards(obs, self.slices)], dim=-1), mask)
        empty = obs[:, self.stock] == 0
        return torch.where(empty[:, None], end_logits, main_logits), torch.where(empty, end_value, main_value)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.logits(obs, mask)
        return torch.softmax(logits, dim=-1), value


def endgame_part(start: PolicyNet, card_planes: int, hidden_sizes: list[int], seed: int) -> PolicyNet:
    """``start``'s network reading ``card_planes`` more inputs (the unseen cards; their weights 0, so it plays as
    ``start`` does to begin with), widened to ``hidden_sizes``."""
    net = PolicyNet(start.obs_size + card_planes, start.num_actions, start.hidden_sizes)
    with torch.no_grad():
        weights = start.state_dict()
        first = weights["trunk.0.weight"]
        weights["trunk.0.weight"] = torch.cat([first, torch.zeros(first.shape[0], card_planes)], dim=1)
        net.load_state_dict(weights)
    return widen(net, hidden_sizes, seed) if list(hidden_sizes) != start.hidden_sizes else net


def solved_deals(task: tuple) -> dict[str, np.ndarray]:
    """Play ``games`` deals with the policy at both seats (a share ``explore`` of the moves before the stock runs
    out at random); at each decision with a choice once the stock is empty, the seat's observation, its mask and
    each move's exact value (``LOST`` where not legal)."""
    bot_file, games, seed, explore, node_limit = task
    policy = load_bot(bot_file)
    rules = policy.rules
    stock = observation_slices(rules)["stock_size"].start
    rng = random.Random(seed)
    obs_rows, masks, values = [], [], []
    unsolved = 0
    for _ in range(games):
        core = new_game(rules, rng.getrandbits(63)).core
        while not core.over:
            obs, mask = core.observe(core.to_act)
            legal = np.flatnonzero(mask)
            if len(legal) == 1:
                core.play(int(legal[0]))
                continue
            endgame = obs[stock] == 0
            if endgame:
                solved = core.solve(node_limit)
                if solved is None:
                    unsolved += 1
                else:
                    row = np.full(len(mask), LOST, dtype=np.int8)
                    for action, value in solved.items():
                        row[action] = value
                    obs_rows.append(obs)
                    masks.append(mask)
                    values.append(row)
            if not endgame and rng.random() < explore:
                core.play(int(rng.choice(legal)))
            else:
                probs, _ = policy.predict(obs[None], mask[None])
                core.play(int(np.argmax(np.where(mask > 0, probs[0], -1.0))))
    width = policy.encoder.num_actions
    return {"obs": np.asarray(obs_rows, dtype=np.float32).reshape(-1, policy.encoder.size),
            "mask": np.asarray(masks, dtype=np.int8).reshape(-1, width),
            "values": np.asarray(values, dtype=np.int8).reshape(-1, width),
            "unsolved": np.asarray([unsolved], dtype=np.int64)}


def best_moves(values: torch.Tensor) -> torch.Tensor:
    """Each row's moves of the highest value (a boolean mask)."""
    return values == values.max(dim=-1, keepdim=True).values


def targets(start: PolicyNet, obs: torch.Tensor, mask: torch.Tensor, best: torch.Tensor) -> torch.Tensor:
    """What the endgame part learns at each position: the start policy's probabilities kept on the best moves alone
    and renormalised.  Where every move is as good (three endings in four: won or lost whatever is played) that is the
    start policy itself, whose practical choices against a fallible opponent the solution says nothing about; where
    some move is worse, its probability goes to the moves that are not."""
    with torch.no_grad():
        logits, _ = start(obs, mask)
        kept = torch.softmax(logits, dim=-1) * best
        return kept / kept.sum(-1, keepdim=True).clamp_min(1e-12)


def fit(net: PolicyNet, start: PolicyNet, data: dict[str, np.ndarray], slices: dict[str, slice], cfg: EndgameConfig,
        say=print) -> dict:
    """Train ``net`` (the endgame part) on ``targets`` and its value head on the exact value; a tenth of the rows
    held out reports the share of them where its top move is a best one, before and after, among all of them and
    among those where some move is worse."""
    torch.manual_seed(cfg.seed)
    obs = torch.from_numpy(data["obs"])
    x = torch.cat([obs, unseen_cards(obs, slices)], dim=-1)
    mask = torch.from_numpy(data["mask"])
    values = torch.from_numpy(data["values"]).float()
    best = best_moves(values)
    exact = values.max(dim=-1).values
    target = targets(start, obs, mask, best)
    matters = (best | (mask == 0)).sum(-1) < mask.shape[1]  # some legal move is not a best one
    n = len(x)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(cfg.seed))
    held = max(1, n // 10)
    test, train = order[:held], order[held:]
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)

    def scores(rows) -> dict:
        net.eval()
        with torch.no_grad():
            logits, value = net(x[rows], mask[rows])
            top = best[rows].gather(1, logits.argmax(-1, keepdim=True)).squeeze(1).float()
            return {"best_move_share": float(top.mean()), "where_it_matters": float(top[matters[rows]].mean()),
                    "value_error": float(((value - exact[rows]) ** 2).mean())}

    before = scores(test)
    say(f"endgame: {n} positions, held out {held}: {json.dumps(before)}")
    for epoch in range(cfg.epochs):
        net.train()
        shuffled = train[torch.randperm(len(train))]
        for start in range(0, len(shuffled), cfg.batch_size):
            rows = shuffled[start:start + cfg.batch_size]
            logits, value = net(x[rows], mask[rows])
            log_probs = torch.log_softmax(logits, dim=-1).masked_fill(mask[rows] == 0, 0.0)
            policy_loss = -(target[rows] * log_probs).sum(-1).mean()
            loss = policy_loss + 0.5 * ((value - exact[rows]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
        say(f"endgame: epoch {epoch + 1}/{cfg.epochs}: {json.dumps(scores(test))}")
    net.eval()
    return {"positions": n, "held_out": held, "before": before, "after": scores(test)}


def run(cfg: EndgameConfig, say=print) -> Path:
    """The deals (parts a rerun keeps), the fit, and the bot file ``out/bot.onnx``."""
    if not native_available():
        raise ValueError("training.endgame needs the native engine (its solver)")
    source = load_bot(cfg.start)
    rules = source.rules
    if rules is None or rules.num_players != 2:
        raise ValueError(f"training.endgame needs a 2-player bot file; {cfg.start} is for "
                         f"{'any rules' if rules is None else rules.describe()}")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=1))
    tasks = [(cfg.start, min(PART_GAMES, cfg.games - i), derive_seed("endgame", cfg.seed, i), cfg.explore,
              cfg.node_limit) for i in range(0, cfg.games, PART_GAMES)]
    data = play_parts(out, tasks, solved_deals, cfg.workers, say, "deals: ", keys=SOLVED_KEYS)
    slices = observation_slices(rules)
    main = policy_from_bot_file(cfg.start)
    endgame = endgame_part(main, rules.deck_size, list(cfg.hidden_sizes), cfg.seed)
    stats = fit(endgame, main, data, slices, cfg, say)
    stats["unsolved"] = int(data["unsolved"].sum())
    meta = bot_metadata(rules, main.hidden_sizes, trainer="endgame", endgame={
        "hidden_sizes": list(cfg.hidden_sizes), "positions": stats["positions"], "start": Path(cfg.start).name,
        "node_limit": cfg.node_limit})
    bot = write_bot(GatedPolicy(main, endgame, slices), meta, main.obs_size, main.num_actions, "onnx",
                    out / "bot.onnx")
    (out / "fit.json").write_text(json.dumps(stats, indent=1))
    say(f"endgame: {json.dumps(stats)}; wrote {bot}")
    return bot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.endgame", description=__doc__.splitlines()[0])
    p.add_argument("start", help="a 2-player bot file with a value head")
    p.add_argument("out", help="the run folder (a rerun continues it)")
    defaults = EndgameConfig("", "")
    for name in ("games", "explore", "node_limit", "epochs", "learning_rate", "seed", "workers"):
        p.add_argument("--" + name.replace("_", "-"), type=type(getattr(defaults, name)),
                       default=getattr(defaults, name))
    p.add_argument("--hidden-sizes", default="256,256", help="the endgame part's widths, e.g. 512,512")
    args = p.parse_args(argv)
    try:
        sizes = tuple(int(w) for w in args.hidden_sizes.split(","))
        cfg = EndgameConfig(args.start, args.out, args.games, args.explore, args.node_limit, sizes, args.epochs,
                            args.learning_rate, seed=args.seed, workers=args.workers)
        run(cfg)
    except ValueError as err:
        print(f"training.endgame: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("training.endgame: stopped; rerun the same command to continue", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
