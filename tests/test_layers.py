"""The layers, read from the source: every import points down, there are no import circles (imports
inside functions included), the engine uses the standard library alone, and the engine and
environments install and run without torch or any extra."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("durak_env", "baselines", "training", "frontends")
LAYERS = [
    ("engine", "durak_env.engine"),
    ("environments", "durak_env"),
    ("bots and evaluation", "baselines"),
    ("training and export", "training"),
    ("front ends", "frontends"),
]
"""Low to high (README, "Layout"): a module belongs to the first layer whose package prefixes its name."""


def layer_of(module: str) -> int:
    for index, (_, prefix) in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return index
    raise AssertionError(f"{module} is in no layer")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its file (top level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from package import module`` depends on the module; ``from module import name`` on the module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_the_layers_cover_every_module():
    names = modules()
    assert {"durak_env.engine.game", "durak_env.environment", "baselines.evaluate", "training.train",
            "frontends.cli"} <= set(names)
    for name in names:
        layer_of(name)


def test_every_import_points_down_the_layers():
    upward = [f"{src} ({LAYERS[layer_of(src)][0]}) imports {dst} ({LAYERS[layer_of(dst)][0]})"
              for src, targets in graph().items() for dst in targets if layer_of(dst) > layer_of(src)]
    assert upward == []


def test_there_are_no_import_circles():
    edges = graph()
    circles, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                circles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert circles == []


def test_the_checker_sees_an_upward_import_inside_a_function_and_a_circle(tmp_path, monkeypatch):
    """The control: a planted upward import hidden in a function, and a circle, are both found."""
    fake = tmp_path / "durak_env"
    (fake / "engine").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "engine" / "__init__.py").write_text("")
    (fake / "engine" / "a.py").write_text("def f():\n    from durak_env.engine import b\n    import training.x\n")
    (fake / "engine" / "b.py").write_text("from . import a\n")
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "x.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("durak_env", "training"))
    edges = graph()
    assert edges["durak_env.engine.a"] == {"durak_env.engine.b", "training.x"}
    assert edges["durak_env.engine.b"] == {"durak_env.engine.a"}
    with pytest.raises(AssertionError):
        test_every_import_points_down_the_layers()
    with pytest.raises(AssertionError):
        test_there_are_no_import_circles()


def test_the_engine_imports_only_the_standard_library():
    stdlib = sys.stdlib_module_names | {"__future__"}
    for name, path in modules().items():
        if layer_of(name) != 0:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                roots = [node.module.split(".")[0]]
            else:
                continue
            assert all(r in stdlib or r == "durak_env" for r in roots), f"{name} imports {roots}"


def test_the_core_install_needs_numpy_gymnasium_and_pettingzoo_only():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(d.split(">")[0].split("=")[0] for d in deps) == ["gymnasium", "numpy", "pettingzoo"]


BLOCK = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"{{name}} is blocked: the core must not need it")
sys.meta_path.insert(0, Refuse())
"""


def run_without(blocked: set[str], code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", BLOCK.format(blocked=sorted(blocked)) + code],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


EXTRAS = {"torch", "onnx", "onnxruntime", "tensorboard", "yaml", "tqdm", "openskill", "matplotlib", "starlette",
          "uvicorn", "ray", "pyspiel", "open_spiel", "stable_baselines3", "sb3_contrib", "pygame"}


def test_the_engine_runs_without_any_third_party_package():
    """Pure Python: with numpy, gymnasium, pettingzoo and torch made unimportable a game plays to the end."""
    out = run_without(EXTRAS | {"numpy", "gymnasium", "pettingzoo"}, """
import durak_env, random
g = durak_env.Game(durak_env.Rules.preset('perevodnoy', num_players=3), seed=1); r = random.Random(1)
while not g.is_over: g.step(r.choice(g.legal_actions()))
print(g.result)
""")
    assert "Result(" in out


def test_the_environments_and_plain_bots_run_without_torch_or_any_extra():
    out = run_without(EXTRAS, """
import gymnasium, numpy as np, durak_env
aec = durak_env.env("perevodnoy")
aec.reset(seed=1)
for agent in aec.agent_iter():
    obs, reward, term, trunc, info = aec.last()
    aec.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
env = gymnasium.make("durak_env/Durak-v0", opponents="search:fast")
obs, info = env.reset(seed=0)
done = False
while not done:
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    done = term or trunc
from baselines.evaluate import evaluate
print(reward, evaluate(["heuristic", "random"], games=4, workers=1).games)
""")
    assert out.split()[-1] == "4"


def test_files_named_in_docstrings_and_docs_exist():
    """Docstrings pointed at test_observation and tests/test_soak.py, neither of which existed."""
    import re

    texts = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".md", ".yaml") and ".git" not in p.parts
             and "runs" not in p.parts and "mutants" not in p.parts]
    missing = set()
    for path in texts:
        for name in re.findall(r"\b((?:tests|benchmarks|training|baselines|docs|configs|frontends|durak_env)/"
                               r"[\w/.-]+\.(?:py|md|yaml|onnx|json|png))", path.read_text(errors="ignore")):
            if not (ROOT / name).exists() and "nope" not in name:  # test_cli names a missing config on purpose
                missing.add(f"{path.relative_to(ROOT)}: {name}")
        for name in re.findall(r"\b(test_\w+)\.py\b", path.read_text(errors="ignore")):
            if not (ROOT / "tests" / f"{name}.py").exists():
                missing.add(f"{path.relative_to(ROOT)}: {name}.py")
    assert sorted(missing) == []
