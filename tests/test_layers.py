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
"""Low to high (docs/architecture.md): a module belongs to the first layer whose package prefixes its name."""


def layer_of(module: str) -> int:
    for index, (_, prefix) in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return index
    raise AssertionError(f"{module} is in no layer")


FOLDERS = PACKAGES + ("tests", "docs", "configs", "benchmarks", ".ci")
"""The project's folders by name: what the checks read where git cannot list the tracked files (an sdist)."""


def project_files() -> list[Path]:
    """The files git tracks under ``ROOT``, so that nothing else in a checkout (a .venv, runs/, build/, mutants/, an
    editor's folder) can break or slow a check that reads the repository.  Where ``ROOT`` is not the top of a git
    checkout: its top-level files and the project's folders by name."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True, text=True,
                             timeout=60)
        if top.returncode == 0 and Path(top.stdout.strip()).resolve() == ROOT.resolve():
            listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True,
                                    timeout=60).stdout
            return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]
    except OSError:  # no git on this machine
        pass
    found = [p for p in ROOT.iterdir() if p.is_file()]
    for folder in FOLDERS:
        found += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return found


def modules() -> dict[str, Path]:
    found = {}
    for path in project_files():
        parts = path.relative_to(ROOT).with_suffix("").parts
        if path.suffix == ".py" and parts[0] in PACKAGES:
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


def test_every_package_of_the_source_is_in_the_wheel():
    """A package folder missing from pyproject.toml's list is left out of the wheel, and its imports fail for users
    alone (training.reference was, until this test)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(path.relative_to(ROOT).parent.parts) for path in project_files()
             if path.name == "__init__.py" and path.relative_to(ROOT).parts[0] in PACKAGES}
    assert found <= listed, f"not in pyproject.toml's packages: {sorted(found - listed)}"


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

    texts = [p for p in project_files() if p.suffix in (".py", ".md", ".yaml")]
    missing = set()
    for path in texts:
        for name in re.findall(r"\b((?:tests|benchmarks|training|baselines|docs|configs|frontends|durak_env)/"
                               r"[\w/.-]+\.(?:py|md|yaml|onnx|jsonl|json|png))\b", path.read_text(errors="ignore")):
            if not (ROOT / name).exists() and "nope" not in name:  # test_cli names a missing config on purpose
                missing.add(f"{path.relative_to(ROOT)}: {name}")
        for name in re.findall(r"\b(test_\w+)\.py\b", path.read_text(errors="ignore")):
            if not (ROOT / "tests" / f"{name}.py").exists():
                missing.add(f"{path.relative_to(ROOT)}: {name}.py")
    assert sorted(missing) == []


LITTER = [Path(*parts) for parts in (
    (".venv", "lib", "python3.11", "site-packages", "pkg", "__init__.py"), ("venv", "lib", "readme.md"),
    ("runs", "default-1", "config.yaml"), ("build", "lib", "durak_env", "old.py"),
    ("mutants", "durak_env", "engine", "game.py"), (".idea", "notes.md"), (".vscode", "tasks.yaml"))]
"""What lies in many checkouts besides the project: virtual environments, run folders, build and mutation copies,
editors' folders (issue 26: a .venv in the checkout failed the docs check with 447 names from site-packages)."""
ABSENT = "docs" + "/absent.md"
"""A file the litter names and nobody has (split here, or this file would name it)."""


def test_what_else_lies_in_the_checkout_cannot_break_or_slow_the_checks(tmp_path, monkeypatch):
    """A git checkout with litter that names missing files and imports upward: the checks still pass; the control
    tracks one piece of litter, and the check fails."""
    (tmp_path / "durak_env" / "engine").mkdir(parents=True)
    (tmp_path / "durak_env" / "__init__.py").write_text("from durak_env.engine import game\n")
    (tmp_path / "durak_env" / "engine" / "__init__.py").write_text("")
    (tmp_path / "durak_env" / "engine" / "game.py").write_text('"""The rules: docs/rules.md."""\n')
    (tmp_path / "README.md").write_text("See docs/rules.md.\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    for name in LITTER:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"import training.train  # see {ABSENT}\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert set(modules()) == {"durak_env", "durak_env.engine", "durak_env.engine.game"}
    test_files_named_in_docstrings_and_docs_exist()
    test_every_import_points_down_the_layers()
    subprocess.run(["git", "add", "-f", str(LITTER[0])], cwd=tmp_path, check=True)
    with pytest.raises(AssertionError, match="absent.md"):
        test_files_named_in_docstrings_and_docs_exist()


LONGEST = 60
"""Lines a function of the package may take (tests and benchmarks aside): a longer one is split where it
changes subject."""


def long_functions(paths) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    found.append(f"{path}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_of_the_package_is_longer_than_sixty_lines(tmp_path):
    assert long_functions(modules().values()) == []
    planted = tmp_path / "planted_long.py"  # the control: a 61-line function is found, a 60-line one is not
    body = "".join(f"    x{i} = {i}\n" for i in range(LONGEST - 1))
    planted.write_text(f"def planted():\n{body}    return 0\n\n\ndef fits():\n{body[:body.rindex('    x')]}    return 0\n")
    assert [line.split(" ", 1)[1] for line in long_functions([planted])] == [f"planted ({LONGEST + 1} lines)"]
