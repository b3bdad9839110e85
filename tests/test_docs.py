"""The README and the documentation site (issue 44): the README stays short with its two set-up commands, the site
builds with warnings as errors, and every code block of both runs.

Python blocks run as they are, each in a fresh interpreter.  Shell blocks hold commands: every ``durak`` command
is parsed by the ``durak`` command's own parser (a wrong option or subcommand fails here) and every file of the
repository it names must exist; every ``python -m training...``, ``python benchmarks/...`` and ``python
docs/tutorials/...`` command is parsed by its script's own parser (``--help`` after its arguments); the README's two set-up commands are what CI runs
(``.ci/run``).  Any other line must name a program of another project (``pip``, ``ray``...), listed below, so that
no line goes unchecked by accident.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
OTHER_PROGRAMS = {"pip", "sh", "ray", "tensorboard", "npm"}
OTHER_MODULES = {"pip", "pytest", "http.server"}
"""Commands of other projects (programs, and modules run with ``python -m``) that the docs show and these tests
do not run."""
PATHS = re.compile(r"^(configs|baselines/bots|benchmarks|training|docs)/[\w./-]+$")
"""An argument that names a file of the repository."""


def blocks(language: str) -> list[tuple[str, str]]:
    """(page, code) for every fenced block of ``language`` in the README and the docs."""
    found = []
    for page in PAGES:
        for lang, code in re.findall(r"```(\w*)\n(.*?)```", page.read_text(), re.S):
            if lang == language:
                found.append((str(page.relative_to(ROOT)), code))
    return found


def commands() -> list[tuple[str, list[str]]]:
    """(page, words) for every command line of every shell block, comments dropped; ``a && b`` is two."""
    out = []
    for page, code in blocks("bash"):
        for line in code.splitlines():
            words = shlex.split(line, comments=True)
            while words:
                cut = words.index("&&") if "&&" in words else len(words)
                out.append((page, words[:cut]))
                words = words[cut + 1:]
    return out


def test_the_readme_is_short_and_keeps_its_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        from readme_commands import setup_commands
    finally:
        sys.path.remove(str(ROOT / ".ci"))
    found = setup_commands(text)
    assert found["main"].endswith("durak train --config configs/default.yaml")
    assert found["tests"].endswith("python3 -m pytest -q")


def test_every_page_of_the_site_is_in_its_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    for page in PAGES[1:]:
        assert str(page.relative_to(ROOT / "docs")) in config, f"{page} is not in mkdocs.yml's nav"
    for name in ("environments/aec.md", "environments/gymnasium.md", "environments/vector.md",
                 "environments/selfplay.md", "environments/openspiel.md", "rules.md", "bots.md", "training.md",
                 "playing.md", "integrations.md", "performance.md", "reliability.md", "architecture.md",
                 "contributing.md", "api.md"):
        assert (ROOT / "docs" / name).is_file(), name


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "make_bot" in api and "SelfPlayVectorEnv" in api  # the reference is generated from the docstrings


@pytest.mark.parametrize("page, code", blocks("python"), ids=lambda v: v if v.endswith(".md") else "")
def test_python_block_runs(page, code, tmp_path):
    included = re.fullmatch(r'--8<-- "(.+)"\n', code)
    if included:  # a tutorial's script shown whole: tests/test_tutorials.py runs it
        assert (ROOT / included.group(1)).is_file() and page.startswith("docs/tutorials/"), page
        return
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, f"{page}:\n{code}\n{proc.stderr[-3000:]}"


@pytest.mark.parametrize("page, words", commands(), ids=lambda v: v if isinstance(v, str) else " ".join(v)[:60])
def test_shell_command_is_valid(page, words):
    from frontends.cli import build_parser

    while "=" in words[0]:  # VAR=value before the command
        words = words[1:]
    program = words[0]
    if program == "durak":
        build_parser().parse_args(words[1:])  # argparse exits 2 on a bad option: the test fails
        for word in words[1:]:
            if PATHS.match(word) and "<" not in word and "..." not in word:
                assert (ROOT / word).exists(), f"{page}: {' '.join(words)} names {word}, which is not here"
    elif program in ("python", "python3") and (words[1:2] == ["-m"] and words[2].startswith("training.")
                                               or words[1].startswith(("benchmarks/", "docs/tutorials/"))):
        proc = subprocess.run([sys.executable, *words[1:], "--help"], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, f"{page}: {' '.join(words)}\n{proc.stderr[-2000:]}"
    elif program in ("python", "python3") and words[1] == "-m" and words[2] in OTHER_MODULES:
        pass  # another project's (the set-up commands: .ci/run runs them as the README writes them)
    else:
        assert program in OTHER_PROGRAMS, f"{page}: {' '.join(words)}: a command no test checks"
