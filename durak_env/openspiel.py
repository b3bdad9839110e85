"""Durak as an OpenSpiel game: ``import durak_env.openspiel`` registers ``python_durak``.

    import pyspiel
    import durak_env.openspiel
    game = pyspiel.load_game("python_durak", {"preset": "perevodnoy", "num_players": 3})

Needs the ``openspiel`` extra.  Parameters: ``preset`` (a ``Rules`` preset name,
podkidnoy by default) and every ``Rules`` field, each overriding the preset.
OpenSpiel fills in every parameter, so "not given" is a sentinel: -1 for integer
fields, "" for text fields (0 means "none" for ``full_table_hand_size`` and
``max_bouts``).  A true/false field has no spare value: it overrides the preset
only when it differs from podkidnoy's default.

The deal is explicit chance: one chance node per card, outcome ``i`` putting
the i-th card of the deck (in action-slot order) next into the pack; the first
card dealt is the trump card and draws come off the back (seed 004).  Player
actions are the flat action layout of ``engine/actions.py``.  Returns are
``Result.rewards()``; a deal still running after ``loop.MOVE_LIMIT`` moves ends as a draw.

What a seat knows: the observation (string and tensor) is its current
knowledge, the ``ObservationEncoder`` vector; the information state string adds
the public move history (every move in Durak is seen by all).  Neither holds a
card the seat cannot see.  ``resampler(state, player)`` deals the unseen cards
at random (``sample_world``) for the Python ``ISMCTSBot``
(``bot.set_resampler(resampler)``).  OpenSpiel's C++ MCTS/ISMCTS bots do not
run on Python games; use the Python ones in ``open_spiel.python.algorithms``.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from .engine.actions import decode_action, layout_for
from .engine.cards import CARDS, cards_of
from .engine.determinize import sample_world
from .engine.game import Game
from .engine.loop import MOVE_LIMIT, PLAYING, ending
from .engine.rules import MAX_PLAYERS, PRESETS, Rules
from .observation import ObservationEncoder

_DEFAULT = Rules()
_NONE_AS_ZERO = ("full_table_hand_size", "max_bouts")
_INT_FIELDS = ("num_players", "deck_size", "hand_size", "full_table_hand_size", "max_attacks", "max_attacks_early",
               "max_bouts", "match_deals")
_PARAMS: dict = {"preset": "podkidnoy"}
for _name, _value in _DEFAULT.to_dict().items():
    _PARAMS[_name] = -1 if _name in _INT_FIELDS else "" if isinstance(_value, str) else _value


def _game_type(num_players: int | None = None) -> pyspiel.GameType:
    two = num_players == 2
    return pyspiel.GameType(
        short_name="python_durak",
        long_name="Python Durak (durak_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        # Two seats: the fool -1, the other +1.  More: seed 003's placing points, where ties do not sum to 0.
        utility=pyspiel.GameType.Utility.ZERO_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMS,
    )


def rules_from_params(params: dict) -> Rules:
    """The ``Rules`` an OpenSpiel parameter dict asks for (see the module docstring)."""
    params = dict(params)
    preset = params.pop("preset", "podkidnoy")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    base = Rules.preset(preset).to_dict()
    for name, value in params.items():
        if value == _PARAMS[name]:
            continue  # not given: the preset's value
        base[name] = None if name in _NONE_AS_ZERO and value == 0 else value
    return Rules.from_dict(base)


class DurakGame(pyspiel.Game):
    def __init__(self, params: dict | None = None):
        rules = rules_from_params(params or {})
        self.rules = rules
        self.layout = layout_for(rules.deck_size)
        self.encoder = ObservationEncoder(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.layout.size,
            max_chance_outcomes=rules.deck_size,
            num_players=rules.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if rules.num_players == 2 else None,
            max_game_length=MOVE_LIMIT + rules.deck_size,
        )
        super().__init__(_game_type(rules.num_players), info, params or {})

    def new_initial_state(self) -> "DurakState":
        return DurakState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"python_durak observers take no parameters; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return DurakObserver(self, with_history=perfect_recall)


class DurakState(pyspiel.State):
    def __init__(self, game: DurakGame):
        super().__init__(game)
        self.rules = game.rules
        self._deck_ids = game.layout.card_of
        self.pack: list[int] = []  # cards dealt so far by chance, in pack order
        self.game: Game | None = None
        self.moves: list[int] = []  # the public move history

    # ----- OpenSpiel API ------------------------------------------------------------------

    def current_player(self) -> int:
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        if self._over():
            return pyspiel.PlayerId.TERMINAL
        return self.game.to_act

    def _over(self) -> bool:
        return ending(self.game, len(self.moves), MOVE_LIMIT) != PLAYING

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.game.legal_actions()) if player == self.game.to_act else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.pack)
        left = [i for i, card in enumerate(self._deck_ids) if card not in dealt]
        p = 1.0 / len(left)
        return [(i, p) for i in left]

    def _apply_action(self, action: int) -> None:
        if self.game is not None:
            self.game.step(int(action))
            self.moves.append(int(action))
            return
        self.pack.append(self._deck_ids[action])
        if len(self.pack) == self.rules.deck_size:
            try:
                self.game = Game.from_deck(self.rules, self.pack)
            except ValueError:  # nobody holds a trump and these rules redeal (seed 002): deal again
                self.pack = []

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[self._deck_ids[action]]}"
        return str(decode_action(action, self.rules))

    def is_terminal(self) -> bool:
        return self.game is not None and self._over()

    def returns(self) -> list[float]:
        if self.game is None or self.game.result is None:
            return [0.0] * self.rules.num_players
        return list(self.game.result.rewards())

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {' '.join(str(CARDS[c]) for c in self.pack)}"
        return " ".join(str(CARDS[c]) for h in self.game.hands for c in cards_of(h)) + " | " + " ".join(
            str(decode_action(a, self.rules)) for a in self.moves)

    def resample_from_infostate(self, player: int, probability_sampler=None) -> "DurakState":
        return resampler(self, player)


def resampler(state: DurakState, player: int, rng: random.Random | None = None) -> DurakState:
    """A state ``player`` cannot tell from ``state``: the same history and view, the unseen cards dealt
    at random (for ``ISMCTSBot.set_resampler``; ``make_resampler(seed)`` gives a seeded one)."""
    clone = state.clone()
    if state.game is not None:
        clone.game = sample_world(state.game.view(player), rng or random.Random())
    return clone


def make_resampler(seed: int | None = None):
    """A ``resampler`` drawing from its own seeded generator, for reproducible searches."""
    rng = random.Random(seed)
    return lambda state, player: resampler(state, player, rng)


class DurakObserver:
    """OpenSpiel's PyObserver: ``tensor`` is the ``ObservationEncoder`` vector (all zero while dealing);
    strings are the seat's knowledge, with the public move history for the information state."""

    def __init__(self, game: DurakGame, with_history: bool):
        self.encoder = game.encoder
        self.with_history = with_history
        self.tensor = np.zeros(0 if with_history else self.encoder.size, np.float32)
        self.dict = {} if with_history else {"observation": self.tensor}

    def set_from(self, state: DurakState, player: int) -> None:
        if self.with_history:
            return
        if state.game is None:
            self.tensor.fill(0)
        else:
            self.encoder.encode(state.game.view(player), self.tensor)

    def string_from(self, state: DurakState, player: int) -> str:
        if state.game is None:
            return f"p{player} dealing"
        text = knowledge_string(state.game.view(player))
        if self.with_history:
            text += " | moves " + " ".join(map(str, state.moves))
        return text


def knowledge_string(view) -> str:
    """What one seat knows now, as one line (no hidden card)."""
    cards = lambda mask: ",".join(str(CARDS[c]) for c in cards_of(mask)) or "-"  # noqa: E731
    table = " ".join(f"{a}/{'-' if d is None else d}" for a, d in view.table) or "-"  # card 0 (2C) is a card
    known = ";".join(cards(k) for k in view.known_masks)
    discard = cards(view.discard_mask) if view.discard_mask is not None else f"{view.discard_count} hidden"
    return (f"p{view.seat} hand {cards(view.hand_mask)} trump {view.trump_card} table {table} "
            f"stock {view.stock_size} discard {discard} sizes {','.join(map(str, view.hand_sizes))} "
            f"known {known} out {','.join(map(str, view.out))} attacker {view.attacker} defender {view.defender} "
            f"to_act {view.to_act} passed {','.join(map(str, view.passed))} taking {int(view.taking)} bouts {view.bouts}")


pyspiel.register_game(_game_type(), DurakGame)
