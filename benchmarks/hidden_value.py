"""How much of a 2-player deal's result do the hidden cards explain (issue 47: a critic that sees every hand)?

The shipped podkidnoy policy plays itself (a share ``--explore`` of its moves at random, for variety).  Each
decision with a choice keeps the seat's observation, the cards hidden from it (``durak_env.privileged``: the other
hand and the stock) and the deal's result for that seat.  Two networks of the full-information critic's shape
(``training.policy.FullCritic``) learn the results from nine tenths of the deals: one reads the hidden cards, the
other gets them zeroed (the seat's observation alone).  On the other tenth, by the cards left in the stock, this
prints the variance of the result and each estimate's squared error, the policy's own value head's too.  Where the
hidden cards explain little, a critic or a search leaf that reads them has little to add.

    python benchmarks/hidden_value.py                   # 30,000 deals: about 4 minutes of play, 1 of fitting
    python benchmarks/hidden_value.py --games 2000 --epochs 1
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np
import torch

try:  # the installed package (a wheel) when there is one, else this checkout's source
    import durak_env  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines import shipped_bot  # noqa: E402
from baselines.policy_file import load_bot  # noqa: E402
from durak_env import Game, Rules  # noqa: E402
from durak_env.engine.game import staked  # noqa: E402
from durak_env.privileged import PrivilegedEncoder  # noqa: E402
from training.policy import FullCritic  # noqa: E402

LANES = 128
"""Deals played side by side, their decisions asked of the network in one call."""
STOCK_BANDS = (("0", 0, 0), ("1-6", 1, 6), ("7-16", 7, 16), ("17-52", 17, 52), ("all", 0, 52))
"""The rows of the table: cards left in the stock, from and to."""


def self_play(policy, games: int, seed: int, explore: float) -> dict[str, np.ndarray]:
    """``games`` deals of ``policy`` against itself; per decision with a choice: the seat's observation, the cards
    hidden from it, the cards in the stock, the deal's number and the result for the seat (the stake the policy
    was trained for)."""
    rules, encoder = policy.rules, policy.encoder
    hidden = PrivilegedEncoder(rules)
    stake = policy.metadata.get("reward", "placings")
    rng = random.Random(seed)
    obs = np.zeros((LANES, encoder.size), np.float32)
    mask = np.zeros((LANES, encoder.num_actions), np.int8)
    rows: dict[str, list] = {"obs": [], "hidden": [], "stock": [], "deal": [], "seat": []}
    results: dict[int, list[float]] = {}
    live: list[tuple[int, Game]] = []
    dealt = 0
    while live or dealt < games:
        while len(live) < LANES and dealt < games:
            live.append((dealt, Game(rules, seed=rng.getrandbits(63))))
            dealt += 1
        for k, (_, game) in enumerate(live):
            encoder.encode_game(game, game.to_act, obs[k])
            mask[k] = 0
            mask[k, list(game.legal_actions())] = 1
        cards = hidden.encode_games([game for _, game in live])
        probs, _ = policy.predict(obs[:len(live)], mask[:len(live)])
        going = []
        for k, (deal, game) in enumerate(live):
            legal = game.legal_actions()
            if len(legal) > 1:
                for key, value in (("obs", obs[k].copy()), ("hidden", cards[k]), ("stock", len(game.stock)),
                                   ("deal", deal), ("seat", game.to_act)):
                    rows[key].append(value)
            move = rng.choice(legal) if rng.random() < explore else max(legal, key=lambda a: probs[k][a])
            game.play_unchecked(move)
            if game.result is None:
                going.append((deal, game))
            else:
                results[deal] = staked(game.result.rewards(), stake)
        live = going
    out = {key: np.asarray(value) for key, value in rows.items()}
    out["result"] = np.asarray([results[d][s] for d, s in zip(rows["deal"], rows["seat"])], np.float32)
    return out


def fit(data: dict[str, np.ndarray], train: np.ndarray, see_hidden: bool, epochs: int, seed: int) -> FullCritic:
    """A ``FullCritic`` of [256, 256] fitted to the results of the ``train`` rows (squared error, Adam at 1e-3
    halved each epoch; one epoch is best here, more overfit the deals), the hidden cards zeroed unless
    ``see_hidden``."""
    torch.manual_seed(seed)
    obs = torch.from_numpy(data["obs"][train])
    cards = torch.from_numpy(data["hidden"][train] if see_hidden else np.zeros_like(data["hidden"][train]))
    result = torch.from_numpy(data["result"][train])
    net = FullCritic(obs.shape[1], cards.shape[1], [256, 256])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(epochs):
        order = torch.randperm(len(result))
        for start in range(0, len(order), 1024):
            rows = order[start:start + 1024]
            loss = ((net(obs[rows], cards[rows]) - result[rows]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        for group in opt.param_groups:
            group["lr"] *= 0.5
    return net.eval()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=30000)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--explore", type=float, default=0.05, help="share of moves played at random")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.games < 10 or args.epochs < 1 or not 0 <= args.explore <= 1:
        p.error("--games at least 10, --epochs at least 1, --explore from 0 to 1")
    rules = Rules()
    policy = load_bot(shipped_bot(rules), rules=rules)
    data = self_play(policy, args.games, args.seed, args.explore)
    held = data["deal"] >= args.games - args.games // 10
    nets = {see: fit(data, ~held, see, args.epochs, args.seed) for see in (True, False)}
    obs, cards, result = data["obs"][held], data["hidden"][held], data["result"][held]
    with torch.no_grad():
        estimates = [nets[True](torch.from_numpy(obs), torch.from_numpy(cards)).numpy(),
                     nets[False](torch.from_numpy(obs), torch.zeros(cards.shape)).numpy()]
    _, head = policy.predict(obs, np.ones((len(obs), policy.encoder.num_actions), np.int8))
    estimates.append(head)
    print(f"hidden_value: {len(data['result'])} decisions of {args.games} deals, {len(result)} of the last "
          f"{args.games // 10} held out")
    print("| cards in the stock | positions | variance of the result | every hand seen | the seat's observation "
          "| the policy's value head |")
    print("|---|---|---|---|---|---|")
    stock = data["stock"][held]
    for band, low, high in STOCK_BANDS:
        rows = (stock >= low) & (stock <= high)
        if rows.any():
            errors = " | ".join(f"{float(((e[rows] - result[rows]) ** 2).mean()):.3f}" for e in estimates)
            print(f"| {band} | {int(rows.sum())} | {float(result[rows].var()):.3f} | {errors} |")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
