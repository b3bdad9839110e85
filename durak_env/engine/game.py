"""The Durak engine: one deal, from the shuffle to the fool.

Pure Python, no third-party imports.  Hands, the discard and the table's ranks
are bitmasks (see cards.py); actions are indices of the rules' flat layout
(see actions.py).  Whose move it is follows from the bout (``_find_actor``),
so at every moment exactly one seat is asked, and the legal moves of a
position are computed once and reused by the mask and by ``step``.

The move protocol (docs/rules.md has it with a worked example):

* A bout opens with the lead attacker's card; nobody can pass on an empty table.
* The throwers (the lead attacker first, then the others the rules allow, clockwise)
  may add cards of a rank on the table while the cap allows.  When
  ``throw_in_before_beaten`` is off they may only add once every card is beaten.
* The defender answers once no thrower wants to add: beat the earliest unbeaten
  card, transfer (perevodnoy) or take.
* A new card on the table, or covering the last open attack, lets anyone who
  passed throw in again (seed 003).
* The bout ends when every card is beaten and every thrower has passed, or when
  the cap leaves no room; a take ends it at once, or after the throwers have
  added what they like (``throw_in_after_take``).
"""

from __future__ import annotations

import operator
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Layout, decode_action, layout_for
from .cards import CARDS, RANK_MASK_OF, SUIT_MASKS, Card, cards_of, deck, suit_of
from .checks import is_integer
from .legality import legal_moves, refusal_of
from .refusal import Refusal
from .rules import MAX_PLAYERS, Rules
from .snapshot import FACTS, load_snapshot, write_snapshot
from .view import BoutEnd, SeatView

_NEXT_IN = tuple(
    tuple(tuple(next(((seat + i) % n for i in range(1, n + 1) if not out >> (seat + i) % n & 1), seat)
                for seat in range(n)) for out in range(1 << n)) for n in range(MAX_PLAYERS + 1))
"""_NEXT_IN[players][out mask][seat]: the next seat clockwise that has not gone out (the seat itself if all are)."""



class IllegalAction(ValueError):
    """An action the position does not allow, with why (``code``, a ``Refusal``, and the message), what was
    tried and what is legal.  The game is left unchanged."""

    def __init__(self, message: str, action: Any = None, legal: tuple[int, ...] = (),
                 code: Refusal = Refusal.NOT_LEGAL):
        super().__init__(message)
        self.action = action
        self.legal = legal
        self.code = code

    def __reduce__(self) -> tuple:
        """Pickled with its code (a worker's refusal crosses processes whole)."""
        return IllegalAction, (str(self), self.action, self.legal, self.code)


@dataclass(frozen=True)
class Result:
    """How a deal ended.

    ``placings[s]`` is seat s's place (1 = first out; ties share a place, seed 003),
    ``points[s]`` is seed 003's score (players minus place; the fool scores nothing),
    ``fool`` is the seat left holding cards or None for a draw, ``drawn`` the seats
    in the final tie of a drawn deal, ``capped`` whether the bout cap ended it.
    """

    placings: tuple[int, ...]
    points: tuple[int, ...]
    fool: int | None
    drawn: tuple[int, ...]
    capped: bool

    def __reduce__(self) -> tuple:
        """Pickled (and copied) through the constructor."""
        return Result, (self.placings, self.points, self.fool, self.drawn, self.capped)

    def rewards(self) -> tuple[float, ...]:
        """Placing points scaled to [-1, 1]: first out +1, the fool -1; seats in a final draw get 0.

        With two players the fool gets -1, the other +1, and a draw 0 for both.
        """
        n = len(self.points)
        return tuple(0.0 if s in self.drawn else 2.0 * self.points[s] / (n - 1) - 1.0 for s in range(n))


STAKES = ("placings", "fool")
"""What a finished deal may pay each seat: ``placings``, the environment's reward (``Result.rewards``); ``fool``,
the whole stake on the fool (``staked``)."""


