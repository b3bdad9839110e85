"""What must hold in every position and at every end: the checks the tests and the soak run.

``check_invariants(game)`` raises ``InvariantViolation`` naming the first broken
rule; ``check_result(game)`` checks a finished deal's placings, points and rewards.
``bout_move_bound(rules)`` is the documented most moves one bout can take (see
docs/rules.md): each card that lands or beats, plus a take, plus at most one
"done" per seat between two new cards.
"""

from __future__ import annotations

import random

from .cards import conservation_problem
from .game import DERIVED
from .rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules


class InvariantViolation(AssertionError):
    """A position or result the rules cannot produce: an engine bug."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvariantViolation(message)


def bout_move_bound(rules: Rules) -> int:
    """The most moves one bout can take: at most ``max_attacks`` attack cards and as many beating
    cards, one take, and between two of those events at most one pass per seat."""
    events = 2 * rules.max_attacks + 1
    return events + rules.num_players * (events + 1)


def check_invariants(game) -> None:
    """Every card in exactly one place; counts, knowledge and the acting seat consistent."""
    rules, n = game.rules, game.n
    attacks, defences, stock = game.attacks, game.defences, game.stock
    problem = conservation_problem(rules.deck_size, [
        *((f"hand {s}", h) for s, h in enumerate(game.hands)), ("discard", game.discard), ("stock", stock),
        ("table", game.table_mask())])
    _require(problem is None, problem or "")
    _require(len(attacks) == len(defences), "attacks and defences differ in length")
    _require(len(attacks) <= rules.max_attacks, "more attack cards than the cap allows")
    for s in range(n):
        _require(not game.known[s] & ~game.hands[s], f"seat {s} is known to hold a card it does not hold")
        if not game.in_play(s):
            _require(not game.hands[s] and not game.stock, f"seat {s} is out but holds cards or the stock lasts")
    if game.stock:
        _require(game.stock[0] == game.trump_card, "the trump card is not the last card of the stock")
    if rules.max_bouts is not None:
        _require(game.bouts <= rules.max_bouts, "more bouts than the cap")
    check_derived(game)
    if game.is_over:
        _require(game.legal_actions() == (), "a finished deal offers moves")
        check_result(game)
        return
    legal = game.legal_actions()
    _require(bool(legal), "the acting seat has no move")
    _require(len(set(legal)) == len(legal), "a legal move is listed twice")
    _require(game.in_play(game.to_act), "a seat that went out is asked to move")
    if not game.taking:
        _require(game.open_count <= game.hands[game.defender].bit_count(),
                 "more unbeaten cards than the defender holds")


def check_derived(game) -> None:
    """What the moves kept in step (whose move, the unbeaten count, the table's ranks, the cap, the throwers...)
    is what ``Game._derive`` works out from the facts afresh (a clone derives it), and so are the legal moves."""
    fresh = game.clone()
    for name in DERIVED:
        _require(getattr(fresh, name) == getattr(game, name), f"{name} is out of step with the game's facts")
    _require(fresh.legal_actions() == game.legal_actions(), "the legal moves are out of step with the game's facts")


def check_result(game) -> None:
    """One fool or a draw; places follow the order seats went out; points and rewards as documented."""
    r, n = game.result, game.n
    _require(r is not None, "no result")
    _require(len(r.placings) == len(r.points) == n, "a result entry per seat is missing")
    _require(all(1 <= p <= n for p in r.placings), "a place outside 1..n")
    _require(all(pt == n - p for p, pt in zip(r.placings, r.points)), "points are not players minus place")
    rewards = r.rewards()
    _require(all(-1.0 <= x <= 1.0 for x in rewards), "a reward outside [-1, 1]")
    if r.fool is not None:
        _require(not r.drawn, "a fool and a draw at once")
        _require(r.placings[r.fool] == n and r.points[r.fool] == 0 and rewards[r.fool] == -1.0,
                 "the fool is not last with -1")
        _require(sum(1 for p in r.placings if p == n) == 1, "two seats share the fool's place")
    else:
        _require(bool(r.drawn), "neither a fool nor a draw")
        _require(all(rewards[s] == 0.0 for s in r.drawn), "a drawn seat scores")
    earlier = 0
    for group in game.out_groups:
        places = {r.placings[s] for s in group}
        _require(len(places) == 1, "seats that went out together are placed apart")
        place = places.pop()
        _require(place == earlier + 1, "places skip or repeat the order seats went out")
        earlier += len(group)
    if n == 2:
        _require(sorted(rewards) in ([-1.0, 1.0], [0.0, 0.0]), "a 2-player deal is not +1/-1 or a draw")


def random_rules(rng: random.Random) -> Rules:
    """A valid ``Rules`` drawn over every field's range (for the soak and fuzzing)."""
    while True:
        base = rng.choice(list(PRESETS))
        fields = {
            "num_players": rng.randint(MIN_PLAYERS, MAX_PLAYERS), "deck_size": rng.choice([24, 36, 52]), "hand_size": rng.randint(3, 6),
            "full_table_hand_size": rng.choice([None, rng.randint(3, 6)]),
            "throw_in": rng.choice(["attacker", "neighbours", "all"]), "throw_in_before_beaten": rng.random() < .5,
            "transfer": rng.random() < .5, "max_attacks": rng.randint(4, 6), "max_attacks_early": rng.randint(1, 6),
            "early_ends": rng.choice(["first_bout", "first_discard"]),
            "defender_limit": rng.choice(["bout_start", "current_hand"]), "throw_in_after_take": rng.random() < .5,
            "no_trump_lead": rng.choice(["first_seat", "redeal", "after_dealer", "seat_zero"]),
            "open_discard": rng.random() < .5, "max_bouts": rng.choice([None, rng.randint(1, 200)]),
        }
        keep = rng.sample(sorted(fields), rng.randint(0, len(fields)))  # some fields from a preset, some drawn
        try:
            return Rules.preset(base, **{k: fields[k] for k in keep})
        except ValueError:
            continue  # an impossible table (too many cards dealt for the deck, say): draw again
