"""benchmarks/equal_time.py: a match counts only the batches of the policy shipped now, searched on this engine;
benchmarks/search_time.py, which asks whether more time changes the search's move; benchmarks/hidden_value.py, which
asks how much of a deal's result the hidden cards explain."""

import json
import sys
from pathlib import Path

import pytest
import torch

from baselines import shipped_bot
from baselines.policy_file import bot_digest
from durak_env import Rules
from durak_env.observation import observation_slices

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from equal_time import MATCHES, SEARCH, batches, main, replay_of, report, summary  # noqa: E402


def batch(policy: str, a_fools: int, games: int = 20) -> dict:
    return {"match": "1ms", "batch": 0, "games": games, "a_fools": a_fools, "b_fools": games - a_fools, "draws": 0,
            "a_ms": 0.1, "b_ms": 1.0, "seconds": 1.0, "policy": policy, "search": SEARCH}


def test_only_the_shipped_policys_batches_count(tmp_path):
    now = bot_digest(shipped_bot(Rules.preset("podkidnoy")))
    log = tmp_path / "equal_time.jsonl"
    rows = [batch("0123456789abcdef", a_fools=20), batch(now, a_fools=2), {**batch(now, a_fools=4), "policy": None}]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = summary("1ms", batches(log))
    assert s["games"] == 20 and s["share"] == 0.9  # the other policy's 20 fools are not this policy's
    assert batches(tmp_path / "none.jsonl") == []


def test_a_batch_searched_on_another_engine_does_not_count():
    """The native search buys many times the playouts in a millisecond: a batch against the compiled Python one
    (the rows before the native engine name none) is another match."""
    now = bot_digest(shipped_bot(Rules.preset("podkidnoy")))
    other = "python" if SEARCH == "native" else "native"
    rows = [batch(now, a_fools=2), {**batch(now, a_fools=10), "search": other}]
    older = {k: v for k, v in batch(now, a_fools=6).items() if k != "search"}
    s = summary("1ms", rows + ([older] if SEARCH == "native" else []))
    assert s["games"] == 20 and s["share"] == 0.9


def test_a_larger_tables_match_counts_its_own_familys_policy_and_bounds_the_fool_rate_by_its_seats():
    match = MATCHES["tournament-4-1ms"]
    assert match.bots == ["trained"] + ["search:mcts:1ms"] * 3 and match.rules.num_players == 4
    assert match.target == 1 - 0.5 / 4 and MATCHES["perevodnoy-6-1s"].target == 1 - 0.7 / 6
    assert MATCHES["podkidnoy-5-30ms"].rules.deck_size == 52
    family = bot_digest(shipped_bot(Rules.preset("tournament", num_players=4)))
    podkidnoy = bot_digest(shipped_bot(Rules.preset("podkidnoy")))
    rows = [{**batch(family, a_fools=3), "match": "tournament-4-1ms"},
            {**batch(podkidnoy, a_fools=9), "match": "tournament-4-1ms"}]
    s = summary("tournament-4-1ms", rows)
    assert s["games"] == 20 and s["share"] == 0.85 and s["seats"] == 4


def test_a_fool_match_that_would_replay_the_plain_one_is_refused_and_marked(tmp_path, capsys):
    """``:fool`` pays the search the fool's stake; where the table's bot was trained for it (its file's reward) the
    plain search is paid it already, so the match is the plain one again: asked for, it is refused and plays
    nothing, and in the report it names the match it repeats."""
    assert replay_of("tournament-4-fool-1s") == "tournament-4-1s"  # tournament.onnx: reward fool
    assert replay_of("perevodnoy-6-fool-30ms") is None  # perevodnoy-6.onnx names no reward: placings
    assert replay_of("tournament-4-1s") is None and replay_of("30ms") is None
    out = tmp_path / "et"
    with pytest.raises(SystemExit) as stopped:
        main(["--match", "tournament-4-fool-30ms", "--batch", "2", "--out", str(out)])
    assert stopped.value.code == 2 and "play --match tournament-4-30ms" in capsys.readouterr().err
    assert not (tmp_path / "et.jsonl").exists() and not (tmp_path / "et.md").exists()
    family = bot_digest(shipped_bot(MATCHES["tournament-4-1s"].rules))
    rows = [{**batch(family, a_fools=1), "match": name} for name in ("tournament-4-fool-1s", "perevodnoy-6-fool-1s")]
    rows[1]["policy"] = bot_digest(shipped_bot(MATCHES["perevodnoy-6-1s"].rules))
    table = report(rows)
    assert "| tournament-4-fool-1s (the search of tournament-4-1s) |" in table
    assert "| perevodnoy-6-fool-1s | search:net:1s:fool |" in table


