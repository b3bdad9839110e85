"""benchmarks/equal_time.py: a match counts only the batches of the policy shipped now."""

import json
import sys
from pathlib import Path

from baselines import shipped_bot
from baselines.policy_file import bot_digest
from durak_env import Rules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from equal_time import batches, summary  # noqa: E402


def batch(policy: str, a_fools: int, games: int = 20) -> dict:
    return {"match": "1ms", "batch": 0, "games": games, "a_fools": a_fools, "b_fools": games - a_fools, "draws": 0,
            "a_ms": 0.1, "b_ms": 1.0, "seconds": 1.0, "policy": policy}


def test_only_the_shipped_policys_batches_count(tmp_path):
    now = bot_digest(shipped_bot(Rules.preset("podkidnoy")))
    log = tmp_path / "equal_time.jsonl"
    rows = [batch("0123456789abcdef", a_fools=20), batch(now, a_fools=2), {**batch(now, a_fools=4), "policy": None}]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mine = batches(log, now)
    assert mine == [rows[1]]
    s = summary("1ms", mine)
    assert s["games"] == 20 and s["share"] == 0.9  # the other policy's 20 fools are not this policy's
    assert batches(tmp_path / "none.jsonl", now) == []

