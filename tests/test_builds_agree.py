"""tests/builds_agree.py, which CI runs on the wheel's native engine and its reference (.ci/wheel-test): its digests
are reproducible, cover every preset at every table size, and a single differing game is caught by name."""

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("builds_agree.py")


def run(*args: str, pure: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "DURAK_PURE_PYTHON": "1"} if pure else {k: v for k, v in os.environ.items()
                                                                 if k != "DURAK_PURE_PYTHON"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, env=env)


def test_the_digests_repeat_and_one_changed_game_is_named(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(str(a)).returncode == 0 and run(str(b), pure=True).returncode == 0
    agree = run("--compare", str(a), str(b))
    assert agree.returncode == 0 and "agree on" in agree.stdout, agree.stderr
    assert json.loads(b.read_text())["build"] == "python"  # the reference, whatever engine ``a`` played on
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
