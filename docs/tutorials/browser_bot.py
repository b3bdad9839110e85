"""Play your bot in the browser: a bot file (an exported ONNX policy) seated at the page's table, first through
the page's own API (what the page sends when you click), then served for you to play.

    python docs/tutorials/browser_bot.py runs/first-bot-<time>/bot.onnx     # then open http://127.0.0.1:8000/
    python docs/tutorials/browser_bot.py --tiny                             # the shipped bot; the tests run this

The same page with no server at all: ``durak site site/ --bot mine=BOT --opponent mine`` writes it as static
files (the engine and the bot run in the browser tab).
"""

import argparse
import json
import subprocess
import sys

from baselines import shipped_bot
from frontends.web.api import Api, Options

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bot", nargs="?", help="a bot file (default: the shipped podkidnoy bot)")
    parser.add_argument("--tiny", action="store_true", help="play one deal through the page's API and stop")
    args = parser.parse_args()
    bot = args.bot or str(shipped_bot(None))

    # 1. What the page does, without a browser: start a game against the bot, then play the first legal move each
    #    turn.  Every answer holds only what your seat may see.
    api = Api(Options(bot_files={"mine": bot}, opponents=["mine"]))
    status, answer = api.dispatch("POST", "/api/games", json.dumps({"opponents": ["mine"], "seed": "7"}))
    assert status == 201, answer
    game = answer["id"]
    while not answer["state"]["over"]:
        state = answer["state"]
        moves = [a["action"] for card in state["hand"] for a in card["actions"]]
        moves += [a for a in (state["take"], state["done"]) if a is not None]
        status, answer = api.dispatch("POST", f"/api/games/{game}/moves", json.dumps({"action": moves[0]}))
        assert status == 200, answer
    result = answer["state"]["result"]
    fool = result["fool"] == answer["state"]["you"]
    print("the deal is over:", "you are the fool" if fool else "you are not the fool", "| placings", result["placings"])

    # 2. Now you: the server on 127.0.0.1 (Ctrl-C stops it).
    if not args.tiny:
        subprocess.run([sys.executable, "-m", "frontends.cli", "serve", "--bot", f"mine={bot}", "--opponent", "mine",
                        "--open"])


if __name__ == "__main__":  # the evaluator's worker processes import this file: run only once
    main()
