"""The evaluator: numbers add up, duplicate deals are the same decks, outputs and CLI."""

import json

import pytest

from baselines.evaluate import evaluate, write_outputs
from durak_env import Rules
from frontends.cli import main


def test_small_tournament_adds_up():
    report = evaluate(["heuristic", "random"], Rules(), games=60, seed=3, workers=1)
    assert report.games == 60 and report.deals == 30
    for rec in report.records:
        n_fools = sum(1 for p in rec.placings if p == 2 and rec.fool_seat is not None)
        assert (rec.fool_seat is None) or n_fools == 1
    fools = sum(s.fools for s in report.stats)
    draws = sum(1 for r in report.records if r.fool_seat is None)
    assert fools + draws == report.games
    for s in report.stats:
        assert s.games == 60 and s.fool_ci[0] <= s.fool_rate <= s.fool_ci[1]
    assert report.head_to_head["a_not_fool"] == pytest.approx(1 - report.stats[0].fool_rate)


def test_a_rate_that_never_varied_still_has_an_interval_of_its_own():
    """search:strong never the fool in 60 games at a 3-seat table was reported as 0.000 [0.000, 0.000]: the
    spread over decks was zero.  0 (or 1) on every deck gets the Wilson interval over the decks; a mirror
    match's 0.5 on every deck is exact and keeps its point."""
    from baselines.evaluate import _rate_ci

    assert _rate_ci([0.0] * 20) == (0.0, (0.0, pytest.approx(1.96 ** 2 / (20 + 1.96 ** 2))))
    assert _rate_ci([1.0] * 20) == (1.0, (pytest.approx(20 / (20 + 1.96 ** 2)), 1.0))
    assert _rate_ci([0.5] * 20) == (0.5, (0.5, 0.5))
    assert _rate_ci([0.0, 0.5, 0.0, 0.0])[1] == (0.0, pytest.approx(0.125 + 1.96 * 0.25 / 2))
    report = evaluate(["heuristic", "random"], Rules(), games=10, seed=1, workers=1)
    for s in report.stats:
        assert s.fool_ci[0] <= s.fool_rate <= s.fool_ci[1] and (s.fool_ci[1] > 0 and s.fool_ci[0] < 1)


def test_duplicate_deals_replay_the_same_deck_with_seats_rotated():
    report = evaluate(["heuristic", "easy", "random"], Rules(num_players=3), games=30, seed=2, workers=1)
    by_deal = {}
    for rec in report.records:
        by_deal.setdefault(rec.deal, []).append(rec)
    decks = set()
    for recs in by_deal.values():
        assert len(recs) == 3 and len({r.deck for r in recs}) == 1
        assert sorted(r.bots for r in recs) == sorted([(0, 1, 2), (1, 2, 0), (2, 0, 1)])
        decks.add(recs[0].deck)
    assert len(decks) == len(by_deal)  # and different deals are different decks
    assert all(s.rating is not None for s in report.stats)


def test_more_bots_than_seats_play_every_pairing():
    report = evaluate(["heuristic", "easy", "random"], Rules(), games=30, seed=2, workers=1)
    assert {r.bots for r in report.records} >= {(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)}


def test_two_workers_give_the_same_results():
    one = evaluate(["heuristic", "easy"], Rules(), games=40, seed=9, workers=1)
    two = evaluate(["heuristic", "easy"], Rules(), games=40, seed=9, workers=2)
    assert one.records == two.records


