"""A search that uses the network and gets stronger with time (``search:net``): the tree of ``search:mcts``
(one tree over the seat's information, a fresh deal of the unseen cards each playout, drawn from its view),
guided by a trained policy as AlphaZero's PUCT is: at a new node the policy's probabilities for the seat to
act there are the priors of its moves, and the value head's estimate of the deal for that seat stands in for
a rollout.  Playouts go down in batches with a virtual loss on the nodes they pass, so that a batch spreads
over the tree and its leaves are evaluated in one call of the network.

The network sees, for each seat, only what that seat would see in the dealt world (its observation), and the
deal is drawn from the searching seat's view alone, so the bot cannot reach a hidden card.  Budgets are
playouts or time: ``search:net`` (30 ms a move), ``search:net:1s``, ``search:net:2000``.

``search:model`` is that search with a model of the other seats.  In the one tree every seat chooses by the
results through its moves over all the worlds dealt, so another seat plays as if it did not know its own hand; at
three seats and more most choices in a playout are other seats'.  Here each other seat plays the move drawn from
the network's probabilities for what it sees in the world being played (its own hand there), and only the
searching seat's choices are PUCT's: a network call at each of the other seats' choices, so fewer playouts, each
nearer how the table plays.  Once the searching seat is out its result is settled, and the heuristic ends the
deal.  At 30 ms a move against ``search:mcts:30ms`` in every other seat, on the same 300 deals, it is not the fool
in 0.923 of the games at four seats where ``search:net`` is in 0.843; at five and six seats the two are level, and
at two and three seats, where the others are rightly played as adversaries, the tree is stronger (0.937 against
0.863 at three): benchmarks/RESULTS.md.

Where the native engine is built, the deals, the tree and the leaves' observations are native (native/search.hpp:
``NetSearch``, the same PUCT step for step) and only the network runs in Python; ``engine="python"`` (or a name
ending ``:python``) keeps the whole search in the reference engine."""

from __future__ import annotations

import functools
import math
import random

import numpy as np

from durak_env.engine.determinize import sample_world
from durak_env.engine.game import STAKES, Game, staked
from durak_env.engine.view import SeatView
from durak_env.native import _native, view_fields
from durak_env.native import available as native_available

from .mcts import Budget, TreeSearch
from .search import ROLLOUT_LIMIT, rollout

SECONDS = 0.03
"""Time a move of ``search:net``."""
BATCH = 8
"""Playouts whose leaves the network evaluates in one call."""
MODEL_BATCH = 16
"""The same with ``opponents`` (``search:model``), where a playout needs a call at each choice of another seat:
more playouts a round fill the calls (736 playouts in 30 ms at batch 8, 1,056 at 16, on a 4-seat opening)."""
C_PUCT = 1.5


def cut_off(path: list) -> bool:
    """A playout that has chosen ``ROLLOUT_LIMIT`` moves (seats that pass cards back and forth for ever) ends there."""
    return len(path) > ROLLOUT_LIMIT


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


def trained_stake(policy) -> str:
    """The stake ``policy`` was trained to win (its file's ``reward``; placings where the file names none): what a
    network search over it backs up unless told another, so ``:fool`` changes nothing for a bot trained on it."""
    return policy.metadata.get("reward", "placings")


