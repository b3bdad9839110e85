"""The soak (benchmarks/soak.py) at CI size, and a planted violation that it must report."""

import sys
from pathlib import Path

from durak_env import Rules

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def test_soak_ci_run_finds_no_violation():
    """The CI-sized soak: 10,000 checked games over presets and random rules on both cores."""
    import soak

    out = soak.soak(10_000, workers=2, progress=False)
    assert out["games"] == 10_000 and out["steps"] > 1_000_000
    assert out["rule_sets"] > 1000
    assert out["violations"] == [], out["violations"][:3]


def test_soak_reports_a_violation_with_what_reproduces_it(monkeypatch):
    import soak

    def broken(game):
        if game.bouts == 3:
            raise AssertionError("planted")

    monkeypatch.setattr(soak, "check_invariants", broken)
    games, steps, violations, _ = soak.run_chunk((0, 20))
    assert games == 20 and violations
    v = violations[0]
    assert "planted" in v["problem"] and Rules.from_dict(v["rules"]) == soak.rules_for(v["seed"])