def test_outputs(tmp_path):
    report = evaluate(["heuristic", "random"], Rules(), games=20, seed=1, workers=1)
    write_outputs(report, tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["stats"][0]["name"] == "heuristic"
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 1 + 2 * 20
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_eval_cli_prints_the_table(capsys, tmp_path):
    assert main(["eval", "heuristic", "random", "--games", "10", "--quiet", "--workers", "1",
                 "--json", str(tmp_path / "x.json")]) == 0
    out = capsys.readouterr().out
    assert "fool rate" in out and "head to head" in out


def test_fewer_bots_than_seats_repeat_around_the_table():
    report = evaluate(["heuristic", "random"], Rules(num_players=4), games=8, seed=1, workers=1)
    assert {r.bots for r in report.records} == {(0, 1, 0, 1), (1, 0, 1, 0)}
    assert report.games == 8 and all(s.games == 16 for s in report.stats)


def test_a_bot_given_at_several_seats_is_named_by_each_place():
    report = evaluate(["random", "heuristic", "heuristic"], Rules(num_players=3), games=3, seed=1, workers=1)
    assert [s.name for s in report.stats] == ["random", "heuristic#1", "heuristic#2"]
    assert "heuristic#2" in report.table()


def test_score_intervals_stay_within_the_rewards_range():
    """Rewards lie in [-1, 1]; the SB3 snippet printed a score interval of [-1.061, -0.539]."""
    report = evaluate(["heuristic", "random"], Rules(), games=20, seed=5, workers=1)
    random_bot = report.stats[1]
    assert random_bot.score == pytest.approx(-0.9)  # mean - 1.96 se is below -1 here: the interval is clipped
    assert random_bot.score_ci[0] == -1.0 and 2 * random_bot.score - random_bot.score_ci[1] < -1.0
    for s in report.stats:
        assert -1.0 <= s.score_ci[0] <= s.score <= s.score_ci[1] <= 1.0


def test_one_definition_of_a_draw():
    """A draw is a deal without a fool, the bout cap's ties included; the table and head to head agree."""
    rules = Rules.preset("tournament", max_bouts=3)  # the cap ends most deals, some with a tie on most cards
    report = evaluate(["heuristic", "random"], rules, games=200, seed=4, workers=1)
    capped_ties = [r for r in report.records if r.capped and r.fool_seat is None]
    assert capped_ties, "no capped tie to count"
    draws = sum(r.draw for r in report.records)
    assert report.head_to_head["draws"] == draws
    assert all(s.draws == draws for s in report.stats)


def test_a_killed_evaluation_worker_costs_no_game_and_no_result(tmp_path):
    """Issue 15: SIGKILL an evaluator worker during ``durak eval``: its decks are played again in a new pool
    (seeded decks give the same games), the report says so, and the numbers equal an undisturbed run."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    games = 10_000  # enough that the evaluation is still running when a worker is killed, however fast the machine
    argv = [sys.executable, "-m", "frontends", "eval", "heuristic", "easy", "--games", str(games), "--workers", "2",
            "--quiet", "--json"]
    proc = subprocess.Popen(argv + [str(tmp_path / "killed.json")], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    workers = []
    for _ in range(200):
        found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        workers = [int(p) for p in found if "resource_tracker" not in Path(f"/proc/{p}/cmdline").read_text()]
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    time.sleep(0.2)  # the workers have started playing
    assert proc.poll() is None, "the evaluation ended before a worker could be killed"
    os.kill(workers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    assert "note: a worker died" in out and "were played again" in out
    calm = subprocess.run(argv + [str(tmp_path / "calm.json")], cwd=root, capture_output=True, text=True, timeout=600)
    killed, whole = json.loads((tmp_path / "killed.json").read_text()), json.loads((tmp_path / "calm.json").read_text())
    assert killed["games"] == whole["games"] == games
    assert [s["fool_rate"] for s in killed["stats"]] == [s["fool_rate"] for s in whole["stats"]]


def test_a_deal_that_never_ends_is_a_draw_not_a_crash(monkeypatch):
    """Two bots can pass cards back and forth for ever (in perevodnoy, a policy that always transfers
    against one that always takes): the deal is cut off at the move limit and counts as a draw with
    reward 0, as the environments truncate it, and the report says how many were cut off.  It used to
    raise and end a training run at its first evaluation."""
    import baselines.evaluate as ev

    monkeypatch.setattr(ev, "MOVE_LIMIT", 30)  # every deal is longer than this
    report = ev.evaluate(["heuristic", "random"], Rules.preset("perevodnoy"), games=20, workers=1)
    assert report.games == 20 and all(r.cut_off and r.draw for r in report.records)
    assert all(s.draws == 20 and s.fools == 0 and s.score == 0 for s in report.stats)
    assert any("20 of 20 games did not end within 30 moves" in note for note in report.notes)
    assert "did not end within" in report.table()


def _sleep(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


def test_a_stopped_pool_is_gone_before_the_interpreter_exits():
    """Ctrl-C in eval once printed "Exception ignored ... Bad file descriptor" at exit (Python 3.11): the pool's
    own thread was still closing its wake-up pipe when the exit's wake-up call wrote to it.  Stopping a pool
    now waits for that thread, so nothing of it is left for the exit to race."""
    from concurrent.futures import ProcessPoolExecutor

    from baselines.evaluate import _stop

    pool = ProcessPoolExecutor(2)
    futures = [pool.submit(_sleep, 30) for _ in range(2)]
    manager = pool._executor_manager_thread
    assert manager.is_alive()
    _stop(pool)
    assert not manager.is_alive() and all(f.done() for f in futures)
