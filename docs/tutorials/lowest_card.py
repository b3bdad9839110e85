"""A bot of your own: the interface every bot here has (``act(view) -> action`` and ``reset(seed)``).

It plays the lowest card it may (plain cards before trumps), takes when it can only beat with a trump while the
stock still holds cards, and passes once it has nothing low to add.  ``view`` is what its seat may know
(``durak_env.SeatView``): never the game, so it cannot see a hidden card.
"""

import random

from durak_env import decode_action


class LowestCardBot:
    def reset(self, seed=None):
        self.rng = random.Random(seed)  # unused here: a bot that draws at random keeps its stream from its seed

    def act(self, view):
        moves = [(action, decode_action(action, view.rules)) for action in view.legal_actions]
        cards = [(action, move) for action, move in moves if move.card is not None]

        def cost(item):
            card = item[1].card
            return (card.suit == view.trump_suit, card.rank)  # plain before trump, then low to high

        if cards:
            action, move = min(cards, key=cost)
            trump_only = move.card.suit == view.trump_suit and move.kind == "defend"
            if not (trump_only and view.stock_size > 0):
                return action
        others = {move.kind: action for action, move in moves if move.card is None}
        return others.get("take", others.get("done", view.legal_actions[0]))