class NetSearchBot(TreeSearch):
    """PUCT over dealt worlds with ``policy`` (a ``PolicyBot`` with a value head) for priors and values."""

    def __init__(self, policy, seed: int | None = None, playouts: int | None = None, seconds: float | None = None,
                 batch: int | None = None, c_puct: float = C_PUCT, engine: str = "auto", opponents: bool = False,
                 stake: str | None = None, explore: float = 0.0):
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
        self.opponents = opponents
        """Whether the other seats play the network's move for their own hand in each world (``search:model``)
        rather than the tree's, chosen over every world alike."""
        self.stake = stake or trained_stake(policy)
        """What a playout that ends the deal backs up (``staked``): by default what the policy was trained to win
        (``trained_stake``), so that the deal's end and the value head's estimates are paid alike."""
        if self.stake not in STAKES:
            raise ValueError(f"a stake is one of {', '.join(STAKES)}, got {self.stake!r}")
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore is a share from 0 to 1, got {explore!r}")
        self.explore = explore
        """The share of the root's priors spread evenly over its moves (the rest the network's): 0 by default.  The
        shipped policies are sure of their move, so PUCT gives the others a few playouts of 100,000 and a search
        ten times as long keeps the same move (``benchmarks/search_time.py``); a share here makes the root weigh
        every move, and its move then changes with time, but at 300 ms 0.5 loses to 0 (benchmarks/RESULTS.md)."""
        self.batch, self.c_puct = batch or (MODEL_BATCH if opponents else BATCH), c_puct
        self.rng = random.Random(seed)
        self.name = (f"search-{'model' if opponents else 'net'}-{self.budget.label}"
                     + ("-fool" if self.stake == "fool" else "") + ("" if self.native else "-python"))
        self._obs = np.zeros((self.batch, self.encoder.size), dtype=np.float32)
        self._mask = np.zeros((self.batch, self.encoder.num_actions), dtype=np.int8)
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
                                       self.encoder.universal, self.opponents, self.stake == "fool",
                                       self.explore)
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
        while rows:
            probs, head = self.policy.predict(self._obs[:rows], self._mask[:rows])
            rows = search.advance(np.ascontiguousarray(probs, np.float32), np.ascontiguousarray(head, np.float32),
                                  self._obs, self._mask)

    def playout_batch(self, root: NetNode, view: SeatView, size: int) -> None:
        """``size`` playouts down to a leaf each, the leaves evaluated in one call, the results backed up.  With
        ``opponents`` a playout also stops where another seat chooses, and goes on once that call has drawn its
        move: a round of calls until every playout is at a leaf or the end (the native core's rounds, in order)."""
        walks = []  # per playout: the nodes passed, the game
        for _ in range(size):
            walk = ([root], sample_world(view, self.rng))
            self.descend(*walk, view.seat)
            walks.append(walk)
        results: list[list[float] | None] = [None] * size
        asking = self.ask(walks, range(size), results, view.seat)
        while asking:
            probs, head = self.policy.predict(self._obs[:len(asking)], self._mask[:len(asking)])
            for row, i in enumerate(asking):
                path, game = walks[i]
                legal = game.legal_actions()
                if self.opponents and game.to_act != view.seat:
                    self.go(path, game, self.draw(probs[row], legal))
                    continue
                leaf = path[-1]
                if leaf.priors is None:  # two playouts of a batch may reach the same new node
                    total = float(sum(probs[row][a] for a in legal)) or 1.0
                    even = self.explore if leaf is root else 0.0
                    leaf.priors = {a: (1 - even) * float(probs[row][a]) / total + even / len(legal) for a in legal}
                results[i] = self.spread(float(head[row]), game.to_act, game.n)
            going = [i for i in asking if results[i] is None]
            for i in going:
                self.descend(*walks[i], view.seat)
            asking = self.ask(walks, going, results, view.seat)
        for (path, _), rewards in zip(walks, results):
            for node in path:
                if node is not root:
                    node.pending -= 1  # the virtual loss of this playout, taken back
                node.visits += 1
                for s, r in enumerate(rewards):
                    node.totals[s] += r

    def ask(self, walks: list, indices, results: list, seat: int) -> list[int]:
        """The playouts of ``indices`` whose deal is over (or, with ``opponents``, settled for ``seat``; 0 where
        ``cut_off``) take their results; the others' positions go into the next rows of the batch's arrays.  Returns
        those playouts."""
        asking = []
        for i in indices:
            _, game = walks[i]
            if game.result is not None or cut_off(walks[i][0]) or (self.opponents and not game.in_play(seat)):
                results[i] = staked(game.result.rewards(), self.stake) if game.result is not None else [0.0] * game.n
                continue
            row = len(asking)
            self.encoder.encode_game(game, game.to_act, self._obs[row])
            self._mask[row] = 0
            self._mask[row, list(game.legal_actions())] = 1
            asking.append(i)
        return asking

    def descend(self, path: list[NetNode], game: Game, seat: int) -> None:
        """Down the tree in ``game`` from ``path``'s last node (forced moves played on the way) to a node the
        network has not seen or the end of the deal; the nodes passed carry a virtual loss until the batch is
        backed up.  With ``opponents``, also to a choice of a seat other than the searching ``seat`` (its move
        drawn from the network's probabilities for its own hand in this world), and once ``seat`` is out its
        result is settled, so the heuristic ends the deal."""
        while game.result is None and not cut_off(path):
            legal = game.legal_actions()
            if len(legal) == 1:
                game.play_unchecked(legal[0])
                continue
            if self.opponents and not game.in_play(seat):
                rollout(game, seat)
                return
            if (self.opponents and game.to_act != seat) or path[-1].priors is None:
                return
            self.go(path, game, self.choose(path[-1], game.to_act, legal, self.c_puct))

    @staticmethod
    def go(path: list[NetNode], game: Game, action: int) -> None:
        """Down the tree by ``action``: its child (made where new), a playout more passing it."""
        node = path[-1]
        child = node.children.get(action)
        if child is None:
            child = node.children[action] = NetNode(len(node.totals))
        child.pending += 1
        game.play_unchecked(action)
        path.append(child)

    @staticmethod
    def choose(node: NetNode, seat: int, legal: tuple[int, ...], c: float) -> int:
        """PUCT's move at ``node`` for ``seat``: its result so far (a virtual loss for each playout passing) plus
        the prior's share of the node's visits."""
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
        return best

    def draw(self, probs, legal: tuple[int, ...]) -> int:
        """A move of ``legal`` drawn with the network's probabilities ``probs``."""
        u = self.rng.random() * float(sum(probs[a] for a in legal))
        for a in legal:
            u -= float(probs[a])
            if u < 0:
                return a
        return legal[-1]

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
                 engine: str = "auto", stake: str | None = None):
        if playouts is None and seconds is None:
            seconds = ENDGAME_SECONDS
        self.policy = policy
        self.search = NetSearchBot(policy, seed, playouts=playouts, seconds=seconds, engine=engine, stake=stake)
        self.name = self.search.name.replace("search-net", "search-endgame", 1)

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.search.reset(seed)

    def act(self, view: SeatView) -> int:
        return self.search.act(view) if view.stock_size == 0 else self.policy.act(view)


