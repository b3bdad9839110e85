"""The four tutorials run: each page shows its script whole (``--8<--``, MkDocs' snippets), and each script runs here
on its small settings (``--tiny``), so that none can go stale.  The figures a page quotes from a full run are in
that run's record (``docs/tutorials/record.py``), and the record is of the script as it is."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "docs" / "tutorials"
sys.path.insert(0, str(TUTORIALS))
from record import RECORDED, record_path  # noqa: E402
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


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
MARKER = re.compile(r"<!-- figures: (\S+) -->\n(.+?)(?:\n\n|\Z)", re.S)
"""A paragraph whose figures come from a record: ``<!-- figures: ladder_bot.py -->`` on the line before it."""


def test_each_quoted_figure_is_in_the_full_run_the_page_names():
    """Every number in a marked paragraph (a result, an interval, a rating, the run's time, the games) is in the
    record of that script's full run, and the paragraph gives the record's command: a page cannot keep a figure of
    an older run, and a record cannot go unquoted."""
    quoted = set()
    for page in SCRIPTS:
        for script, paragraph in MARKER.findall((TUTORIALS / page).read_text()):
            record = record_path(script).read_text()
            assert record.startswith(f"$ {RECORDED[script]}\n") and RECORDED[script] in paragraph, (page, script)
            have = {n.replace(",", "") for n in NUMBER.findall(record)}  # 1,000 on the page is 1000 there
            missing = [n for n in NUMBER.findall(paragraph)
                       if n.replace(",", "") not in have and n not in RECORDED[script]]
            assert not missing, f"{page} quotes {missing}, which the full run of {script} did not print"
            quoted.add(script)
    assert quoted == set(RECORDED)


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
    if script in RECORDED:  # the record is of this script: each line it prints has its shape there
        record = {shape(line) for line in record_path(script).read_text().splitlines()}
        lines = [shape(line) for line in proc.stdout.splitlines() if line.strip()]
        assert lines and [line for line in lines if line not in record] == []


def shape(line: str) -> str:
    """A printed line with its figures (signed or not), temporary paths and column padding taken out."""
    return " ".join(re.sub(r"[+-]?" + NUMBER.pattern, "#", re.sub(r"/tmp/\S+", "TMP", line)).split())
