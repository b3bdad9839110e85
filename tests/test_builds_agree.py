"""tests/builds_agree.py, which CI runs against the compiled wheel and the source (.ci/wheel-test): its digests
are reproducible, cover every preset at every table size, and a single differing game is caught by name."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("builds_agree.py")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_the_digests_repeat_and_one_changed_game_is_named(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(str(a)).returncode == 0 and run(str(b)).returncode == 0
    agree = run("--compare", str(a), str(b))
    assert agree.returncode == 0 and "agree on" in agree.stdout, agree.stderr
    games = json.loads(a.read_text())["games"]
    from durak_env import Rules

    assert {k.split("/")[0] for k in games} == set(Rules.presets())
    assert {int(k.split("/")[1]) for k in games} == {2, 3, 4, 5, 6}
    tampered = json.loads(b.read_text())
    name = sorted(games)[7]
    tampered["games"][name] = "0" * 64  # the control: one game played differently
    b.write_text(json.dumps(tampered))
    differ = run("--compare", str(a), str(b))
    assert differ.returncode == 1 and f"first {name}" in differ.stderr
    assert run().returncode == 2
