"""Does a longer ``search:net`` choose differently (issue 47, item 3: a search that keeps gaining with time)?

A search can only gain from more time where more time changes its move.  On positions met in deals of 2-player
podkidnoy (random moves from seeded deals, the stock not yet empty, a choice of moves), this runs the network
search guided by the shipped policy twice at the short budget (two seeds: how often the search disagrees with
itself) and once at the long one, and counts how often the long search keeps the short one's move, with the share
of the playouts on each search's chosen move.

    python benchmarks/search_time.py                     # 25 positions, 1 s and 10 s: about 5 minutes
    python benchmarks/search_time.py --explore 0.5       # the root's priors half even (NetSearchBot.explore)
    python benchmarks/search_time.py --short 0.1 --long 1 --positions 10
    python benchmarks/search_time.py --explore 0.5 --short 0.3 --positions 0 --games 100
    python benchmarks/search_time.py --positions 200 --targets 400   # what expert iteration learns (seconds)

The positions measure no strength: a move changed may be worse.  ``--games N`` then plays N games of 2-player
podkidnoy on duplicate deals (each deal twice, the seats swapped) at the short budget, the search with
``--explore`` against the search without it, and prints how often the first is not the fool.  ``--targets P``
instead searches each position with P playouts, as ``training.expert`` does for its targets, and says how often
the search's move is the policy's own most probable one and what share of the playouts that move takes.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

try:  # the installed package (a wheel) when there is one, else this checkout's source
    import durak_env  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines import shipped_bot  # noqa: E402
from baselines.evaluate import evaluate, wilson  # noqa: E402
from baselines.netsearch import NetSearchBot  # noqa: E402
from baselines.policy_file import load_bot  # noqa: E402
from training.expert import move_shares  # noqa: E402
from durak_env import Game, Rules  # noqa: E402


def positions(rules: Rules, count: int, seed: int) -> list[Game]:
    """``count`` positions with a choice of moves and cards in the stock, one a deal, from all through the deals."""
    rng = random.Random(seed)
    found: list[Game] = []
    while len(found) < count:
        game = Game(rules, seed=rng.getrandbits(32))
        while game.result is None and game.stock:
            legal = game.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                found.append(game.clone())
                break
            game.play_unchecked(rng.choice(legal))
    return found


def targets(policy, games: list[Game], playouts: int, explore: float) -> int:
    """How far expert iteration's targets (the search's move shares at ``playouts``) are from the policy itself."""
    same, shares = 0, []
    for game in games:
        view = game.view(game.to_act)
        probs, _ = policy.predict(policy.encoder.encode(view)[None], policy.encoder.mask(view)[None])
        own = max(view.legal_actions, key=lambda a: probs[0][a])
        search = NetSearchBot(policy, seed=1, playouts=playouts, explore=explore)
        same += search.act(view) == own
        shares.append(float(move_shares(search, policy.encoder.num_actions)[own]))
    print(f"search_time: at {playouts} playouts (explore {explore:g}) the search's move is the policy's own in {same} "
          f"of {len(games)} positions; that move takes {sum(shares) / len(shares):.3f} of the playouts on average")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=25)
    p.add_argument("--short", type=float, default=1.0, help="seconds a move of the short searches")
    p.add_argument("--long", type=float, default=10.0, help="seconds a move of the long search")
    p.add_argument("--explore", type=float, default=0.0, help="NetSearchBot.explore: the root's even share")
    p.add_argument("--games", type=int, default=0, help="then a match at the short budget: --explore against 0")
    p.add_argument("--targets", type=int, default=0, help="playouts of expert iteration's searches (0: time them)")
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    counts = (args.positions, args.games, args.targets)
    if min(counts) < 0 or not 0 < args.short <= args.long or not 0 <= args.explore <= 1:
        p.error("--positions, --games and --targets at least 0, 0 < --short <= --long, --explore from 0 to 1")
    rules = Rules()
    policy = load_bot(shipped_bot(rules), rules=rules)
    if args.targets:
        return targets(policy, positions(rules, args.positions, args.seed), args.targets, args.explore)
    agree = kept = 0
    for i, game in enumerate(positions(rules, args.positions, args.seed)):
        view = game.view(game.to_act)
        moves, shares = [], []
        for seed, seconds in ((1, args.short), (2, args.short), (3, args.long)):
            search = NetSearchBot(policy, seed=seed, seconds=seconds, explore=args.explore)
            move = search.act(view)
            moves.append(move)
            shares.append(float(move_shares(search, policy.encoder.num_actions)[move]))
        agree += moves[0] == moves[1]
        kept += moves[0] == moves[2]
        print(f"position {i}: {len(view.legal_actions)} moves; chosen {moves} with "
              f"{', '.join(f'{s:.3f}' for s in shares)} of the playouts", flush=True)
    n = args.positions
    if n:
        print(f"search_time: two {args.short:g} s searches choose the same move in {agree} of {n} positions; the "
              f"{args.long:g} s search keeps the {args.short:g} s move in {kept} of {n} (explore {args.explore:g})")
    if args.games:
        bots = [NetSearchBot(policy, seed=1, seconds=args.short, explore=e) for e in (args.explore, 0.0)]
        report = evaluate(bots, rules, games=args.games, seed=args.seed)
        first, second = report.stats
        low, high = wilson(report.games - first.fools, report.games)
        print(f"search_time: explore {args.explore:g} against 0 at {args.short:g} s a move: not the fool in "
              f"{1 - first.fools / report.games:.3f} [{low:.3f}, {high:.3f}] of {report.games} games (fools "
              f"{first.fools} / {second.fools}, {first.draws} draws; {first.ms_per_move:.1f} / "
              f"{second.ms_per_move:.1f} ms a move)", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
