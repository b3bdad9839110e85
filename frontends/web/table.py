"""One game at the browser's table: the deal, the person's seat, the bots at the others, and what the
page is shown.

Everything the page receives is built here from the person's ``SeatView`` (and, once a deal is over,
its public result): the other hands as counts with the cards each seat was seen picking up, the
discard as cards only where the rules show it.  The deal's seed would give every hidden card away
(the shuffle is public code), so the page gets a random deal number while the deal runs, drawn afresh for
each deal and unrelated to the seed, and the seed once it ends, with the game record.  Seeds are 64 random
bits, and travel as decimal strings (a JSON number loses digits past 2**53 in the browser).  The engine is
the one authority on the rules: the page is told which actions are legal and sends one of their indices back.
"""

from __future__ import annotations

import random
import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from durak_env.engine.actions import decode_action
from durak_env.engine.cards import CARDS, SUIT_SYMBOLS, SUITS, Card
from durak_env.engine.checks import is_integer
from durak_env.engine.game import Game
from durak_env.engine.loop import MOVE_LIMIT, play, seated
from durak_env.engine.match import Match
from durak_env.engine.record import make_record
from durak_env.engine.refusal import Refusal
from durak_env.engine.render import describe_bout, describe_result, doing, sorted_hand
from durak_env.engine.rules import Rules
from durak_env.engine.seeds import bot_seed
from durak_env.engine.view import SeatView


class Refused(Exception):
    """A request the table cannot take (an illegal move, a move out of turn): the HTTP status, one line, and a
    stable code a client can match (a move's ``Refusal``, or ``REQUEST_CODES``' for the status)."""

    def __init__(self, status: int, message: str, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code or REQUEST_CODES.get(status, "refused")


REQUEST_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 409: "conflict",
                 413: "too_large", 415: "not_json", 422: "invalid", 429: "too_many_games"}
"""The code of a refusal that is not about a move, by its HTTP status."""


WORDS = {"attack": "attack", "defend": "defend", "transfer": "transfer", "take": "pick up", "done": "pass"}
"""One word for each move, the page's buttons' words: "Pick up" and "Pass" (seed 001's take and Done)."""
CARD_NAME = re.compile(r"\b(10|[2-9JQKA])([CDHS])\b")


def move_text(action: int, rules: Rules) -> str:
    """A move as the page writes it: "defend 8♦", "pick up"."""
    move = decode_action(action, rules)
    return WORDS[move.kind] if move.card is None else f"{WORDS[move.kind]} {move.card.symbol()}"


def as_said_to(seat: int, reason: str) -> str:
    """The engine's reason for refusing a move of ``seat``, in the page's words: "you", and cards with their
    suit symbols ("player 0 is defending" -> "you are defending")."""
    reason = reason.replace(f"player {seat} is ", "you are ").replace(f"player {seat} does ", "you do ")
    return CARD_NAME.sub(lambda m: Card.parse(m.group(0)).symbol(), reason)


def card_json(card, trump: int) -> dict[str, Any]:
    """A card as the page draws it: its name ("8D"), its label with the suit symbol ("8♦") and its suit."""
    card = CARDS[card]
    return {"card": str(card), "label": card.symbol(), "suit": SUITS[card.suit],
            "trump": card.suit == trump}