def net_search_from_name(arg: str, policy, seed: int | None = None, kind: str = "net") -> "NetSearchBot | EndgameSearchBot":
    """``search:net[:<playouts>|<n>ms|<n>s][:fool|:placings][:python]`` -> the bot; ``arg`` is what follows
    ``search:net:`` (``fool`` / ``placings``: the stake a deal's end pays, where not the one the policy was trained
    for; ``python``: the search in the reference engine).  ``kind="model"``: ``search:model[...]``, the same search
    with the other seats modelled by the policy; ``kind="endgame"``: ``search:endgame[...]``, the same budgets for
    its endgame search."""
    parts = [p for p in arg.split(":") if p] if arg else []
    engine = parts.pop() if parts and parts[-1] == "python" else "auto"
    stake = parts.pop() if parts and parts[-1] in STAKES else None
    make = {"net": NetSearchBot, "model": functools.partial(NetSearchBot, opponents=True),
            "endgame": EndgameSearchBot}[kind]
    if len(parts) > 1:
        raise ValueError(f"search:{kind} takes one budget, e.g. search:{kind}:1000, search:{kind}:30ms, and then a "
                         f"stake ({', '.join(STAKES)}); got {arg!r}")
    if not parts:
        return make(policy, seed, engine=engine, stake=stake)
    budget = Budget.parse(parts[0], f"search:{kind}")
    return make(policy, seed, playouts=budget.playouts, seconds=budget.seconds, engine=engine, stake=stake)


__all__ = ["EndgameSearchBot", "NetSearchBot", "net_search_from_name"]
