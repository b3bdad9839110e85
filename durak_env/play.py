"""Play Durak against bots in a terminal.

Shows the table, your hand sorted as seed 004 does ("trumps last, then groups by
suit and runs low to high"), the trump card and its suit marker (kept after the
card is drawn, seed 000), the stock and every opponent's card count, and offers
only legal moves.  Keys as seed 001 lists them: a card (e.g. ``8D``) or its number
to play it, ``T`` to take, ``D`` for done, ``Q`` to quit.
"""

from __future__ import annotations

import random
from typing import Callable

from .engine.actions import decode_action
from .engine.cards import SUIT_SYMBOLS, SUITS, Card, cards_of
from .engine.game import Game
from .engine.render import sorted_hand
from .engine.rules import Rules


def describe(game: Game, seat: int) -> str:
    """The table as the human at ``seat`` sees it."""
    trump = game.trump
    lines = [
        f"Trump {SUIT_SYMBOLS[trump]} {SUITS[trump]}  (turned card {Card(game.trump_card)}"
        f"{', drawn' if not game.stock else ''})   Stock: {len(game.stock)}   "
        f"Discard: {game.discard.bit_count()}",
    ]
    for s in range(game.n):
        if s == seat:
            continue
        tags = []
        if game.out_mask >> s & 1:
            tags.append("out")
        if s == game.attacker and game.result is None:
            tags.append("attacking")
        if s == game.defender and game.result is None:
            tags.append("defending")
        known = " ".join(str(Card(c)) for c in cards_of(game.known[s]))
        lines.append(f"  player_{s}: {game.hand_size(s)} cards" + (f" ({', '.join(tags)})" if tags else "")
                     + (f"  seen picking up: {known}" if known else ""))
    pairs = [f"{Card(a)}<{Card(d) if d >= 0 else '?'}" for a, d in zip(game.attacks, game.defences)]
    lines.append("Table: " + ("  ".join(pairs) if pairs else "(empty)"))
    role = "you defend" if seat == game.defender and game.result is None else (
        "you attack" if seat == game.attacker and game.result is None else "")
    hand = " ".join(str(c) for c in sorted_hand(cards_of(game.hands[seat]), trump))
    lines.append(f"Your hand ({role or 'waiting'}): {hand or '(empty)'}")
    return "\n".join(lines)


def parse_choice(text: str, options: list[int], rules: Rules) -> int | None:
    """The option a typed answer names: its number, a card, T (take), D (done); None if it names none."""
    text = text.strip()
    if not text:
        return None
    if text.isdigit():
        k = int(text)
        return options[k - 1] if 1 <= k <= len(options) else None
    word = text.lower()
    decoded = [decode_action(a, rules) for a in options]
    if word in ("t", "take"):
        return next((a for a, d in zip(options, decoded) if d.kind == "take"), None)
    if word in ("d", "done", "pass"):
        return next((a for a, d in zip(options, decoded) if d.kind == "done"), None)
    parts = text.split()
    try:
        card = Card.parse(parts[-1])
    except ValueError:
        return None
    kind = parts[0].lower() if len(parts) == 2 else None
    matches = [a for a, d in zip(options, decoded) if d.card == card and (kind is None or d.kind == kind)]
    if len(matches) == 1:
        return matches[0]
    # A card that can both beat and transfer: beating is what a bare card means.
    return next((a for a, d in zip(options, decoded) if d.card == card and d.kind == "defend"), None)


def play_game(rules: Rules, opponents: list, seat: int, ask: Callable[[str], str], say: Callable[[str], None],
              seed: int | None = None) -> Game | None:
    """One deal; ``opponents`` maps seats to bots (None at the human's seat).  None if the human quits."""
    game = Game(rules, seed=seed)
    for bot in opponents:
        if bot is not None:
            bot.reset(seed)
    while not game.is_over:
        actor = game.to_act
        legal = game.legal_actions()
        if actor != seat or len(legal) == 1:
            action = legal[0] if len(legal) == 1 else opponents[actor].act(game.view(actor))
            who = f"player_{actor}" if actor != seat else "you"
            say(f"{who}: {decode_action(action, rules)}" + (" (the only move)" if actor == seat else ""))
            game.step(action)
            continue
        say("")
        say(describe(game, seat))
        options = sorted(legal, key=lambda a: _option_order(a, rules, game.trump))
        say("Moves: " + "  ".join(f"[{i + 1}] {decode_action(a, rules)}" for i, a in enumerate(options)))
        while True:
            try:
                answer = ask("> ")
            except EOFError:
                return None
            if answer.strip().lower() in ("q", "quit", "exit"):
                return None
            choice = parse_choice(answer, options, rules)
            if choice is not None:
                break
            say("Not a legal move here. Type a number, a card like 8D, T to take or D for done (Q quits).")
        game.step(choice)
    r = game.result
    say("")
    say(describe(game, seat))
    if r.fool is None:
        say("Nobody is the fool: a draw.")
    elif r.fool == seat:
        say("You are the durak, the fool.")
    else:
        say(f"You got away; player_{r.fool} is the durak.")
    return game


def _option_order(action: int, rules: Rules, trump: int) -> tuple:
    d = decode_action(action, rules)
    if d.card is None:
        return (1, d.kind)
    return (0, d.card.suit == trump, d.card.suit, d.card.rank, d.kind)


def play_terminal(rules: Rules, opponent: str, seed: int | None = None, seat: int = 0) -> int:
    from baselines import make_bot

    if not 0 <= seat < rules.num_players:
        raise ValueError(f"--seat must be from 0 to {rules.num_players - 1}")
    spec = {"search": "search:medium"}.get(opponent, opponent)
    bots = [None if s == seat else make_bot(spec, seed=None if seed is None else seed + s)
            for s in range(rules.num_players)]
    for bot in bots:
        made_for = getattr(bot, "rules", None)
        if made_for is not None and made_for != rules:
            raise ValueError(f"{opponent} was trained for other rules; pass --rules/--set to match them")
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    print(f"Durak, {rules.num_players} players, {rules.deck_size} cards; you are player_{seat} against {opponent}. "
          "Q quits.")
    play_game(rules, bots, seat, input, print, seed=seed)
    return 0
