"""benchmarks/families.py: how a shipped bot is compared with the search levels at one table."""

import sys
from pathlib import Path

from baselines import make_bot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from families import FAMILIES, SEARCH, beats_every_search_level, never_met, seat_against  # noqa: E402


def test_the_other_seats_fool_rate_is_theirs_not_the_candidates():
    row = seat_against("random", "heuristic", FAMILIES["tournament"], games=16, seed=3)
    # Four seats: random is the fool far more often than its share, so each HeuristicBot far less.
    assert row["games"] == 16 and row["fool_rate"] > 0.25 > row["others_fool_rate"]
    assert abs(row["fool_rate"] + 3 * row["others_fool_rate"] - 1) < 1e-9  # every game has one fool, no draws here
    assert row["cut_off"] == 0


def test_every_search_level_must_be_played_and_beaten():
    beaten = [{"against": level, "better": True} for level in SEARCH]
    assert beats_every_search_level(beaten)
    assert not beats_every_search_level(beaten[:-1])  # search:strong not played
    assert not beats_every_search_level(beaten[:-1] + [{"against": SEARCH[-1], "better": False}])
    assert not beats_every_search_level([{"against": "random", "better": True}])


def test_never_met_is_read_from_the_bot_file():
    meta = make_bot("trained:perevodnoy-0.2").metadata  # trained against heuristic and easy, taught by search:fast
    assert meta["teacher"] == "search:fast"
    assert not never_met(meta, "search:fast") and not never_met(meta, "heuristic") and not never_met(meta, "easy")
    assert never_met(meta, "search:medium") and never_met(meta, "search:strong") and never_met(meta, "random")
