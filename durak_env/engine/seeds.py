"""Seeds derived from a seed: the one rule for every place that needs many streams from one number (the decks of
an evaluation, the bots at a table, the workers of a run, the rounds of expert iteration).

``derive_seed("eval", seed, lineup, deal)`` hashes its parts (string seeding in the standard library's
``random`` is SHA-512), so the same parts give the same seed on any machine and any Python, and different parts
give unrelated seeds; arithmetic such as ``seed * 7919 + i`` makes (seed, i) and (seed + 1, i - 7919) collide
and neighbouring seeds run correlated streams.
"""

from __future__ import annotations

import random


def derive_seed(purpose: str, seed: int, *parts: object) -> int:
    """A 63-bit seed for the stream ``purpose`` names, under ``seed``, at ``parts`` (indices, names)."""
    return random.Random("/".join(map(str, (f"durak-{purpose}", seed, *parts)))).getrandbits(63)


def bot_seed(deal_seed: int, seat: int) -> int:
    """The seed the bot at ``seat`` starts the deal of ``deal_seed`` with (``Game(rules, seed=deal_seed)``): the one
    rule of every front end (``durak play``, ``durak eval``, the page and the static site), so that a deal seed and
    a lineup of bots give the same game in each (tests/test_seeds.py plays one through all)."""
    return derive_seed("bot", deal_seed, seat)


__all__ = ["bot_seed", "derive_seed"]
