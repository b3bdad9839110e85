"""benchmarks/families.py: how a shipped bot is compared with the search levels at one table."""

import sys
from pathlib import Path

from baselines import make_bot
from durak_env import Rules

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


def test_a_new_shipped_bot_replays_its_own_rows_and_keeps_the_baselines(tmp_path):
    """``--trained-only`` (a new shipped bot): the trained bot's rows new, every baseline's row as the last full run
    left it; refused before anything is played unless that run had the same settings."""
    import json
    import subprocess

    from families import with_old_baselines

    old = {"family": "tournament", "command": "python benchmarks/families.py --family tournament --games 8",
           "minutes": 4, "at_the_table": [{"against": "random", "fool_rate": 0.1}],
           "rows": [{"candidate": "trained", "fool_rate": 0.2}, {"candidate": "heuristic", "fool_rate": 0.25}]}
    new = {"family": "tournament", "command": "... --trained-only", "minutes": 1, "workers": 1,
           "rows": [{"candidate": "trained", "fool_rate": 0.05}],
           "at_the_table": [{"against": "random", "fool_rate": 0.0}]}
    kept = with_old_baselines(new, old)
    assert kept["rows"] == [{"candidate": "trained", "fool_rate": 0.05}, {"candidate": "heuristic", "fool_rate": 0.25}]
    assert kept["at_the_table"] == new["at_the_table"]
    assert (kept["command"], kept["trained_command"], kept["trained_minutes"]) == (old["command"], new["command"], 1)
    assert (kept["workers"], kept["trained_workers"]) == (2, 1)  # each run says how many processes played it

    out = tmp_path / "families"
    (tmp_path / "families.json").write_text(json.dumps({"families": {"tournament": old}}))
    before = (tmp_path / "families.json").read_text()
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "families.py"), "--family", "tournament",
                          "--games", "16", "--trained-only", "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 2 and "give the same --games" in run.stderr  # 8 games then, 16 now
    assert (tmp_path / "families.json").read_text() == before and not (tmp_path / "families.md").exists()


def test_every_table_a_specialist_ships_for_is_a_family_named_by_its_bot():
    assert FAMILIES == {"podkidnoy": Rules.preset("podkidnoy"), "perevodnoy": Rules.preset("perevodnoy"),
                        "after-beaten-transfer": Rules.preset("after-beaten-transfer", num_players=3),
                        "tournament": Rules.preset("tournament", num_players=4),
                        "podkidnoy-5": Rules.preset("podkidnoy", num_players=5, deck_size=52),
                        "perevodnoy-6": Rules.preset("perevodnoy", num_players=6, deck_size=52)}