def staked(rewards: Sequence[float], stake: str) -> list[float]:
    """A finished deal's ``rewards`` (``Result.rewards``) as ``stake`` pays them.  ``fool``: -1 the fool and +1/(n-1)
    every other seat, all 0 in a draw, which at more than two seats puts the whole stake on not being the fool, as
    the game itself does (read off the placings' rewards, where the fool alone has -1).  The same at two seats."""
    if stake == "placings":
        return list(rewards)
    if stake != "fool":
        raise ValueError(f"a stake is one of {', '.join(STAKES)}, got {stake!r}")
    n = len(rewards)
    if -1.0 not in rewards:
        return [0.0] * n
    return [-1.0 if r == -1.0 else 1.0 / (n - 1) for r in rewards]


DERIVED = ("n", "layout", "_before_beaten", "_after_take", "_bout_start", "trump", "out_mask", "open_count",
                   "table_ranks", "cap", "limit", "throwers", "to_act", "result")
"""What a game holds that ``Game._derive`` works out from its rules and facts (and the legal moves, cached
on demand)."""


class Game:
    """One deal of Durak.  ``Game(rules, seed)`` shuffles and deals; ``step(action)`` plays.

    A game holds its rules, its stored facts (``FACTS``, snapshot.py: the cards' places, the bout's seats and
    state, the seats out) and what is derived from them (``_derive``, the one definition of each: whose move
    it is, who may throw in, the cap, the table's ranks...).  A snapshot is the facts; a clone copies them and
    derives the rest; a move changes the facts and keeps the derived ones in step where that is cheaper than
    deriving them again, and ``check_invariants`` compares the two after every move the tests play.
    """

    # Slotted: a game is copied for every determinization of a search.  The public methods that take a caller's
    # values (numpy integers, a tuple of cards) say ``Any`` and check them themselves.
    rules: Rules
    # The stored facts, as snapshot.FACTS names them.
    trump_card: int
    stock: list[int]
    hands: list[int]
    discard: int
    known: list[int]
    out_groups: list[tuple[int, ...]]
    attacks: list[int]
    defences: list[int]
    attacker: int
    defender: int
    opener: int
    passed: int
    taking: bool
    bouts: int
    first_seat: int
    # Derived from the rules and the facts by ``_derive`` (the constants of the deal first).
    n: int
    layout: Layout
    _before_beaten: bool
    _after_take: bool
    _bout_start: bool
    trump: int
    out_mask: int
    open_count: int
    table_ranks: int
    cap: int
    limit: int
    throwers: tuple[int, ...]
    to_act: int
    result: Result | None
    _legal: tuple[int, ...] | None
    # The last bout's end: an event, what the seats saw happen, which a snapshot does not keep.
    last_bout: BoutEnd | None

    __slots__ = ("rules", *FACTS, *DERIVED, "_legal", "last_bout")

    def __init__(self, rules: Rules | None = None, seed: Any = None, first_seat: Any = 0, *, _empty: bool = False):
        if _empty:  # for the constructors below, which fill the game themselves
            return
        rules = rules or Rules()
        _check_seat(first_seat, rules.num_players, "first_seat")
        rng = random.Random(operator.index(seed) if is_integer(seed) else seed)  # numpy's integers too
        while True:
            cards = deck(rules.deck_size)
            rng.shuffle(cards)  # the native engine draws the same numbers (native/durak.hpp, PyRandom)
            if self._deal(rules, cards, first_seat):
                return
            # Seed 002: "If nobody holds a trump, the cards are dealt again."

    @classmethod
    def from_deck(cls, rules: Rules, cards: Sequence[int], first_seat: Any = 0) -> "Game":
        """Deal from a given shuffled deck: ``cards[0]`` is the trump card and draws come off the back (seed 004)."""
        if sorted(cards) != deck(rules.deck_size):
            raise ValueError(f"from_deck needs each card of the {rules.deck_size}-card deck exactly once")
        game = cls(_empty=True)
        if not game._deal(rules, list(cards), first_seat):
            raise ValueError("nobody was dealt a trump and these rules redeal; no game from this deck")
        return game

    @classmethod
    def assemble(cls, rules: Rules, **facts: Any) -> "Game":
        """A game from its rules and its stored facts, each named as in ``FACTS`` (``stock`` with the next card
        drawn last, ``defences`` -1 where unbeaten, ``hands``, ``known``, ``discard`` and ``passed`` as masks).
        Everything else is derived (``_derive``).  The facts are not checked (snapshot.py validates them first);
        a missing or unknown name, or a position that waits on nobody, raises ValueError."""
        if facts.keys() != FACTS.keys():
            raise ValueError(f"a game's facts are {', '.join(FACTS)}; got {', '.join(facts)}")
        g = cls(_empty=True)
        g.rules = rules
        for name, value in facts.items():
            setattr(g, name, [tuple(group) for group in value] if name == "out_groups" else value)
        g._derive()
        g.last_bout = None
        return g

    def _derive(self) -> None:
        """Everything a game holds besides its rules and facts, from them: the one definition of each.  The
        bout's part is ``_derive_bout``; a position between bouts (every card beaten, everyone passed) waits
        on nobody and raises ValueError."""
        rules = self.rules
        self.n, self.layout = rules.num_players, layout_for(rules.deck_size)
        self._before_beaten = rules.throw_in_before_beaten
        self._after_take = rules.throw_in_after_take
        self._bout_start = rules.defender_limit == "bout_start"
        self.trump = suit_of(self.trump_card)
        out = 0
        for group in self.out_groups:
            for seat in group:
                out |= 1 << seat
        self.out_mask = out
        open_count = ranks = 0
        for c in self.attacks:
            ranks |= RANK_MASK_OF[c]
        for c in self.defences:
            if c < 0:
                open_count += 1
            else:
                ranks |= RANK_MASK_OF[c]
        self.open_count, self.table_ranks = open_count, ranks
        self._legal, self.result = None, None  # whose move, the throwers: below (_finish or the bout)
        remaining = [s for s in range(self.n) if not out >> s & 1]
        if len(remaining) <= 1:
            self._finish(remaining, capped=False)
        elif rules.max_bouts is not None and self.bouts >= rules.max_bouts:
            self._finish(remaining, capped=True)
        else:
            # Only a deal that goes on has a bout: a finished one can name an attacker who went out, and the
            # clockwise walk from the defender back to that attacker would never end.
            self._derive_bout()
            actor = self._find_actor()
            if actor is None:
                raise ValueError("the position is between bouts (every card beaten and everyone passed)")
            self.to_act = actor

    def _derive_bout(self) -> None:
        """What the bout's seats, the discard and the bout count give, fixed until the bout ends or a transfer
        moves it on: the cap, the defender's limit (seed 000: the cards it held when the bout began, which is
        its hand and the cards it has beaten with) and who may throw in."""
        self.cap = self.rules.attack_cap(self.discard.bit_count(), self.bouts)
        self.limit = self.hands[self.defender].bit_count() + len(self.attacks) - self.open_count
        self.throwers = self._compute_throwers()

    def _deal(self, rules: Rules, cards: list[int], first_seat: int) -> bool:
        """Seed 004: "The trump card sits at the front of the shuffled pack, and every draw comes off the back."
        Cards go out one at a time, starting with ``first_seat``.  Returns False when the rules want a redeal."""
        n = rules.num_players
        self.rules = rules
        self.trump_card = cards[0]
        self.hands = [0] * n
        for _ in range(rules.deal_size):
            for i in range(n):
                self.hands[(first_seat + i) % n] |= 1 << cards.pop()
        self.stock = cards
        self.discard = self.passed = self.bouts = 0
        self.known = [0] * n
        self.out_groups, self.attacks, self.defences = [], [], []
        self.first_seat = first_seat
        self.taking = False
        self.last_bout = None
        leader = self._lowest_trump_holder()
        if leader is None:
            lead = rules.no_trump_lead
            if lead == "redeal":
                return False
            # "first_seat" (000) and "after_dealer" (003) are one seat: the first seat is the one after the dealer.
            leader = 0 if lead == "seat_zero" else first_seat
        self.attacker = self.opener = leader
        self.defender = _NEXT_IN[n][0][leader]
        self._derive()
        return True

    def _lowest_trump_holder(self) -> int | None:
        """Seed 000: "The player holding the lowest trump leads the first attack." """
        best, best_seat = 99, None
        trump = suit_of(self.trump_card)
        for seat, hand in enumerate(self.hands):
            trumps = hand & SUIT_MASKS[trump]
            if trumps:
                low = (trumps & -trumps).bit_length() - 1
                if low < best:
                    best, best_seat = low, seat
        return best_seat

    # ----- reading the position -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def hand(self, seat: Any) -> list[Card]:
        return [CARDS[c] for c in cards_of(self.hands[seat])]

    def hand_size(self, seat: Any) -> int:
        return self.hands[seat].bit_count()

    def table_mask(self) -> int:
        """The cards on the table, attacks and beating cards."""
        mask = 0
        for c in self.attacks:
            mask |= 1 << c
        for c in self.defences:
            if c >= 0:
                mask |= 1 << c
        return mask

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        return [(CARDS[a], None if d < 0 else CARDS[d]) for a, d in zip(self.attacks, self.defences)]

    @property
    def out(self) -> list[int]:
        return [s for group in self.out_groups for s in group]

    def in_play(self, seat: Any) -> bool:
        return not self.out_mask >> seat & 1

    def next_in(self, seat: Any) -> int:
        """The next seat clockwise (to the left) that has not gone out (``seat`` any integer, numpy's too)."""
        return self._next(operator.index(seat))

    def _next(self, seat: int) -> int:
        return _NEXT_IN[self.n][self.out_mask][seat]

    def room(self) -> int:
        """Attack cards the cap still allows in this bout (0 once the deal is over: its cap is 0)."""
        return max(0, self.cap - len(self.attacks))

    def _has_room(self) -> bool:
        """Whether one more attack card may land (seed 004's first two tests for adding): under the cap, and
        under the defender's limit (seed 000: "never more than the number of cards the defender held when the
        bout began") or, by seed 004, "The cards lying unbeaten must number fewer than the cards in the
        defender's hand"."""
        total = len(self.attacks)
        if total >= self.cap:
            return False
        if self._bout_start:
            return total < self.limit
        return self.open_count < self.hands[self.defender].bit_count()

    def _find_actor(self) -> int | None:
        """The one seat the position waits on, or None when the bout is over."""
        if not self.attacks:
            return self.attacker
        if self.open_count and not self.taking and not self._before_beaten:
            return self.defender
        if self._has_room():
            passed, hands = self.passed, self.hands
            for seat in self.throwers:
                if not passed >> seat & 1 and hands[seat]:
                    return seat
        if self.open_count and not self.taking:
            return self.defender
        return None

    def _compute_throwers(self) -> tuple[int, ...]:
        """Who may add cards, in the order they are asked: the lead attacker first, then clockwise."""
        a, d = self.attacker, self.defender
        policy = self.rules.throw_in
        if policy == "attacker":
            return (a,)
        if policy == "neighbours":
            # Seed 002: "When only neighbours throw in, it is the two players either side of the defender."
            other = self._next(d)
            return (a,) if other == a else (a, other)
        seats = [a]
        s = self._next(d)
        while s != a:
            seats.append(s)
            s = self._next(s)
        return tuple(seats)

    def legal_actions(self) -> tuple[int, ...]:
        """The legal action indices of the seat to act (empty once the game is over); an immutable tuple,
        computed once per position from the checks of legality.py (``legal_moves``)."""
        if self._legal is None:
            self._legal = () if self.result is not None else legal_moves(self)
        return self._legal

    # ----- playing ------------------------------------------------------------------------

    def step(self, action: Any, seat: Any = None) -> None:
        """Play ``action`` for the seat to act; an illegal one raises IllegalAction and changes nothing.
        ``seat``, when given, is the seat the caller plays for: refused unless it is the one to act."""
        legal = self.legal_actions()
        if seat is not None and (self.result is not None or seat != self.to_act):
            whose = "nobody's (the game is over)" if self.result is not None else f"player {self.to_act}'s"
            code = Refusal.GAME_OVER if self.result is not None else Refusal.NOT_YOUR_TURN
            raise IllegalAction(f"player {seat!r} tried {action!r} but it is {whose} turn", action, legal, code)
        try:
            index = operator.index(action)
        except TypeError:
            index = None
        if index is None or isinstance(action, bool) or index not in legal:
            code, why = self.refusal(action) or (Refusal.NOT_LEGAL, "")
            raise IllegalAction(self._refusal_text(action, why), action, legal, code)
        self._play(index)

    def play_forced(self, limit: int = sys.maxsize) -> list[tuple[int, int]]:
        """Play every move that is the only legal one, until a seat has a choice, the deal ends or ``limit``
        moves are played; returns the ``(seat, action)`` pairs played."""
        played: list[tuple[int, int]] = []
        while self.result is None and len(played) < limit:
            legal = self._legal if self._legal is not None else self.legal_actions()
            if len(legal) != 1:
                break
            played.append((self.to_act, legal[0]))
            self._play(legal[0])
        return played

    def play_unchecked(self, action: Any) -> None:
        """Play an action known to be legal (one of ``legal_actions()``; numpy's integers too), skipping the
        check: for rollouts."""
        self._play(operator.index(action))

    def _play(self, action: int) -> None:
        """``play_unchecked`` for an int."""
        lay = self.layout
        seat = self.to_act
        self._legal = None
        if action == lay.done:
            self.passed |= 1 << seat
        elif action == lay.take:
            if self._after_take:
                # Seed 002: "the others may still throw in, then the defender picks up everything".
                self.taking = True
                self.passed = 0
            else:
                # Seed 003: "A take ends the bout at once, and nothing more can be thrown in after it."
                self._end_bout(took=True)
        else:
            card = lay.card_of[action % lay.deck_size]
            bit = 1 << card
            self.hands[seat] &= ~bit
            self.known[seat] &= ~bit
            self.table_ranks |= RANK_MASK_OF[card]
            if lay.defend <= action < lay.transfer:
                self.defences[len(self.attacks) - self.open_count] = card
                self.open_count -= 1
                if not self.open_count:
                    # Seed 003: "covering the last open attack, lets anyone who had passed throw in again."
                    self.passed = 0
            else:
                self.attacks.append(card)
                self.defences.append(-1)
                self.open_count += 1
                self.passed = 0
                if action >= lay.transfer:  # the defender becomes the attacker of the next seat
                    self.attacker = seat
                    self.defender = self._next(seat)
                    self._derive_bout()
        self._advance()

    def why_not(self, action: Any) -> str | None:
        """Why ``action`` is not legal here, in a few words; None when it is legal."""
        refused = self.refusal(action)
        return None if refused is None else refused[1]

    def refusal(self, action: Any) -> tuple[Refusal, str] | None:
        """Why ``action`` is not legal here: its code (``Refusal``) and a few words; None when it is legal."""
        if self.result is not None:
            return Refusal.GAME_OVER, "the game is over"
        try:
            if isinstance(action, bool):
                raise ValueError("an action is an integer index, not true/false")
            move = decode_action(action, self.rules)
        except (ValueError, TypeError) as err:
            return Refusal.NOT_AN_ACTION, f"not an action of this layout ({err})"
        return refusal_of(self, move)

    def _refusal_text(self, action: Any, why: str) -> str:
        """The message of a refused ``action``: what was tried, by whom, why, and what is legal."""
        if self.result is not None:
            return f"the game is over; action {action!r} was refused"
        try:
            if isinstance(action, bool):
                raise ValueError("an action is an integer index, not true/false")
            tried = str(decode_action(action, self.rules))
        except (ValueError, TypeError) as err:
            tried, why = str(err), "not an action of this layout"
        legal = ", ".join(f"{a} ({decode_action(a, self.rules)})" for a in self.legal_actions())
        return f"illegal action {action!r} [{tried}] for player {self.to_act}: {why}; legal: {legal}"

    def _advance(self) -> None:
        while self.result is None:
            actor = self._find_actor()
            if actor is not None:
                self.to_act = actor
                return
            self._end_bout(took=self.taking)

    def _open_bout(self, attacker: int) -> None:
        self.attacker = self.opener = attacker
        self.defender = self._next(attacker)
        self._derive_bout()
        self._legal = None

    def _end_bout(self, took: bool) -> None:
        table = self.table_mask()
        d = self.defender
        if took:
            # Seed 000: "picks up everything on the table"; everyone saw which cards.
            self.hands[d] |= table
            self.known[d] |= table
        else:
            self.discard |= table
        self.attacks, self.defences = [], []
        self.open_count = self.table_ranks = self.passed = 0
        self.taking = False
        self.bouts += 1
        self.last_bout = BoutEnd(self.bouts, d, took, table, table.bit_count(), self._refill())
        if not self.stock:
            # Seed 000: "With the stock gone, a player who runs out of cards has gone out."
            group = tuple(s for s in range(self.n) if not self.out_mask >> s & 1 and not self.hands[s])
            if group:
                self.out_groups.append(group)
                for s in group:
                    self.out_mask |= 1 << s
        if self.n - self.out_mask.bit_count() <= 1:
            self._finish([s for s in range(self.n) if not self.out_mask >> s & 1], capped=False)
        elif self.rules.max_bouts is not None and self.bouts >= self.rules.max_bouts:
            self._finish([s for s in range(self.n) if not self.out_mask >> s & 1], capped=True)
        else:
            # Seed 000: the defender who held attacks next; one who took "forfeit[s] their turn to attack".
            nxt = self._next(d) if took or self.out_mask >> d & 1 else d
            self._open_bout(nxt)

    def _refill(self) -> tuple[int, ...]:
        """Seed 000: "draw back up to six cards from the stock: the attacker first, then everyone else
        in turn, and the defender last"; 001: "first the player who opened the bout and the defender last".
        After a transfer the seat that opened the bout can be the defender; the defender still draws
        last, and the others draw clockwise from the seat after it (docs/rules.md, "Drawing").
        Returns the cards each seat drew."""
        drew = [0] * self.n
        if not self.stock:
            return tuple(drew)
        defender = self.defender
        first = self.opener if self.opener != defender else self._next(defender)
        order = [first]
        s = self._next(first)
        while s != first:
            if s != defender:
                order.append(s)
            s = self._next(s)
        order.append(defender)
        size = self.rules.deal_size
        stock, hands = self.stock, self.hands
        for seat in order:
            need = size - hands[seat].bit_count()
            while need > 0 and stock:
                card = stock.pop()
                hands[seat] |= 1 << card
                if card == self.trump_card:
                    self.known[seat] |= 1 << card  # the face-up card: everyone saw who took it
                need -= 1
                drew[seat] += 1
        return tuple(drew)

    def _finish(self, remaining: list[int], capped: bool) -> None:
        n = self.n
        places = [0] * n
        groups: list[Sequence[int]] = list(self.out_groups)
        if capped:
            # Seed 003: "placed by hand size, fewest cards first, and a lone player holding the most is the fool."
            by_size: dict[int, list[int]] = {}
            for s in remaining:
                by_size.setdefault(self.hands[s].bit_count(), []).append(s)
            groups += [by_size[k] for k in sorted(by_size)]
        elif remaining:
            groups.append(remaining)
        place = 1
        for group in groups:
            for s in group:
                places[s] = place
            place += len(group)
        last = groups[-1]
        has_fool = len(last) == 1 and (capped or bool(remaining))
        fool = last[0] if has_fool else None
        self.result = Result(
            placings=tuple(places),
            points=tuple(n - p for p in places),
            fool=fool,
            drawn=() if has_fool else tuple(last),
            capped=capped,
        )
        self.to_act = -1
        self._legal = None
        self.cap = self.limit = 0  # no bout: nothing more lands, and nobody throws in
        self.throwers = ()

    # ----- copies, views and snapshots ----------------------------------------------------

    def clone(self) -> "Game":
        """An independent copy, for search: the facts copied (their lists too) and the rest derived."""
        g = Game(_empty=True)
        g.rules = self.rules
        for name in FACTS:
            value = getattr(self, name)
            setattr(g, name, value.copy() if isinstance(value, list) else value)
        g._derive()
        g.last_bout = self.last_bout
        return g

    def view(self, seat: Any) -> SeatView:
        """What ``seat`` can know, as Python objects (see view.py)."""
        return SeatView.of(self, seat)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot: the rules and the facts (and, for readers, what is derived from them
        that a player sees: the trump suit, whose move, the seats out, the bout's limit); ``Game.from_dict``
        continues it identically."""
        return write_snapshot(self)

    @classmethod
    def from_dict(cls, data: Any) -> "Game":
        """Rebuild a game from ``to_dict``'s snapshot; a malformed or impossible one raises ValueError."""
        return load_snapshot(cls, data)


def _check_seat(seat: Any, n: int, name: str) -> None:
    if not is_integer(seat, 0, n - 1):
        raise ValueError(f"{name} must be a seat from 0 to {n - 1}, got {seat!r}")


__all__ = ["DERIVED", "STAKES", "Game", "IllegalAction", "Result", "staked"]
