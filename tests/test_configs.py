"""Training configs: the shipped ones are valid; a bad one is refused in one line naming the problem."""

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from frontends.cli import main
from training.config import ConfigError, TrainConfig

ROOT = Path(__file__).resolve().parent.parent


def test_every_shipped_config_is_valid():
    for path in (ROOT / "configs").glob("*.yaml"):
        cfg = TrainConfig.load(path)
        cfg.make_rules()


def test_configs_by_name_work_from_a_source_tree_without_the_installed_package(monkeypatch):
    """Run from a checkout on PYTHONPATH (as benchmarks/exploit.py was), ``training.configs`` does not exist;
    the names still find the checkout's configs/."""
    import importlib.resources

    from training.config import configs_folder, shipped_configs

    def not_installed(package):
        raise ModuleNotFoundError(f"No module named {package!r}")

    monkeypatch.setattr(importlib.resources, "files", not_installed)
    assert configs_folder() == ROOT / "configs"
    assert {"default", "perevodnoy", "four_players"} <= set(shipped_configs())
    assert TrainConfig.load("default") == TrainConfig.load(ROOT / "configs" / "default.yaml")


@pytest.mark.parametrize("text, words", [
    ("total_step: 10\n", "unknown key 'total_step'"),
    ("total_steps: -5\n", "total_steps must be an integer >= 1"),
    ("learning_rate: fast\n", "learning_rate must be a number"),
    ("hidden_sizes: []\n", "hidden_sizes"),
    ("opponents: {robot: 1}\n", "'robot' is neither a kind"),
    ("opponents: {heuristic: -1}\n", "opponents.heuristic"),
    ("rules: {players: 3}\n", "rules: unknown rules field 'players'"),
    ("rules: nosuch\n", "unknown rules preset"),
    ("[1, 2\n", "not valid YAML"),
    ("- 1\n", "expected a mapping"),
])
def test_bad_configs_get_one_clear_line(tmp_path, text, words, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=words.replace("[", r"\[")):
        TrainConfig.load(path)
    assert main(["train", "--config", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_config_file(capsys):
    assert main(["train", "--config", "/nonexistent.yaml"]) == 2
    assert "cannot read config" in capsys.readouterr().err


def test_pretrain_teacher_is_validated(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("pretrain_games: 10\npretrain_teacher: grandmaster\n")
    with pytest.raises(ConfigError, match="pretrain_teacher: unknown bot 'grandmaster'"):
        TrainConfig.load(path)


CONFIG_FIELDS = list(TrainConfig().to_dict())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(st.sampled_from(CONFIG_FIELDS), st.text(max_size=8)),
                       st.one_of(st.integers(-5, 10**7), st.floats(allow_nan=True), st.none(), st.booleans(),
                                 st.text(max_size=8), st.lists(st.integers(-2, 300), max_size=3),
                                 st.dictionaries(st.text(max_size=6), st.floats(-1, 2), max_size=3)),
                       max_size=4))
def test_fuzzed_configs_are_valid_or_one_line_naming_the_problem(values):
    try:
        cfg = TrainConfig.from_dict(values)
    except ConfigError as err:
        text = str(err)
        assert text and "\n" not in text
        return
    cfg.validate()
    cfg.make_rules()


def test_a_config_remembers_its_file_and_the_bot_files_name_it(tmp_path):
    """Bot files say what they were trained with: a shipped config by its place in the repository, any other
    file by its name (not the user's folders); the run folder's copy keeps the name, so a resumed run's bot
    still names it."""
    from training.checkpoints import policy_metadata

    assert TrainConfig.load("four_players").source == "configs/four_players.yaml"
    assert TrainConfig.load(ROOT / "configs" / "default.yaml").source == "configs/default.yaml"
    mine = tmp_path / "mine.yaml"
    mine.write_text((ROOT / "configs" / "tiny.yaml").read_text())
    cfg = TrainConfig.load(mine)
    assert cfg.source == "mine.yaml"
    assert policy_metadata(cfg, cfg.make_rules(), "ppo", 1, 256)["config"] == "mine.yaml"
    kept = tmp_path / "run-config.yaml"
    kept.write_text(yaml.safe_dump(cfg.to_dict()))
    assert TrainConfig.load(kept).source == "mine.yaml"
    assert "config" not in policy_metadata(TrainConfig(), cfg.make_rules(), "ppo", 1, 256)  # built in code
    assert policy_metadata(cfg, cfg.make_rules(), "ppo", 1, 256)["reward"] == "placings"
    fool = TrainConfig.from_dict({**cfg.to_dict(), "reward": "fool"})
    assert policy_metadata(fool, cfg.make_rules(), "ppo", 1, 256)["reward"] == "fool"  # what a search pays by default
    with pytest.raises(ConfigError, match="source"):
        TrainConfig.from_dict({"source": 3})


def test_a_config_that_extends_another_replaces_its_settings_key_by_key(tmp_path):
    """``extends: BASE`` (a shipped name, or a file beside it) starts from BASE's settings; the file's own keys
    replace them, the rest (the held-out rule sets of universal-finetune among them) stay BASE's.  A loop of
    configs extending each other, or a base that is no name, is refused in one line."""
    tuned, base = TrainConfig.load("universal-finetune"), TrainConfig.load("universal")
    assert tuned.make_tables() == base.make_tables() and tuned.source == "configs/universal-finetune.yaml"
    assert (tuned.learning_rate, tuned.pretrain_games, base.pretrain_games) == (0.0002, 0, 8000)
    assert tuned.ent_coef == base.ent_coef and tuned.pretrain_teacher == base.pretrain_teacher
    (tmp_path / "base.yaml").write_text("extends: tiny\nseed: 5\nent_coef: 0.02\n")
    (tmp_path / "mine.yaml").write_text("extends: base.yaml\nseed: 6\n")
    mine = TrainConfig.load(tmp_path / "mine.yaml")
    assert (mine.seed, mine.ent_coef, mine.source) == (6, 0.02, "mine.yaml")
    assert mine.total_steps == TrainConfig.load("tiny").total_steps
    (tmp_path / "base.yaml").write_text("extends: mine.yaml\n")
    for text, words in [(None, "which extends it in turn"), ("extends: [1]\n", "extends must be a config")]:
        if text:
            (tmp_path / "mine.yaml").write_text(text)
        with pytest.raises(ConfigError, match=words) as err:
            TrainConfig.load(tmp_path / "mine.yaml")
        assert "\n" not in str(err.value)


def test_every_field_has_its_check_and_each_check_refuses():
    """Each field of TrainConfig is checked by its table (COUNTS, NUMBERS, SWITCHES) or by name; a field added
    without a check fails here.  Each table's check refuses a value out of bounds, naming the field."""
    import dataclasses

    from training.config import COUNTS, NUMBERS, SWITCHES, ConfigError, TrainConfig

    by_name = {"rules", "tables", "eval_tables", "hidden_sizes", "opponents", "pretrain_teacher", "init_from", "critic",
               "reward", "source"}
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    assert fields == set(COUNTS) | set(NUMBERS) | set(SWITCHES) | by_name
    bad = {**{name: low - 1 for name, low in COUNTS.items()}, **{name: high * 2 + 1 for name, (_, high) in NUMBERS.items()},
           **{name: "yes" for name in SWITCHES}}
    for name, value in bad.items():
        with pytest.raises(ConfigError, match=f"config: {name} must be"):
            TrainConfig(**{name: value}).validate()