@dataclass
class Table:
    """A deal (or a seed-003 match of deals) between a person at ``seat`` and ``bots`` at the other seats."""

    rules: Rules
    preset: str
    seat: int
    bots: list
    """One per seat, None at the person's."""
    bot_names: list[str]
    seed: int
    match: Match | None = None
    fresh: bool = True
    """The seed was drawn for this game, not named by the player (a deal dealt again): seed 004's Best counts it."""
    deal_names: int | None = None
    """Where the deal numbers come from: None, the system's source; else a seed of their own, named by a page
    that runs the engine itself, so that its journal deals again under the same numbers (never the deal's seed)."""
    game: Game = field(init=False)
    moves: list[tuple[int, int]] = field(default_factory=list)
    deal_number: str = field(init=False, default="")
    """Shown while the deal runs: random, drawn afresh for each deal."""
    log: list[tuple[str, str]] = field(default_factory=list)
    """The deal's move log as the page shows it, ``(text, kind)`` per line: every event told so far, the person's
    moves included, so that a reload or a second tab shows every line (seed 003: "Beaten cards go out of play and only
    their number is shown": where the rules hide the discard, the log forgets a bout's moves once it ends)."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._names = None if self.deal_names is None else random.Random(self.deal_names)
        self._deal()

    def _deal(self) -> None:
        """The next deal: the match's, or the one of ``seed``; the bots start afresh."""
        # names the deal, and tells nothing of its seed
        self.deal_number = secrets.token_hex(4) if self._names is None else f"{self._names.getrandbits(32):08x}"
        if self.match is not None:
            self.game = self.match.next_deal()
            self.seed = self.match.seeds[-1]
        else:
            self.game = Game(self.rules, seed=self.seed)
        self.moves = []
        self.log = []
        self._told_bout, self._ended = 0, False
        for s, bot in enumerate(self.bots):
            if bot is not None:
                bot.reset(bot_seed(self.seed, s))

    # ----- playing ------------------------------------------------------------------------

    def start(self) -> list[dict]:
        """The bots' moves (and forced moves) up to the person's first decision."""
        return self._play_bots()

    def move(self, action: Any) -> list[dict]:
        """Play the person's move, then the bots' up to the person's next decision; returns the events."""
        game = self.game
        if game.is_over:
            raise Refused(409, "the deal is over: start a new game" + (" or the next deal" if self.match else ""),
                          Refusal.GAME_OVER)
        if game.to_act != self.seat:  # e.g. another tab moved
            raise Refused(409, f"it is {self.name(game.to_act)}'s turn, not yours", Refusal.NOT_YOUR_TURN)
        if not is_integer(action):
            raise Refused(422, f"action must be an integer index, got {action!r}", Refusal.NOT_AN_ACTION)
        refused = game.refusal(action)
        if refused is not None:
            code, reason = refused
            raise Refused(409, f"that move is not legal: {as_said_to(self.seat, reason)}", code)
        self.moves.append((self.seat, action))
        game.play_unchecked(action)
        events: list[dict] = []
        self._tell(events, {"kind": "mine", "seat": self.seat, "text": f"you: {move_text(action, self.rules)}"})
        self._after(events)
        return events + self._play_bots()

    def _play_bots(self) -> list[dict]:
        """The bots' moves and the forced moves, each an event with the position after it, up to the person's
        next real decision or the end of the deal."""
        events: list[dict] = []
        game, seat = self.game, self.seat

        def told(mover: int, action: int, forced: bool) -> None:
            self.moves.append((mover, action))
            text = f"{self.name(mover)}: {move_text(action, self.rules)}" + (" (the only move)" if forced else "")
            self._tell(events, {"kind": "move", "seat": mover, "text": text})
            self._after(events)

        play(game, seated([None if s == seat else bot.act for s, bot in enumerate(self.bots)]),
             until=lambda g: g.to_act == seat, on_move=told, limit=max(0, MOVE_LIMIT - len(self.moves)))
        if not game.is_over and len(self.moves) >= MOVE_LIMIT:
            self._tell(events, {"kind": "cut", "text": f"The deal was cut off after {MOVE_LIMIT:,} moves."})
        return events

    def _tell(self, events: list, event: dict, clears_log: bool = False) -> None:
        """Add ``event`` (with the position after it) to the answer and its line to the log, after forgetting the
        log's lines where ``clears_log`` (the page then forgets the lines it shows, told by the event)."""
        if clears_log:
            event["clears_log"] = True
            self.log.clear()
        self.log.append((event["text"], event["kind"]))
        event["state"] = self.state()
        events.append(event)

    def _after(self, events: list) -> None:
        """After a move: the end of a bout, and the end of the deal, each told once."""
        game = self.game
        bout = game.last_bout
        if bout is not None and bout.bout > self._told_bout:
            self._told_bout = bout.bout
            self._tell(events, {"kind": "bout", "text": describe_bout(game.view(self.seat).last_bout, self.names(),
                                                                       Card.symbol)},
                       clears_log=not self.rules.open_discard)
        if game.is_over and not self._ended:
            self._ended = True
            if self.match is not None:
                self.match.record(game)
            self._tell(events, {"kind": "end", "text": describe_result(game.result, self.names())})

    def next_deal(self) -> list[dict]:
        """The next deal of the match, played up to the person's first decision."""
        if self.match is None:
            raise Refused(409, "this game is a single deal, not a match")
        if not self.game.is_over:
            raise Refused(409, "the current deal is not over")
        if self.match.over:
            raise Refused(409, "the match is over")
        self._deal()
        return self.start()

    # ----- what the page is shown ---------------------------------------------------------

    def name(self, seat: int) -> str:
        return "you" if seat == self.seat else f"{self.bot_names[seat]} (player {seat + 1})"

    def names(self) -> list[str]:
        return [self.name(s) for s in range(self.rules.num_players)]

    def state(self) -> dict[str, Any]:
        """The table as the person's seat sees it: built from its view, nothing else."""
        game = self.game
        view = game.view(self.seat)
        return view_state(view, self)

    def hint(self, bot, name: str) -> dict[str, Any]:
        """A trained bot's move probabilities and value estimate for the person's position, from its view;
        ``name`` says which bot it is in the page's words."""
        view = self.game.view(self.seat)
        if not view.legal_actions:
            raise Refused(409, "it is not your turn: there is nothing to hint")
        probs = bot.probabilities(view)
        moves = sorted(({"action": a, "text": move_text(a, self.rules), "p": round(float(probs[a]), 4)}
                        for a in view.legal_actions), key=lambda m: -m["p"])
        return {"moves": moves, "value": bot.value(view), "bot": name}

    def record(self) -> dict[str, Any]:
        if not self.game.is_over:
            raise Refused(409, "the record comes when the deal ends: its seed would show the hidden cards")
        return make_record(self.rules, self.seed, self.game.first_seat, self.moves, self.names()).to_dict()


