"""Write a bot and put it on the ladder: LowestCardBot (lowest_card.py, beside this file) against the bots
everyone knows, then rated on the ladder (Bradley-Terry on the Elo scale, random = 1000).

    PYTHONPATH=docs/tutorials python docs/tutorials/ladder_bot.py          # about 11 s here
    PYTHONPATH=docs/tutorials python docs/tutorials/ladder_bot.py --tiny   # the tests run this

A bot of your own is named ``py:<module>.<Class>`` wherever a bot is named: ``durak eval``, ``durak play
--opponent``, ``benchmarks/ladder.py --bots`` (its module's folder on ``PYTHONPATH``).
"""

import argparse
import subprocess
import sys
import tempfile

from baselines.evaluate import evaluate

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a few games a pairing, to see it run")
    args = parser.parse_args()
    games = 20 if args.tiny else 400
    mine = "py:lowest_card.LowestCardBot"

    # 1. Head to head against HeuristicBot on duplicate deals: the fool rate of each, with 95% intervals.
    print(evaluate([mine, "heuristic"], games=games, seed=3).table())

    # 2. The ladder: each bot against random (the anchor) and its neighbours in the list, weakest first; the pairings
    #    are kept in a file, so a later run only plays what is new.  Here in a folder of its own, to leave the
    #    project's ladder (benchmarks/ladder.jsonl) as it is.
    out = tempfile.mkdtemp() + "/ladder"
    subprocess.run([sys.executable, "benchmarks/ladder.py", "--bots", "random", mine, "heuristic", "search:mcts:100",
                    "--games", str(games), "--out", out], check=True)


if __name__ == "__main__":  # the evaluator's worker processes import this file: run only once
    main()
