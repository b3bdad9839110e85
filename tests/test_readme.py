"""Every Python snippet of the README's "The environment" and "Use with your library" sections runs (issue 5)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def snippets(section: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)


SNIPPETS = snippets("Use with your library")
EXAMPLES = snippets("The environment")


def library(code: str) -> str:
    for needle, name in (("MaskablePPO", "sb3"), ("rllib", "rllib"), ("pyspiel", "openspiel"), ("gymnasium", "gymnasium")):
        if needle in code:
            return name
    return "other"


def test_the_environment_section_shows_the_aec_loop_the_engine_and_the_vector_env():
    joined = "\n".join(EXAMPLES)
    for needle in ("durak_env.env(", "Game(", "DurakVectorEnv(", "SelfPlayVectorEnv("):
        assert needle in joined


def test_section_has_a_snippet_per_library():
    joined = "\n".join(SNIPPETS)
    for needle in ("gymnasium.make(", "MaskablePPO", "rllib_selfplay", "pyspiel.load_game"):
        assert needle in joined


@pytest.mark.parametrize("code", SNIPPETS + EXAMPLES, ids=library)
def test_snippet_runs(code, tmp_path):
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
