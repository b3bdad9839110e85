"""Play Durak against bots in a terminal.

The table is drawn from the human seat's view (``engine.render``): the hand sorted as
seed 004 does ("trumps last, then groups by suit and runs low to high"), the trump
card and its suit marker (kept after the card is drawn, seed 000), the stock, the
discard (its cards where the rules show them), every other seat's card count with
the cards it was seen picking up, and what each seat is doing.  Every move is told,
and every bout's end: beaten off or taken, and who drew how many cards.  Keys as
seed 001 lists them: a card (e.g. ``8D``) or its number to play it, ``T`` to take,
``D`` for done, ``Q`` to quit.  An illegal entry is answered with the engine's reason.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable

from durak_env.engine.actions import Action, decode_action, encode_action
from durak_env.engine.cards import Card
from durak_env.engine.game import Game
from durak_env.engine.loop import MOVE_LIMIT, play
from durak_env.engine.record import make_record
from durak_env.engine.render import describe_bout, describe_result, render
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import bot_seed
from durak_env.engine.view import SeatView


class Quit(Exception):
    """The player typed Q, or the input ended."""


def read_answer(text: str, options: list[int], view: SeatView) -> tuple[int | None, str]:
    """The action a typed answer names, legal or not, or None with what is wrong with the entry.

    A number picks from ``options``; ``T`` takes, ``D`` is done; a card (``8D``) plays it as the seat's
    role asks (beat the card to answer when defending, else attack or throw in); ``transfer 8D`` and
    the other kinds may be written out."""
    rules = view.rules
    text = text.strip()
    if not text:
        return None, "nothing was typed"
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(options):
            return options[k - 1], ""
        return None, f"there is no move number {k}"
    word = text.lower()
    if word in ("t", "take"):
        return encode_action("take", rules), ""
    if word in ("d", "done", "pass"):
        return encode_action("done", rules), ""
    parts = text.split()
    try:
        if len(parts) == 2:
            return encode_action(Action.parse(text), rules), ""
        card = Card.parse(parts[-1])
    except ValueError as err:
        return None, str(err)
    if len(parts) != 1:
        return None, f"{text!r} is not a move"
    kinds = [decode_action(a, rules).kind for a in options if decode_action(a, rules).card == card]
    if kinds:  # a card that both beats and transfers: beating is what a bare card means
        kind = "defend" if "defend" in kinds else kinds[0]
    else:
        kind = "defend" if encode_action("take", rules) in options else "attack"
    try:
        return encode_action(Action(kind, card), rules), ""
    except ValueError as err:
        return None, str(err)


def move_order(action: int, rules: Rules, trump: int) -> tuple:
    """Moves listed as the hand is: card moves by seed 004's order, take and done last."""
    d = decode_action(action, rules)
    if d.card is None:
        return (1, d.kind)
    return (0, d.card.suit == trump, d.card.suit, d.card.rank, d.kind)


def play_game(rules: Rules, opponents: list, seat: int, ask: Callable[[str], str], say: Callable[[str], None],
              seed: int | None = None, moves: list | None = None) -> Game | None:
    """One deal; ``opponents`` maps seats to bots (None at the human's seat).  None if the human quits.
    Every (seat, action) played is appended to ``moves`` when given (for ``--save``)."""
    game = Game(rules, seed=seed)
    names = [f"player_{s}" for s in range(rules.num_players)]
    names[seat] = "you"
    for s, bot in enumerate(opponents):
        if bot is not None:
            bot.reset(None if seed is None else bot_seed(seed, s))
    played = moves if moves is not None else []
    bouts_told = [0]

    def human(g: Game) -> int:
        view = g.view(seat)
        say("")
        say(render(view, names))
        options = sorted(view.legal_actions, key=lambda a: move_order(a, rules, view.trump_suit))
        say("Moves: " + "  ".join(f"[{i + 1}] {decode_action(a, rules)}" for i, a in enumerate(options)))
        while True:
            try:
                answer = ask("> ")
            except EOFError:
                raise Quit from None
            if answer.strip().lower() in ("q", "quit", "exit"):
                raise Quit
            action, problem = read_answer(answer, options, view)
            if action is not None and action in options:
                return action
            if action is not None:
                problem = f"{decode_action(action, rules)} is not legal: {g.why_not(action)}"
            say(f"{problem}. Type a number, a card like 8D, T to take or D for done (Q quits).")

    def told(mover: int, action: int, forced: bool) -> None:
        played.append((mover, action))
        note = " (the only move)" if forced and mover == seat else ""
        say(f"{names[mover]}: {decode_action(action, rules)}{note}")
        if game.last_bout is not None and game.last_bout.bout != bouts_told[0]:
            bouts_told[0] = game.last_bout.bout
            say(describe_bout(game.view(seat).last_bout, names))

    def choose(g: Game) -> int:
        return human(g) if g.to_act == seat else opponents[g.to_act].act(g.view(g.to_act))

    try:
        play(game, choose, on_move=told)
    except Quit:
        return None
    say("")
    say(render(game.view(seat), names))
    if game.result is None:
        say(f"The deal was cut off after {MOVE_LIMIT:,} moves.")
    else:
        line = describe_result(game.result, names)
        say(("Durak! " if game.result.fool == seat else "") + line[0].upper() + line[1:])
    return game


def play_terminal(rules: Rules, bots: list, bot_names: list[str], seed: int | None = None, seat: int = 0,
                  preset: str | None = None, save: str | None = None) -> int:
    """Terminal play: ``bots[s]`` (named ``bot_names[s]``) at every seat but ``seat``.  The deal's seed is
    told at the end (told earlier, it would give the hidden cards away); ``save`` writes the game record."""
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    against = ", ".join(dict.fromkeys(name for s, name in enumerate(bot_names) if s != seat))
    print(f"Durak · {preset or rules.describe()} · {rules.num_players} players · {rules.deck_size} cards · "
          f"you are player_{seat} against {against}.  Q quits.")
    moves: list = []
    game = play_game(rules, bots, seat, input, print, seed=seed, moves=moves)
    print(f"Deal seed {seed}: `durak play --seed {seed}` with the same rules deals it again.")
    if save:
        players = ["you" if s == seat else bot_names[s] for s in range(rules.num_players)]
        record = make_record(rules, seed, 0, moves, players)
        Path(save).write_text(json.dumps(record.to_dict(), indent=1) + "\n")
        print(f"game record written to {save}" + ("" if game is not None and game.is_over else " (unfinished)"))
    return 0
