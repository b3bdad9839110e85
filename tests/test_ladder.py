"""benchmarks/ladder.py: which bots meet, how many games they play and which games still count; and the ratings
fitted from the games (baselines.ratings)."""

import json
import sys
from pathlib import Path

import pytest

from baselines.ratings import ANCHOR, fit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from ladder import LADDER, SLOWEST, pairing_games, pairings, played  # noqa: E402


def row(a: str, b: str, games: int, a_fools: int, draws: int = 0) -> dict:
    return {"a": a, "b": b, "games": games, "a_fools": a_fools, "b_fools": games - a_fools - draws, "draws": draws}


def test_every_bot_meets_random_and_its_neighbours_and_each_rung_the_one_below():
    bots = ["random", "easy", "heuristic", "search:mcts:100", "search:mcts:1000", "search:mcts:100000"]
    got = pairings(bots)
    assert len(got) == len({frozenset(p) for p in got})  # each pair once
    assert {(b, ANCHOR) for b in bots[1:]} <= set(got)
    assert ("heuristic", "easy") in got and ("search:mcts:100", "easy") in got  # the two neighbours below
    assert ("search:mcts:1000", "easy") not in got  # three places apart
    # The seconds-a-move rung meets random and the rung below it, nobody else.
    slowest = [p for p in got if "search:mcts:100000" in p]
    assert sorted(slowest) == [("search:mcts:100000", "random"), ("search:mcts:100000", "search:mcts:1000")]


def test_the_shipped_ladder_keeps_its_slowest_rungs_out_of_the_neighbours():
    got = pairings(LADDER)
    for bot in SLOWEST & set(LADDER):
        partners = {b for p in got if bot in p for b in p} - {bot}
        below = max((b for b in LADDER if b.startswith("search:mcts:") and b.split(":")[2].isdigit()
                     and int(b.split(":")[2]) < int(bot.split(":")[2])), key=lambda b: int(b.split(":")[2]))
        assert partners == {ANCHOR, below}


def test_games_a_pairing_follow_the_slowest_bot_and_are_even():
    assert pairing_games("easy", "random", 200, 40, 20) == 200
    assert pairing_games("search:net:1s", "random", 200, 40, 20) == 40
    assert pairing_games("search:mcts:100000", "search:mcts:10000", 200, 40, 20) == 20
    assert pairing_games("search:mcts:100000", "random", 200, 40, 20) == 10
    assert pairing_games("search:mcts:100000", "random", 200, 40, 22) == 10  # 11 rounded down to duplicate deals


def test_the_fit_recovers_the_elo_gap_of_the_share_of_games():
    # 10:1 odds are 400 points; the anchor stays at 1000 and a draw counts half to each side.
    rows = [row("a", "random", 1100, a_fools=100), row("b", "a", 1000, a_fools=400, draws=200)]
    ratings = fit(rows)
    assert ratings["random"] == (1000, 0)
    assert ratings["a"][0] == pytest.approx(1400, abs=0.5)
    assert ratings["b"][0] == pytest.approx(1400, abs=0.5)  # 400 + half of 200 of 1,000: an even share
    assert 0 < ratings["a"][1] < ratings["b"][1]  # b is known only through a: the wider interval


def test_the_fit_needs_the_anchor():
    with pytest.raises(ValueError, match="anchor"):
        fit([row("a", "b", 10, a_fools=5)])


def test_a_pairing_played_with_a_policy_shipped_before_no_longer_counts(tmp_path):
    rows = [row("trained", "random", 10, 0), row("search:net:30ms", "random", 10, 0),
            row("search:endgame", "random", 10, 0), row("search:model:30ms", "random", 10, 0),
            row("trained:podkidnoy-0.2", "random", 10, 0), row("heuristic", "random", 10, 1)]
    for r in rows[:4]:
        r["policy"] = "old"
    log = tmp_path / "ladder.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # A kept version and the bots without a policy stay; the shipped policy's pairings (trained and every search
    # it guides) count under their policy.
    assert [r["a"] for r in played(log, "new")] == ["trained:podkidnoy-0.2", "heuristic"]
    assert [r["a"] for r in played(log, "old")] == [r["a"] for r in rows]
    assert played(tmp_path / "none.jsonl", "new") == []


def test_at_a_larger_table_the_fit_recovers_the_gap_from_the_places_alone():
    """Plackett-Luce from placings: with the first bot 200 points above the other at one seat of four, its
    expected share of each place gives back 200 points (and nothing but the places is read)."""
    n, r, games = 4, 10 ** (200 / 400), 100_000
    share, left = [], 1.0
    for k in range(1, n + 1):
        m = n - k
        share.append(left * r / (r + m))
        left *= m / (r + m)
    counts = [games * p for p in share]
    rows = [{"a": "strong", "b": "random", "games": games, "a_places": counts, "a_fools": 0, "b_fools": 0, "draws": 0}]
    ratings = fit(rows)
    assert ratings["strong"][0] == pytest.approx(1200, abs=0.5)
    flat = [{**rows[0], "a_places": [games / n] * n}]  # every place alike: even
    assert fit(flat)["strong"][0] == pytest.approx(1000, abs=0.5)


def test_a_larger_tables_pairing_keeps_the_first_bots_places():
    from ladder import play_pair, table_rules

    rules = table_rules("tournament-4")
    row = play_pair("heuristic", "random", 8, 3, "digest", rules=rules)
    assert rules.num_players == 4 and sum(row["a_places"]) == row["games"] == 8
    assert row["a_places"][-1] == row["a_fools"]  # last place is the fool