def test_search_time_counts_how_often_a_longer_search_keeps_its_move(capsys):
    import search_time

    assert search_time.main(["--positions", "3", "--short", "0.01", "--long", "0.02"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:3]] == ["position 0", "position 1", "position 2"]
    assert "choose the same move in" in out[3] and out[3].count(" of 3") == 2
    assert search_time.main(["--positions", "0", "--short", "0.002", "--games", "4", "--explore", "0.5"]) == 0
    match = capsys.readouterr().out
    assert "explore 0.5 against 0 at 0.002 s a move: not the fool in" in match and "of 4 games" in match
    assert search_time.main(["--positions", "4", "--targets", "40"]) == 0
    own = capsys.readouterr().out
    assert "at 40 playouts (explore 0) the search's move is the policy's own in" in own and "of 4 positions" in own
    with pytest.raises(SystemExit) as stop:
        search_time.main(["--short", "2", "--long", "1"])
    assert stop.value.code == 2


def test_hidden_value_keeps_the_hidden_cards_and_fits_one_critic_with_them_and_one_without(capsys):
    import hidden_value
    import numpy as np

    rules = Rules()
    policy = hidden_value.load_bot(shipped_bot(rules), rules=rules)
    data = hidden_value.self_play(policy, 12, seed=3, explore=0.1)
    # the hidden planes of a 2-player row are the other hand's cards (as many as its size in the observation), then
    # the stock's
    other, stock = data["hidden"][:, :36].sum(1), data["hidden"][:, 36:].sum(1)
    sizes = data["obs"][:, observation_slices(rules)["hand_sizes"]] * 36
    assert (stock == data["stock"]).all() and np.array_equal(other, sizes[:, 1].round()) and other.max() > 1
    assert set(np.unique(data["result"])) <= {-1.0, 0.0, 1.0} and len(set(data["deal"])) == 12
    train = data["deal"] < 10
    seeing, blind = (hidden_value.fit(data, train, see, 1, seed=0) for see in (True, False))
    with torch.no_grad():
        obs, cards = torch.from_numpy(data["obs"][~train]), torch.from_numpy(data["hidden"][~train])
        assert not torch.allclose(seeing(obs, cards), blind(obs, torch.zeros(cards.shape)))
        # the hidden planes' weights: learnt by the critic that sees them, at their start in the blind one
        torch.manual_seed(0)
        fresh = type(blind)(obs.shape[1], cards.shape[1], [256, 256]).trunk[0].weight[:, obs.shape[1]:]
        assert torch.equal(blind.trunk[0].weight[:, obs.shape[1]:], fresh)
        assert not torch.equal(seeing.trunk[0].weight[:, obs.shape[1]:], fresh)
    assert hidden_value.main(["--games", "40"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("hidden_value: ") and table[1].startswith("| cards in the stock |")
    rows = {line.split(" | ")[0][2:]: int(line.split(" | ")[1]) for line in table[3:]}
    assert "all" in rows and sum(n for band, n in rows.items() if band != "all") == rows["all"]
    with pytest.raises(SystemExit) as stop:
        hidden_value.main(["--games", "3"])
    assert stop.value.code == 2