def view_state(view: SeatView, table: Table) -> dict[str, Any]:
    rules, me, trump = view.rules, view.seat, view.trump_suit
    legal = view.legal_actions
    by_card: dict[str, list[dict]] = {}
    take = done = None
    kinds = set()
    for action in legal:
        move = decode_action(action, rules)
        kinds.add(move.kind)
        if move.card is None:
            take, done = (action, done) if move.kind == "take" else (take, action)
        else:
            by_card.setdefault(str(move.card), []).append({"kind": move.kind, "action": action})
    hand = []
    for card in sorted_hand(view.hand, trump):
        entry = card_json(card, trump)
        entry["actions"] = sorted(by_card.get(str(card), []), key=lambda a: ("defend", "attack", "transfer").index(
            a["kind"]))
        hand.append(entry)
    # Who a transfer would pass the attack to (the next seat in play after the defender: public).
    transfer_to = table.name(table.game.next_in(view.defender)) if "transfer" in kinds else None
    seats = []
    result = table.game.result if view.is_over else None
    for s, size in enumerate(view.hand_sizes):
        known = view.known_masks[s]
        picked = [card_json(c, trump) for c in sorted_hand([c for c in view.known[s] if c != view.trump_card], trump)]
        seats.append({"seat": s, "name": table.name(s), "cards": size, "role": doing(view, s),
                      "to_act": s == view.to_act, "out": s in view.out, "picked_up": picked if s != me else [],
                      "drew_trump_card": bool(known >> view.trump_card & 1) and s != me,
                      "place": result.placings[s] if result else None, "points": result.points[s] if result else None})
    state: dict[str, Any] = {
        "preset": table.preset, "rules": rules.to_dict(), "players": rules.num_players, "you": me,
        "opponents": [name for s, name in enumerate(table.bot_names) if s != me], "in_match": table.match is not None,
        "deal": table.deal_number, "bout": view.bouts + 1, "hand": hand, "seats": seats,
        "table": [{"attack": card_json(a, trump), "defence": None if d is None else card_json(d, trump)}
                  for a, d in view.table],
        "trump": {"suit": SUITS[trump], "symbol": SUIT_SYMBOLS[trump], "card": card_json(view.trump_card, trump),
                  "drawn": view.stock_size == 0},
        "stock": view.stock_size,
        "discard": {"count": view.discard_count,
                    "cards": None if view.discard_mask is None else
                    [card_json(c, trump) for c in sorted_hand(list(view.discard), trump)]},
        "your_turn": bool(legal), "take": take, "done": done, "taking": view.taking,
        "answer": view.to_answer if "defend" in kinds else None, "transfer_to": transfer_to,
        "points_shown": table.match is not None or table.preset == "tournament", "best": best_figure_key(table),
        "status": status(view, table, transfer_to), "over": view.is_over,
    }
    if view.is_over:
        r = result
        state["result"] = {"fool": r.fool, "placings": list(r.placings), "points": list(r.points), "capped": r.capped,
                           "text": describe_result(r, table.names()), "hand_sizes": list(view.hand_sizes)}
        state["seed"] = str(table.seed)
    if table.match is not None:
        m = table.match
        state["match"] = {"deals": rules.match_deals, "played": len(m.results), "totals": list(m.totals),
                          "over": m.over, "winners": m.winners if m.over else None,
                          "text": match_text(m, table.names()) if m.over else None}
    return state


