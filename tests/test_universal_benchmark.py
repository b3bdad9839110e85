"""benchmarks/universal.py: a table's row counts only beside the specialist shipped now for it (the tournament
specialist 0.3 shipped after the universal bot's rows were played, and its table kept the 0.2 figure)."""

import sys
from pathlib import Path

from baselines import shipped_bot
from baselines.policy_file import bot_digest
from durak_env import Rules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from universal import still_counts  # noqa: E402

BOT = "0123456789abcdef"


def row(rules: Rules, **extra) -> dict:
    return {"table": "t", "rules": rules.to_dict(), "bot": BOT, "games": 3000, **extra}


def test_a_row_counts_beside_the_specialist_shipped_now_only():
    rules = Rules.preset("tournament", num_players=4)
    now = bot_digest(shipped_bot(rules))
    assert still_counts(row(rules, specialist={"digest": now}), BOT, 3000)
    assert not still_counts(row(rules, specialist={"digest": "fedcba9876543210"}), BOT, 3000)  # shipped before
    assert not still_counts(row(rules, specialist={"file": "tournament.onnx"}), BOT, 3000)  # names no digest
    assert not still_counts(row(rules, specialist={"digest": now}), "another bot's0", 3000)
    assert not still_counts(row(rules, specialist={"digest": now}), BOT, 1000)


def test_a_table_without_a_specialist_needs_none():
    assert still_counts(row(Rules.preset("attacker-only", num_players=3)), BOT, 3000)
