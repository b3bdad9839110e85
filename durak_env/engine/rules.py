"""Every rule choice of a Durak variant, as one frozen, validated object.

Rules are data: each preset below, named by what it plays, reproduces one of the five rule references
(seeds 000-004, which this project keeps beside the repository; docs/rules.md says what each is), and
docs/rules.md lists every field with the sentence of the seed it comes from.  The engine reads these fields and
nothing else; a variant is never a code edit.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, fields
from typing import Any

from .checks import is_integer

THROW_IN = ("attacker", "neighbours", "all")
DEFENDER_LIMITS = ("bout_start", "current_hand")
NO_TRUMP_LEADS = ("first_seat", "redeal", "after_dealer", "seat_zero")
EARLY_ENDS = ("first_bout", "first_discard")
NEXT_DEAL = ("rotate", "fool_deals")
DECK_SIZES = (24, 36, 52)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
"""The table sizes the rules allow (seed 000: "Players: 2 to 6")."""


@dataclass(frozen=True)
class Rules:
    """One Durak variant.  The default is 2-player 36-card podkidnoy as seed 004 plays it."""

    num_players: int = 2
    """Seats at the table, ``MIN_PLAYERS`` to ``MAX_PLAYERS`` (seed 000: "Players: 2 to 6")."""
    deck_size: int = 36
    """24 (nine to ace), 36 (six to ace) or 52 cards (seed 002)."""
    hand_size: int = 6
    """Cards dealt to each seat and refilled to after a bout."""
    full_table_hand_size: int | None = None
    """Hand size when six play, or None for ``hand_size`` (seed 003: "five at a full table of six")."""
    throw_in: str = "all"
    """Who may add cards: "attacker" (000), "neighbours" of the defender (001, 002) or "all" but the defender (002, 003)."""
    throw_in_before_beaten: bool = True
    """Whether cards may be added while earlier attacks are unbeaten (003: "Several attacks can sit
    unanswered at once"); False follows 000 and 001, where throwing in waits until every card is beaten."""
    transfer: bool = False
    """Perevodnoy (001, 002): a defender who has beaten nothing may pass the attack on with a card of its rank."""
    max_attacks: int = 6
    """Attack cards in one bout at most (000: "at most six attacking cards")."""
    max_attacks_early: int = 6
    """The cap before ``early_ends`` (002: "five until the first discard"; 003: "five cards ... the first bout")."""
    early_ends: str = "first_discard"
    """When ``max_attacks_early`` gives way to ``max_attacks``: after the "first_bout" or the "first_discard"."""
    defender_limit: str = "current_hand"
    """"bout_start": never more attack cards than the defender held when the bout began (000, 001);
    "current_hand": never more unbeaten cards than the defender holds now (002, 003, 004)."""
    throw_in_after_take: bool = False
    """False: a take ends the bout at once (000, 003, 004); True: the attackers may still throw in
    before the defender picks up (001, 002)."""
    no_trump_lead: str = "seat_zero"
    """Who leads when nobody was dealt a trump: the deal's "first_seat" (000), "redeal" (002),
    the seat "after_dealer" (003), or "seat_zero" (001, 004).  "first_seat" and "after_dealer" name the
    same seat: a deal's first seat is the player after the dealer (the cards go out from it, and
    ``Match`` deals the next deal from the seat after the fool, who deals); both are kept so each preset
    says what its seed says."""
    open_discard: bool = True
    """Whether beaten cards are shown to everyone; False shows only their count (003)."""
    max_bouts: int | None = None
    """A deal reaching this many bouts is placed by hand size (003: 150); None for no cap."""
    match_deals: int = 5
    """Deals in a ``Match`` (003: "five deals unless the table is set to another length, from three to fifteen")."""
    next_deal: str = "rotate"
    """How a match picks the next deal's first seat: "rotate" one seat on (000) or "fool_deals" (003)."""

    def __post_init__(self) -> None:
        _check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        _check_choice(self, "deck_size", DECK_SIZES)
        _check_int(self, "hand_size", 1, 26)
        if self.full_table_hand_size is not None:
            _check_int(self, "full_table_hand_size", 1, 26)
        _check_choice(self, "throw_in", THROW_IN)
        for name in ("throw_in_before_beaten", "transfer", "throw_in_after_take", "open_discard"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Rules.{name} must be true or false, got {getattr(self, name)!r}")
        _check_int(self, "max_attacks", 1, 26)
        _check_int(self, "max_attacks_early", 1, self.max_attacks)
        _check_choice(self, "early_ends", EARLY_ENDS)
        _check_choice(self, "defender_limit", DEFENDER_LIMITS)
        _check_choice(self, "no_trump_lead", NO_TRUMP_LEADS)
        if self.max_bouts is not None:
            _check_int(self, "max_bouts", 1, 100_000)
        _check_int(self, "match_deals", 1, 15)
        _check_choice(self, "next_deal", NEXT_DEAL)
        dealt = self.deal_size * self.num_players
        if dealt >= self.deck_size:
            raise ValueError(
                f"Rules: {self.num_players} players x {self.deal_size} cards = {dealt} does not leave a trump card "
                f"in a {self.deck_size}-card deck; use fewer players, a smaller hand_size or a larger deck_size"
            )

    @property
    def deal_size(self) -> int:
        """Cards dealt and refilled to at this table."""
        if self.num_players == MAX_PLAYERS and self.full_table_hand_size is not None:
            return self.full_table_hand_size
        return self.hand_size

    def can_seat(self, players: int) -> bool:
        """Whether these rules, at a table of ``players``, are rules at all (the seat count allowed, and a trump
        card left after the deal): ``__post_init__``'s checks, asked without raising."""
        try:
            self.replace(num_players=players)
        except ValueError:
            return False
        return True

    def attack_cap(self, discard_count: int, bouts: int) -> int:
        """Attack cards allowed in the current bout (002: "never more than six attacks in a bout, five until
        the first discard"; 003: "Up to five cards may attack the first bout, six after that")."""
        early = discard_count == 0 if self.early_ends == "first_discard" else bouts == 0
        return self.max_attacks_early if early else self.max_attacks

    def describe(self) -> str:
        """These rules in a few words: the preset and table size they equal ("perevodnoy, 2 players"), or the
        fields where they differ from the default."""
        for name, (preset, _) in PRESETS.items():
            if preset.can_seat(self.num_players) and preset.replace(num_players=self.num_players) == self:
                return f"{name}, {self.num_players} players"
        default = Rules().to_dict()
        return ", ".join(f"{k}={v}" for k, v in self.to_dict().items() if v != default[k])

    def replace(self, **changes: Any) -> "Rules":
        _check_keys(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Rules":
        """Rules from a dict: a missing field takes its default; an unknown one is an error."""
        if isinstance(data, Rules):
            return data
        if not isinstance(data, dict):
            raise ValueError(f"rules must be a mapping of field names to values, got {type(data).__name__}")
        if "preset" in data:
            rest = {k: v for k, v in data.items() if k != "preset"}
            return cls.preset(data["preset"], **rest)
        _check_keys(data)
        return cls(**data)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> "Rules":
        """The named preset, with any fields overridden (e.g. ``num_players=4``).  The old names (``seed003``...)
        work too (``RENAMED``)."""
        name = preset_name(name)
        if name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; presets: {', '.join(PRESETS)}")
        return PRESETS[name][0].replace(**overrides)

    @staticmethod
    def presets() -> dict[str, str]:
        """Preset name -> the reference it follows."""
        return {name: doc for name, (_, doc) in PRESETS.items()}


def _check_keys(data: dict[str, Any]) -> None:
    allowed = [f.name for f in fields(Rules)]
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ValueError(f"unknown rules field {unknown[0]!r}; fields: {', '.join(allowed)}")


def _check_int(rules: Rules, name: str, low: int, high: int) -> None:
    value = getattr(rules, name)
    if not is_integer(value, low, high):
        raise ValueError(f"Rules.{name} must be an integer from {low} to {high}, got {value!r}")
    object.__setattr__(rules, name, int(value))  # numpy's integers kept as Python's: the rules go into JSON


def _check_choice(rules: Rules, name: str, allowed: tuple) -> None:
    value = getattr(rules, name)
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"Rules.{name} must be one of {', '.join(map(str, allowed))}; got {value!r}")


_SEED000 = Rules(
    throw_in="attacker",
    throw_in_before_beaten=False,
    defender_limit="bout_start",
    no_trump_lead="first_seat",
    next_deal="rotate",
)
_SEED001 = Rules(
    throw_in="neighbours",
    throw_in_before_beaten=False,
    defender_limit="bout_start",
    throw_in_after_take=True,
    no_trump_lead="seat_zero",
)
_SEED002 = Rules(
    throw_in="all",
    max_attacks_early=5,
    early_ends="first_discard",
    throw_in_after_take=True,
    no_trump_lead="redeal",
)
_SEED003 = Rules(
    throw_in="all",
    full_table_hand_size=5,
    max_attacks_early=5,
    early_ends="first_bout",
    no_trump_lead="after_dealer",
    open_discard=False,
    max_bouts=150,
    next_deal="fool_deals",
)
_SEED004 = Rules()

PRESETS: dict[str, tuple[Rules, str]] = {
    "podkidnoy": (_SEED004, "the default: 2-player 36-card throw-in Durak; everyone but the defender may throw in, "
                            "also before the cards on the table are beaten (seed 004)"),
    "perevodnoy": (_SEED002.replace(transfer=True), "transfer Durak: a defender who has beaten nothing yet may pass "
                                                    "the attack on with a card of its rank (seed 002)"),
    "attacker-only": (_SEED000, "the attacker alone throws in, once every card is beaten; never more attacks than "
                                "the defender held when the bout began (seed 000)"),
    "after-beaten": (_SEED001, "the attacker, then the defender's other neighbour, throw in once everything is "
                               "beaten, and may go on after a take (seed 001)"),
    "after-beaten-transfer": (_SEED001.replace(transfer=True), "after-beaten with transfer (seed 001's Transfer "
                                                                  "level)"),
    "throw-after-take": (_SEED002, "everyone throws in, also after the defender says take; five attacks until the "
                                   "first discard; a redeal when nobody holds a trump (seed 002)"),
    "neighbours": (_SEED002.replace(throw_in="neighbours"), "throw-after-take where only the defender's two "
                                                            "neighbours throw in (seed 002)"),
    "tournament": (_SEED003, "tournament rules: five attacks in the first bout, the discard hidden, a 150-bout cap, "
                             "placing points and five-deal matches (seed 003)"),
}
"""Each preset by what it plays, and where it comes from (the rule references, seeds 000-004: docs/rules.md)."""

RENAMED: dict[str, str] = {"seed000": "attacker-only", "seed001": "after-beaten", "seed001-transfer":
                           "after-beaten-transfer", "seed002": "throw-after-take", "seed002-neighbours": "neighbours",
                           "seed002-perevodnoy": "perevodnoy", "seed003": "tournament", "seed004": "podkidnoy"}
"""The presets' names before they were named by what they play (issue 44): each still works, and says so once."""


class PresetRenamed(FutureWarning):
    """A preset asked for by its old name (``RENAMED``)."""


_TOLD: set[str] = set()


def preset_name(name: str) -> str:
    """``name``, or the preset an old name is now called (saying so once a process, as a ``PresetRenamed``
    warning)."""
    new = RENAMED.get(name) if isinstance(name, str) else None
    if new is None:
        return name
    if name not in _TOLD:
        _TOLD.add(name)
        warnings.warn(f"the rules preset {name!r} is now called {new!r}; the old name works as well",
                      PresetRenamed, stacklevel=3)
    return new

