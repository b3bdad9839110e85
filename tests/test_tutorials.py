"""The four tutorials (issue 44) run: each page shows its script whole (``--8<--``, MkDocs' snippets), and each
script runs here on its small settings (``--tiny``), so that none can go stale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "docs" / "tutorials"
SCRIPTS = {"first-bot.md": "first_bot.py", "ladder.md": "ladder_bot.py", "sb3.md": "sb3_bot.py",
           "browser.md": "browser_bot.py"}
"""Each tutorial page and the script it runs."""


def test_each_page_shows_its_script_and_is_in_the_site():
    config = (ROOT / "mkdocs.yml").read_text()
    for page, script in SCRIPTS.items():
        text = (TUTORIALS / page).read_text()
        assert f'--8<-- "docs/tutorials/{script}"' in text, page
        assert f"tutorials/{page}" in config, page
    assert sorted(p.name for p in TUTORIALS.glob("*.md")) == sorted(SCRIPTS)


@pytest.mark.parametrize("script", sorted(SCRIPTS.values()))
def test_tutorial_runs(script, tmp_path):
    for folder in ("configs", "benchmarks"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TUTORIALS)])}
    proc = subprocess.run([sys.executable, str(TUTORIALS / script), "--tiny"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = {"first_bot.py": r"trained: .*bot\.onnx", "ladder_bot.py": r"py:lowest_card\.LowestCardBot \| \d+",
            "sb3_bot.py": r"maskable_ppo .* search:fast", "browser_bot.py": r"the deal is over: you are"}[script]
    assert re.search(said, proc.stdout, re.S), proc.stdout[-2000:]