def status(view: SeatView, table: Table, transfer_to: str | None) -> str:
    """The status line; ``transfer_to`` names who a transfer would pass the attack to, where one is legal."""
    if view.is_over:
        return "The deal is over."
    role = doing(view, view.seat)
    if view.legal_actions:
        text = {"leading": "Your lead: play any card.", "may throw in": "You may throw in a card of a rank on the "
                "table, or Pass.", "defending": "Beat the first unbeaten card, or Pick up."}.get(role, "Your move.")
        if transfer_to is not None:
            text += f" Or Transfer the attack to {transfer_to} with a card of its rank."
        return text
    return f"{table.name(view.to_act).capitalize()} to move."


def match_text(match: Match, names: list[str]) -> str:
    """Who won the match and the points: "Match over: you win with 10 points (you 10 · heuristic (player 2) 6)"."""
    winners = match.winners
    who = " and ".join(names[w] for w in winners)
    alone = len(winners) == 1
    verb = ("win" if names[winners[0]] == "you" else "wins") if alone else "share the win"
    totals = " · ".join(f"{names[s]} {p}" for s, p in enumerate(match.totals))
    return f"Match over: {who} {verb} with {match.totals[winners[0]]} points ({totals})."


SEED004 = Rules.preset("podkidnoy")


def best_figure_key(table: Table) -> dict[str, str] | None:
    """Where seed 004's Best figure lives: under its own key for the game seed 004 describes (two players, its
    rules, against the computer), under a key of the rule set's own elsewhere in two-player deals; None at larger
    tables, where the figure (the cards left in the loser's or the opponent's hand) does not apply.  ``counts``:
    whether this deal may set the figure (not where the player named the seed: its cards were seen)."""
    if table.rules.num_players != 2:
        return None
    key, label = (("orchidlines-best-durak", "Best") if table.rules == SEED004
                  else (f"durak_env.best.{table.preset}", f"Best ({table.preset})"))
    return {"key": key, "label": label, "counts": table.fresh}


def new_seed() -> int:
    """64 random bits from the system's source: nothing shown while the deal runs narrows them down."""
    return secrets.randbits(64)
