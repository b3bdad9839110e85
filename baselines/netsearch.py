"""A search that uses the network and gets stronger with time (``search:net``): the tree of ``search:mcts``
(one tree over the seat's information, a fresh deal of the unseen cards each playout, drawn from its view),
guided by a trained policy as AlphaZero's PUCT is: at a new node the policy's probabilities for the seat to
act there are the priors of its moves, and the value head's estimate of the deal for that seat stands in for
a rollout.  Playouts go down in batches with a virtual loss on the nodes they pass, so that a batch spreads
over the tree and its leaves are evaluated in one call of the network.

The network sees, for each seat, only what that seat would see in the dealt world (its observation), and the
deal is drawn from the searching seat's view alone, so the bot cannot reach a hidden card.  Budgets are
playouts or time: ``search:net`` (30 ms a move), ``search:net:1s``, ``search:net:2000``.

Where the native engine is built, the deals, the tree and the leaves' observations are native (native/search.hpp:
``NetSearch``, the same PUCT step for step) and only the network runs in Python; ``engine="python"`` (or a name
ending ``:python``) keeps the whole search in the reference engine."""

from __future__ import annotations

import math
import random

import numpy as np

from durak_env.engine.determinize import sample_world
from durak_env.engine.game import Game
from durak_env.engine.view import SeatView
from durak_env.native import _native, view_fields
from durak_env.native import available as native_available

from .mcts import Budget, TreeSearch

SECONDS = 0.03
"""Time a move of ``search:net``."""
BATCH = 8
"""Playouts whose leaves the network evaluates in one call."""
C_PUCT = 1.5


class NetNode:
    """A sequence of choices since the root: the priors of its moves (None until the network has seen it), its
    children, its visits and per seat the results through it, and the playouts now passing (virtual loss)."""

    __slots__ = ("priors", "children", "visits", "totals", "pending")

    def __init__(self, seats: int):
        self.priors: dict[int, float] | None = None
        self.children: dict[int, NetNode] = {}
        self.visits = 0
        self.totals = [0.0] * seats
        self.pending = 0


class NetSearchBot(TreeSearch):
    """PUCT over dealt worlds with ``policy`` (a ``PolicyBot`` with a value head) for priors and values."""

    def __init__(self, policy, seed: int | None = None, playouts: int | None = None, seconds: float | None = None,
                 batch: int = BATCH, c_puct: float = C_PUCT, engine: str = "auto"):
        if not policy.has_value:
            raise ValueError(f"search:net needs a bot file with a value head; {policy.name} has none")
        if engine not in ("auto", "native", "python"):
            raise ValueError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
        if engine == "native" and not native_available():
            raise ValueError("engine='native': the native engine is not built here")
        self.native = engine != "python" and native_available()
        """Whether the deals, the tree and the leaves' observations are native (the network is not)."""
        if playouts is None and seconds is None:
            seconds = SECONDS
        self.budget = Budget("search:net", playouts, seconds)
        self.policy, self.rules, self.encoder = policy, policy.rules, policy.encoder
        self.batch, self.c_puct = batch, c_puct
        self.rng = random.Random(seed)
        self.name = f"search-net-{self.budget.label}" + ("" if self.native else "-python")
        self._obs = np.zeros((batch, self.encoder.size), dtype=np.float32)
        self._mask = np.zeros((batch, self.encoder.num_actions), dtype=np.int8)
        self.last_visits: dict[int, int] = {}
        """The playouts through each move at the root of the last search (what expert iteration learns)."""

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if view.rules != self.rules:
            raise ValueError(f"{self.policy.name} was trained for other rules ({self.rules.describe()}); "
                             f"this game is {view.rules.describe()}")
        if self.native:
            search = _native.NetSearch(*view_fields(view), self.rng.getrandbits(64), self.c_puct,
                                       self.encoder.universal)
            self.last_playouts = self.budget.spend(self.batch, lambda size: self.native_batch(search, size))
            self.last_visits = search.root_visits()
            return search.best(list(legal))
        root = NetNode(len(view.hand_sizes))
        self.last_playouts = self.budget.spend(self.batch, lambda size: self.playout_batch(root, view, size))
        self.last_visits = {a: child.visits for a, child in root.children.items()}
        priors = root.priors or {}
        return max(legal, key=lambda a: (root.children[a].visits if a in root.children else 0, priors.get(a, 0.0)))

    def native_batch(self, search, size: int) -> None:
        """``playout_batch`` in the native core: the playouts go down there, the network reads their leaves here."""
        rows = search.descend_batch(size, self._obs, self._mask)
        if rows:
            probs, head = self.policy.predict(self._obs[:rows], self._mask[:rows])
            search.back_up(np.ascontiguousarray(probs, np.float32), np.ascontiguousarray(head, np.float32))
        else:
            search.back_up(np.zeros((0, self.encoder.num_actions), np.float32), np.zeros(0, np.float32))

    def playout_batch(self, root: NetNode, view: SeatView, size: int) -> None:
        """``size`` playouts down to a leaf each, the leaves evaluated in one call, the results backed up."""
        leaves = []  # (the nodes passed, the game at the leaf)
        for _ in range(size):
            game = sample_world(view, self.rng)
            leaves.append((self.descend(root, game), game))
        pending = [(i, leaf) for i, leaf in enumerate(leaves) if leaf[1].result is None]
        values = {}
        if pending:
            for row, (_, (_, game)) in enumerate(pending):
                self.encoder.encode_game(game, game.to_act, self._obs[row])
                self._mask[row] = 0
                self._mask[row, list(game.legal_actions())] = 1
            probs, head = self.policy.predict(self._obs[:len(pending)], self._mask[:len(pending)])
            for row, (i, (path, game)) in enumerate(pending):
                leaf = path[-1]
                legal = game.legal_actions()
                if leaf.priors is None:  # two playouts of a batch may reach the same new node
                    total = float(sum(probs[row][a] for a in legal)) or 1.0
                    leaf.priors = {a: float(probs[row][a]) / total for a in legal}
                values[i] = self.spread(float(head[row]), game.to_act, game.n)
        for i, (path, game) in enumerate(leaves):
            rewards = values[i] if i in values else game.result.rewards()
            for node in path:
                if node is not root:
                    node.pending -= 1  # the virtual loss of this playout, taken back
                node.visits += 1
                for s, r in enumerate(rewards):
                    node.totals[s] += r

    def descend(self, root: NetNode, game: Game) -> list[NetNode]:
        """Down the tree in ``game`` (forced moves played on the way) to a node the network has not seen or the
        end of the deal; the nodes passed carry a virtual loss until the batch is backed up."""
        node, path = root, [root]
        c = self.c_puct
        while game.result is None:
            legal = game.legal_actions()
            if len(legal) == 1:
                game.play_unchecked(legal[0])
                continue
            if node.priors is None:
                break
            seat = game.to_act
            uniform = 1.0 / len(legal)
            scale = c * math.sqrt(node.visits + node.pending + 1)
            best, best_score = legal[0], -math.inf
            for a in legal:
                child = node.children.get(a)
                prior = node.priors.get(a, uniform)
                if child is None:
                    score = scale * prior
                else:
                    n = child.visits + child.pending
                    q = (child.totals[seat] - child.pending) / n if n else 0.0
                    score = q + scale * prior / (1 + n)
                if score > best_score:
                    best, best_score = a, score
            child = node.children.get(best)
            if child is None:
                child = node.children[best] = NetNode(len(node.totals))
            child.pending += 1
            game.play_unchecked(best)
            path.append(child)
            node = child
        return path

    @staticmethod
    def spread(value: float, seat: int, seats: int) -> list[float]:
        """The value head's estimate for ``seat`` as every seat's result: the others share its opposite."""
        out = [-value / (seats - 1)] * seats
        out[seat] = value
        return out


