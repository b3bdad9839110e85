"""The two engines against each other: seeded deals played through the Python reference (``durak_env.engine``)
and the native engine (``durak_env._native``) side by side, compared at every decision.

At each decision: the legal set (in order), the seat to act, seed 004's heuristic move (``search:mcts``'s
rollouts), both observation layouts of every seat (bytes),
the refusal code of a few actions that are not legal (out of range, other kinds, other cards) and, now and
then, the facts of the position.  Now and then a deal is carried on from a snapshot: the reference game from
``to_dict``/``from_dict`` and the native one assembled from the reference's facts.  At the end: the result
(placings, points, fool, drawn, capped) and the float32 rewards.  The deals cover every preset at every table
size it seats and random rule sets (``engine.invariants.random_rules``), with moves chosen at random or by seed
004's heuristic.  tests/test_native.py runs a sample on every submission; this script the long run:

    python benchmarks/differential.py --decisions 10000000        # appends a line to benchmarks/differential.log

It stops at the first disagreement and prints the deal (rules, seed, first seat) and the moves that reach it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from durak_env.engine.game import Game
from durak_env.engine.invariants import random_rules
from durak_env.engine.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules
from durak_env.native import REFUSALS, _native, native_game, to_native
from durak_env.observation import ObservationEncoder

ROOT = Path(__file__).resolve().parent.parent


class Disagreement(AssertionError):
    """The engines differ: what, where, and how to replay it."""


def tables() -> list[Rules]:
    """Every preset at every table size it seats."""
    return [p.replace(num_players=k) for p, _ in PRESETS.values() for k in range(MIN_PLAYERS, MAX_PLAYERS + 1)
            if p.can_seat(k)]


def deal_rules(rng: random.Random) -> Rules:
    """Half the deals at a preset's table, half at random rules."""
    return random_rules(rng) if rng.random() < 0.5 else rng.choice(tables())


def _heuristic(game: Game) -> int:
    from baselines.search import heuristic_everywhere  # the bots' layer: only the chooser of some deals

    return heuristic_everywhere(game)


def compare_deal(rules: Rules, seed: int, first_seat: int, rng: random.Random, heuristic: bool = False,
                 move_limit: int = 3000) -> int:
    """Play one deal through both engines, comparing every decision; returns the decisions compared."""
    ref = Game(rules, seed, first_seat)
    nat = native_game(rules, seed, first_seat)
    encoders = (ObservationEncoder(rules), ObservationEncoder(rules, True))
    buffers = [np.empty(e.size, np.float32) for e in encoders]
    size = encoders[0].num_actions
    where = f"rules={rules.to_dict()} seed={seed} first_seat={first_seat}"
    moves: list[int] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            raise Disagreement(f"{what}\n  deal: {where}\n  moves: {moves}")

    while True:
        legal = ref.legal_actions()
        check(legal == nat.legal_actions(), f"legal moves: reference {legal}, native {nat.legal_actions()}")
        check(ref.to_act == nat.to_act, f"seat to act: reference {ref.to_act}, native {nat.to_act}")
        for encoder, universal, buffer in zip(encoders, (False, True), buffers):
            for seat in range(rules.num_players):
                nat.encode(seat, universal, buffer)
                check(encoder.encode_game(ref, seat).tobytes() == buffer.tobytes(),
                      f"observation of seat {seat} (universal={universal}) after {len(moves)} moves")
        if len(moves) % 16 == 0:
            check(Game.assemble(rules, **nat.facts()).to_dict() == ref.to_dict(), "the facts")
        if len(legal) > 1:
            check(_heuristic(ref) == _native.heuristic_action(nat), "seed 004's heuristic move")
        for action in (rng.randrange(-2, size + 2), rng.randrange(size), rng.randrange(size)):
            why = ref.refusal(action)
            code = nat.refusal(action)
            check((why[0] if why else None) == (REFUSALS[code] if code >= 0 else None),
                  f"refusal of {action}: reference {why}, native {REFUSALS[code] if code >= 0 else None}")
        if ref.result is not None:
            r = ref.result
            check((r.placings, r.points, r.fool, r.drawn, r.capped) == nat.result,
                  f"result: reference {r}, native {nat.result}")
            check(list(np.float32(r.rewards())) == nat.rewards(), "rewards")
            return len(moves)
        if len(moves) >= move_limit:
            return len(moves)
        action = _heuristic(ref) if heuristic and len(legal) > 1 else rng.choice(legal)
        ref.step(action)
        nat.play(action)
        moves.append(action)
        if rng.random() < 0.01 and ref.result is None:  # carried on from a snapshot, in both engines
            ref = Game.from_dict(ref.to_dict())
            nat = to_native(ref)


def run(decisions: int, seed: int, report_every: float = 60.0) -> tuple[int, int, float]:
    """Deals until ``decisions`` decisions are compared; (deals, decisions, seconds)."""
    rng = random.Random(seed)
    start = last = time.perf_counter()
    deals = done = 0
    while done < decisions:
        rules = deal_rules(rng)
        done += compare_deal(rules, rng.getrandbits(64), rng.randrange(rules.num_players), rng,
                             heuristic=rng.random() < 0.25)
        deals += 1
        if time.perf_counter() - last > report_every:
            last = time.perf_counter()
            print(f"  {deals:,} deals, {done:,} decisions, {done / (last - start):,.0f} a second", flush=True)
    return deals, done, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", default=str(ROOT / "benchmarks" / "differential.log"))
    args = parser.parse_args(argv)
    try:
        deals, done, seconds = run(args.decisions, args.seed)
    except KeyboardInterrupt:
        sys.exit(130)
    except Disagreement as err:
        sys.exit(f"differential: the engines disagree: {err}")
    line = (f"{time.strftime('%Y-%m-%d %H:%M')} seed {args.seed}: {deals:,} deals, {done:,} decisions compared, "
            f"no disagreement ({seconds:,.0f} s)")
    print(line)
    with open(args.log, "a") as log:
        log.write(line + "\n")


if __name__ == "__main__":
    main()
