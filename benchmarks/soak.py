"""Soak: many random games over every preset and random rule combinations, every invariant checked at every step.

    python benchmarks/soak.py --games 1000000            # both cores, a progress bar
    python benchmarks/soak.py --games 10000 --workers 2  # what CI runs (tests/test_soak.py)

Half the games are the presets at 2–6 seats (where the preset allows), half random
``Rules`` drawn over every field.  Per step: ``check_invariants`` (every card in
one place, counts, the acting seat) and the bout's move count within
``bout_move_bound``.  Once per game, at a random step: the environment's mask equal
to the legal moves, a ``to_dict``/JSON/``from_dict`` round trip reproducing the
snapshot, and (in one game of ten) the restored game continuing identically to
the end.  At the end, ``check_result``.  Any violation is printed with the
seed and rules that reproduce it; the exit status is 1 if there was any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from durak_env import Game, Rules  # noqa: E402
from durak_env.engine.invariants import bout_move_bound, check_invariants, check_result, random_rules  # noqa: E402
from durak_env.observation import ObservationEncoder  # noqa: E402

PLAYERS = range(2, 7)


def rules_for(game_seed: int) -> Rules:
    """Even seeds: a preset at some seat count; odd: random rules."""
    rng = random.Random(game_seed * 2654435761 % 2**32)
    if game_seed % 2:
        return random_rules(rng)
    names = list(Rules.presets())
    while True:
        try:
            return Rules.preset(rng.choice(names), num_players=rng.choice(PLAYERS))
        except ValueError:
            continue


def play_checked(rules: Rules, seed: int) -> tuple[int, str | None]:
    """One random game with every check; returns (steps, the first violation or None)."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    bound = bout_move_bound(rules)
    snapshot_at = rng.randrange(1, 200)
    continue_check = seed % 10 == 0
    steps = bout_moves = 0
    bouts = game.bouts
    try:
        check_invariants(game)
        while not game.is_over:
            legal = game.legal_actions()
            if steps == snapshot_at:
                mask = ObservationEncoder(rules).mask(game.view(game.to_act))
                if set(np.flatnonzero(mask).tolist()) != set(legal):
                    return steps, "the mask differs from the legal moves"
                snap = game.to_dict()
                restored = Game.from_dict(json.loads(json.dumps(snap)))
                if restored.to_dict() != snap:
                    return steps, "a snapshot does not round-trip"
                if continue_check:
                    twin_rng = random.Random(rng.random())
                    a, b = game.clone(), restored
                    while not a.is_over:
                        move = twin_rng.choice(a.legal_actions())
                        a.step(move)
                        b.step(move)
                    if a.to_dict() != b.to_dict():
                        return steps, "a restored game continues differently"
            game.step(rng.choice(legal))
            steps += 1
            bout_moves += 1
            if game.bouts != bouts:
                bouts, bout_moves = game.bouts, 0
            elif bout_moves > bound:
                return steps, f"a bout ran past {bound} moves"
            check_invariants(game)
        check_result(game)
    except Exception as err:  # an invariant, or any crash: both are findings
        return steps, f"{type(err).__name__}: {err}"
    return steps, None


def run_chunk(task: tuple[int, int]) -> tuple[int, int, list[dict], set]:
    start, count = task
    games = steps = 0
    violations, combos = [], set()
    for seed in range(start, start + count):
        rules = rules_for(seed)
        n, problem = play_checked(rules, seed)
        games += 1
        steps += n
        combos.add(rules)  # frozen, hashable
        if problem:
            violations.append({"seed": seed, "step": n, "problem": problem, "rules": rules.to_dict()})
    return games, steps, violations, combos


def soak(games: int, workers: int = 2, start: int = 0, chunk: int = 500, progress: bool = True) -> dict:
    """Play ``games`` checked games in ``workers`` processes; the totals and every violation."""
    tasks = [(s, min(chunk, start + games - s)) for s in range(start, start + games, chunk)]
    total_games = total_steps = 0
    violations: list[dict] = []
    combos: set = set()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc="soak", dynamic_ncols=True)
    started = time.perf_counter()
    results = (ProcessPoolExecutor(workers).map(run_chunk, tasks) if workers > 1 else map(run_chunk, tasks))
    for g, s, v, c in results:
        total_games += g
        total_steps += s
        violations += v
        combos |= c
        if bar is not None:
            bar.update(g)
            bar.set_postfix(steps=total_steps, violations=len(violations))
    if bar is not None:
        bar.close()
    return {"games": total_games, "steps": total_steps, "violations": violations, "rule_sets": len(combos),
            "seconds": time.perf_counter() - started}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1_000_000)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--start", type=int, default=0, help="first game seed (to continue or split a soak)")
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.start < 0:
        p.error("--games and --workers must be positive, --start at least 0")
    out = soak(args.games, args.workers, args.start)
    print(f"games {out['games']:,}  steps {out['steps']:,}  distinct rule sets {out['rule_sets']:,}  "
          f"violations {len(out['violations'])}  ({out['seconds']:.0f} s, {out['games'] / out['seconds']:,.0f} games/s)")
    for v in out["violations"][:20]:
        print(f"  seed {v['seed']} step {v['step']}: {v['problem']}\n    rules {json.dumps(v['rules'])}")
    if args.json:
        Path(args.json).write_text(json.dumps({k: v for k, v in out.items()}, indent=1) + "\n")
    return 1 if out["violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