ENDGAME_SECONDS = 0.001
"""Time a move of ``search:endgame`` once the stock is empty."""


class EndgameSearchBot:
    """``search:endgame``: the policy's own move while the stock holds cards, and ``search:net`` once it is empty.

    The fast policy loses most of what it loses to the search in the endgame: at two seats an empty stock leaves
    no card unseen (every card not in the seat's hand, on the table or in an open discard is the other hand), and
    the search's playouts calculate what one call of the network does not (benchmarks/RESULTS.md, "A fast policy a
    class stronger").  So the search is spent there alone: 1 ms a move by default, the policy's 0.1 ms before."""

    def __init__(self, policy, seed: int | None = None, playouts: int | None = None, seconds: float | None = None,
                 engine: str = "auto"):
        if playouts is None and seconds is None:
            seconds = ENDGAME_SECONDS
        self.policy = policy
        self.search = NetSearchBot(policy, seed, playouts=playouts, seconds=seconds, engine=engine)
        self.name = self.search.name.replace("search-net", "search-endgame", 1)

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.search.reset(seed)

    def act(self, view: SeatView) -> int:
        return self.search.act(view) if view.stock_size == 0 else self.policy.act(view)


def net_search_from_name(arg: str, policy, seed: int | None = None, kind: str = "net") -> "NetSearchBot | EndgameSearchBot":
    """``search:net[:<playouts>|<n>ms|<n>s][:python]`` -> the bot; ``arg`` is what follows ``search:net:``
    (``python``: the search in the reference engine).  ``kind="endgame"``: ``search:endgame[...]``, the same
    budgets for its endgame search."""
    parts = [p for p in arg.split(":") if p] if arg else []
    engine = parts.pop() if parts and parts[-1] == "python" else "auto"
    make = NetSearchBot if kind == "net" else EndgameSearchBot
    if len(parts) > 1:
        raise ValueError(f"search:{kind} takes one budget, e.g. search:{kind}:1000, search:{kind}:30ms; got {arg!r}")
    if not parts:
        return make(policy, seed, engine=engine)
    budget = Budget.parse(parts[0], f"search:{kind}")
    return make(policy, seed, playouts=budget.playouts, seconds=budget.seconds, engine=engine)


__all__ = ["EndgameSearchBot", "NetSearchBot", "net_search_from_name"]
