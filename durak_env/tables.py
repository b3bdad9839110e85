"""Tables: a distribution over rule sets and table sizes, which a policy for any rules trains on (issue 29).

A game is dealt from ``Tables.sample``: with probability ``random_share`` a random valid combination of every
field (``engine.invariants.random_rules``), otherwise one of the named tables, each preset in ``presets`` at
each seat count in ``seats`` that the preset can seat, in proportion to its weight.  A combination in
``held_out`` (a few fields, each with its value) is never dealt: a random draw that matches every field of
one is drawn again, and a named table that matches one is left out.  The held-out combinations, completed
with the default rules' other fields (``held_out_rules``), are where a trained policy is measured on rules
it never saw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .engine.invariants import random_rules
from .engine.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules, preset_name

DISTINCT_PRESETS = tuple(name for k, name in enumerate(PRESETS)
                         if all(PRESETS[name][0] != PRESETS[other][0] for other in list(PRESETS)[:k]))
"""The presets with rules of their own: a preset that another before it equals is left out."""


def table_name(name: str) -> str:
    """A named table (``"tournament-4"``: a preset and its seats), its preset called by its name now: the old names
    (``"seed003-4"``) of configs and bot files made before the presets were renamed still work."""
    preset, dash, seats = name.rpartition("-") if isinstance(name, str) else ("", "", "")
    return f"{preset_name(preset)}-{seats}" if dash and seats.isdigit() else name


@dataclass(frozen=True)
class Tables:
    """Which rule sets and table sizes games are dealt with, and how often (the module docstring)."""

    presets: tuple[str, ...] = DISTINCT_PRESETS
    """The presets played, each at every seat count of ``seats`` it can seat."""
    seats: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    """The table sizes the presets are played at."""
    random_share: float = 0.25
    """The share of games dealt with random rules (every field drawn) rather than a named table."""
    weights: dict[str, float] = field(default_factory=dict, compare=False, hash=False)
    """A named table's weight (``"podkidnoy-2": 3``) where it is not 1."""
    held_out: tuple[dict[str, Any], ...] = field(default=(), compare=False, hash=False)
    """Combinations of fields never dealt, e.g. ``{"deck_size": 24, "num_players": 3, "transfer": True}``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "presets", tuple(preset_name(name) for name in self.presets))
        object.__setattr__(self, "weights", {table_name(name): weight for name, weight in self.weights.items()})
        for name in self.presets:
            if name not in PRESETS:
                raise ValueError(f"tables: unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        if not self.seats or any(s not in range(MIN_PLAYERS, MAX_PLAYERS + 1) for s in self.seats):
            raise ValueError(f"tables: seats must be table sizes from {MIN_PLAYERS} to {MAX_PLAYERS}, got {self.seats!r}")
        if isinstance(self.random_share, bool) or not isinstance(self.random_share, (int, float)) \
                or not 0 <= self.random_share <= 1:
            raise ValueError(f"tables: random_share must be a share from 0 to 1, got {self.random_share!r}")
        for combo in self.held_out:
            if not isinstance(combo, dict) or not combo:
                raise ValueError(f"tables: each held_out entry is a mapping of rules fields, got {combo!r}")
            Rules.from_dict(combo)  # names real fields with possible values
        named = dict(self.named())
        for name, weight in self.weights.items():
            if name not in named:
                raise ValueError(f"tables: weights names {name!r}, which is not a table played; tables: "
                                 f"{', '.join(named)}")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
                raise ValueError(f"tables: the weight of {name} must be a number >= 0, got {weight!r}")
        if not named and self.random_share < 1:
            raise ValueError("tables: no preset can seat any of the seat counts given; add seats or presets")
        draw, total = [], 0.0
        for name, rules in named.items():
            total += self.weights.get(name, 1.0)
            draw.append((total, rules))
        if total <= 0 and self.random_share < 1:
            raise ValueError("tables: the named tables' weights add up to 0")
        object.__setattr__(self, "_draw", draw)  # the named tables' cumulative weights, for ``sample``

    def named(self) -> list[tuple[str, Rules]]:
        """Every named table played, as ("<preset>-<seats>", rules), none of them held out."""
        out = []
        for name in self.presets:
            for seats in self.seats:
                if PRESETS[name][0].can_seat(seats):
                    rules = Rules.preset(name, num_players=seats)
                    if not self.excludes(rules):
                        out.append((f"{name}-{seats}", rules))
        return out

    def excludes(self, rules: Rules) -> bool:
        """Whether ``rules`` match every field of one held-out combination."""
        return any(all(getattr(rules, k) == v for k, v in combo.items()) for combo in self.held_out)

    def held_out_rules(self) -> list[tuple[str, Rules]]:
        """Each held-out combination as rules (its fields, the default rules' elsewhere), with its name."""
        return [(", ".join(f"{k}={v}" for k, v in combo.items()), Rules.from_dict(combo)) for combo in self.held_out]

    def sample(self, rng: random.Random) -> Rules:
        """The rules of the next game."""
        if self.random_share >= 1 or (self.random_share > 0 and rng.random() < self.random_share):
            while True:
                rules = random_rules(rng)
                if not self.excludes(rules):
                    return rules
        x = rng.random() * self._draw[-1][0]
        for bound, rules in self._draw:
            if x < bound:
                return rules
        return self._draw[-1][1]

    @classmethod
    def from_dict(cls, data: Any) -> "Tables":
        """Tables from a config's mapping (missing keys take their defaults; lists for the tuples)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError(f"tables must be a mapping of presets, seats, random_share, weights and held_out; "
                             f"got {type(data).__name__}")
        known = {"presets", "seats", "random_share", "weights", "held_out"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"tables: unknown key {unknown[0]!r}; keys: {', '.join(sorted(known))}")
        kw = dict(data)
        for key in ("presets", "seats", "held_out"):
            if key in kw:
                if not isinstance(kw[key], (list, tuple)):
                    raise ValueError(f"tables: {key} must be a list, got {kw[key]!r}")
                kw[key] = tuple(kw[key])
        if "weights" in kw and not isinstance(kw["weights"], dict):
            raise ValueError(f"tables: weights must map table names to numbers, got {kw['weights']!r}")
        try:
            return cls(**kw)
        except TypeError as err:
            raise ValueError(f"tables: {err}") from None

    def to_dict(self) -> dict[str, Any]:
        return {"presets": list(self.presets), "seats": list(self.seats), "random_share": self.random_share,
                "weights": dict(self.weights), "held_out": [dict(c) for c in self.held_out]}


__all__ = ["DISTINCT_PRESETS", "Tables", "table_name"]
