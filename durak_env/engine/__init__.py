"""The pure Durak engine: no numpy, no gym, nothing outside the standard library."""

from .actions import LAYOUT_VERSION, Action, Layout, decode_action, encode_action, layout_for, num_actions
from .cards import Card, beats, parse_cards
from .game import Game, IllegalAction, Result
from .match import Match
from .refusal import Refusal
from .rules import Rules
from .view import SeatView

__all__ = [
    "LAYOUT_VERSION", "Action", "Card", "Game", "IllegalAction", "Layout", "Match", "Refusal", "Result", "Rules",
    "SeatView", "beats", "decode_action", "encode_action", "layout_for", "num_actions", "parse_cards",
]
