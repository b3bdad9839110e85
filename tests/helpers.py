"""Test fixtures written in card names, never raw ids (STYLE.md, example 1)."""

from __future__ import annotations

import random

from durak_env import Card, Game, Rules, encode_action
from durak_env.engine.cards import cards_of, deck, mask_of


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def hand(text: str) -> int:
    return mask_of(cards(text))


def names(mask_or_cards) -> str:
    items = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else mask_or_cards
    return " ".join(sorted((str(Card(c)) for c in items), key=lambda s: Card.parse(s)))


def position(rules: Rules, hands: list[str], trump_card: str, table: list[tuple[str, str | None]] = (),
             stock: int | str | None = None, attacker: int = 0, defender: int = 1, **extra) -> Game:
    """A game at a hand-built position.  The stock is ``stock`` cards not named elsewhere (the trump card
    drawn last), or the cards written in ``stock`` in the order they will be drawn; the rest is discarded."""
    named = [c for h in hands for c in cards(h)] + [Card.parse(c) for pair in table for c in pair if c]
    trump = Card.parse(trump_card)
    if isinstance(stock, str):
        pile = cards(stock)[::-1]  # kept with the next card to draw at the end
        if pile[0] != trump:
            raise ValueError("position(): the trump card is drawn last")
        rest = [c for c in deck(rules.deck_size) if c not in named and c not in pile]
        stock = len(pile)
    else:
        rest = [c for c in deck(rules.deck_size) if c not in named and c != trump]
        trump_free = trump not in named
        if stock is None:
            stock = len(rest) + trump_free
        pile = ([trump] if trump_free and stock else []) + rest[: max(0, stock - trump_free)]
        rest += [trump] if trump_free else []
    if len(pile) != stock:
        raise ValueError("position(): not enough free cards for that stock")
    discard = [c for c in rest if c not in pile]
    snap = {
        "rules": rules.to_dict(), "trump_suit": "CDHS"[trump.suit], "trump_card": str(trump),
        "stock": [str(Card(c)) for c in reversed(pile)], "hands": [h.split() for h in hands],
        "discard": [str(Card(c)) for c in discard], "table": [list(p) for p in table],
        "attacker": attacker, "defender": defender, "out": [],
    }
    snap.update(extra)
    for seat in range(rules.num_players):
        try:
            return Game.from_dict({**snap, "to_act": seat})
        except ValueError as err:
            if "waits on seat" not in str(err):
                raise
    raise AssertionError("unreachable")


def act(game: Game, text: str) -> None:
    game.step(encode_action(text, game.rules))


def legal(game: Game) -> set[str]:
    from durak_env import decode_action

    return {str(decode_action(a, game.rules)) for a in game.legal_actions()}


def random_game(rules: Rules, seed: int, check=None) -> Game:
    """Play a game with seeded random legal moves, calling ``check(game)`` after every step."""
    game = Game(rules, seed)
    rng = random.Random(seed)
    if check:
        check(game)
    while not game.is_over:
        game.step(rng.choice(game.legal_actions()))
        if check:
            check(game)
    return game


def twins(rules: Rules, seeds, longest: int = 60):
    """Positions partway into seeded random deals where the seat to act has a choice, each with a twin that the
    seat cannot tell from it (every card it cannot see dealt again): ``(game, twin, seat)``.  A bot that reads
    only its view must choose the same move in both."""
    from test_information import shuffle_hidden

    for seed in seeds:
        game = Game(rules, seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(5, longest)):
            if game.is_over:
                break
            game.step(rng.choice(game.legal_actions()))
        if game.is_over or len(game.legal_actions()) < 2:
            continue
        seat = game.to_act
        yield game, Game.from_dict(shuffle_hidden(game.to_dict(), seat, rng)), seat


def opening_batch(encoder, count: int):
    """The observations and int8 masks of the first decision of deals 0 .. count - 1, as a bot file reads them."""
    import numpy as np

    obs = np.zeros((count, encoder.size), dtype=np.float32)
    mask = np.zeros((count, encoder.num_actions), dtype=np.int8)
    for i in range(count):
        game = Game(encoder.rules, seed=i)
        encoder.encode_game(game, game.to_act, obs[i])
        mask[i, list(game.legal_actions())] = 1
    return obs, mask


def report_sigint(conn, tag):
    """A worker for tests/test_workers.py: answers each message with its tag and whether Ctrl-C can reach it
    (neither ignored nor held back), until ``None``."""
    import signal

    while True:
        message = conn.recv()
        if message is None:
            return
        held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
        conn.send((tag, message, held or signal.getsignal(signal.SIGINT) == signal.SIG_IGN))


def sigint_at_its_default():
    """``preexec_fn`` for a command a test stops with Ctrl-C: SIGINT at its default, as at a terminal.  A shell
    starts a background job with SIGINT ignored and children inherit that, so without it such a test would hold
    only when the suite was started in the foreground."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


CTRL_C_STATUSES = (130, -2)
"""How a command stopped by Ctrl-C may end: it returns 130 (128 + SIGINT), or a SIGINT that reaches it once it has
said so and cleaned up ends it by the signal itself, which a shell reports as the same 130 (CI saw a training run
end so after its "stopped by the user" line).  A traceback or status 1 is neither."""


def seeded_worker(cfg):
    """A rollout worker for ``cfg`` (seed 3) holding a policy of fresh weights (torch seed 0)."""
    import torch

    from training.policy import PolicyNet
    from training.rollout import RolloutWorker

    worker = RolloutWorker(cfg, cfg.make_rules(), seed=3)
    torch.manual_seed(0)
    worker.set_weights(PolicyNet(worker.obs_size, worker.num_actions, cfg.hidden_sizes).state_dict(), [], 0)
    return worker


def positions_met(rules: Rules, keep, count: int, seed: int, share: float = 0.3, choose=None) -> list[Game]:
    """``count`` positions with a choice of moves that ``keep(game)`` accepts, each from a deal of its own played by
    ``choose(rng, legal)`` (at random by default; a share ``share`` of the accepted positions met is taken, so they
    come from all through the deals)."""
    choose = choose or (lambda rng, legal: rng.choice(legal))
    rng = random.Random(seed)
    found: list[Game] = []
    while len(found) < count:
        game = Game(rules, seed=rng.getrandbits(32))
        while game.result is None:
            legal = game.legal_actions()
            if len(legal) > 1 and keep(game) and rng.random() < share:
                found.append(game.clone())
                break
            game.play_unchecked(choose(rng, legal))
    return found
