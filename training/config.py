"""Training configuration: one dataclass, loaded from YAML and validated field by field.

Every field has a one-line docstring; an unknown key or a bad value is refused
with one line naming it (``ConfigError``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from durak_env.cores import usable_cores
from durak_env.engine.checks import is_integer
from durak_env.engine.game import STAKES
from durak_env.engine.rules import Rules
from durak_env.tables import Tables, table_name

BOT_KINDS = ("heuristic", "easy", "random", "search")
"""The opponent kinds that are bots, each ``make_bot``'s bot of that name: a bot's name means one bot everywhere (a
bare ``search`` is ``search:medium`` in a config as on the command line)."""
OPPONENTS = ("self", "pool", *BOT_KINDS)
"""The kinds of opponent a share can name; any other name a bot maker knows ("search:medium", "trained",
a bot file's path) is an opponent too, frozen (a best-response learner trains against a shipped bot so)."""


class ConfigError(ValueError):
    """A config file that cannot be used, said in one line."""


@dataclass
class TrainConfig:
    rules: Any = "podkidnoy"
    """A rules preset name, a mapping of Rules fields (``preset:`` allowed), or ``any``: one policy for every
    table, dealt from ``tables`` (the universal layout, issue 29)."""
    tables: Any = None
    """With ``rules: any``, the tables the games are dealt from (``durak_env.tables.Tables``: presets, seats,
    random_share, weights, held_out); null for the defaults.  Only with ``rules: any``."""
    eval_tables: Any = None
    """With ``rules: any``, where each evaluation plays: named tables ("podkidnoy-2", "tournament-4": a preset and
    its seats) and ``held_out`` (every held-out combination); null: ``EVAL_TABLES``."""
    seed: int = 1
    """Seeds the networks, the deals and every bot: the same seed reproduces a run on one machine."""
    total_steps: int = 2_000_000
    """Learner decisions to train on."""
    time_budget: Any = None
    """Minutes of wall time for the whole run, warm start and evaluations included: PPO stops when the budget
    or ``total_steps`` runs out, whichever comes first, leaving room for the last evaluation, and the
    learning rate anneals over the budget.  None (the default): stop at ``total_steps`` only, so that the
    same seed gives the same run on any machine."""
    num_envs: int = 64
    """Games stepped together in each rollout worker."""
    num_workers: Any = "auto"
    """Rollout processes, or "auto": one per core this process may use (``os.sched_getaffinity``).  The same
    seed reproduces a run for the same number of workers."""
    rollout_steps: int = 8192
    """Learner decisions per update, gathered by the workers together."""
    hidden_sizes: list = field(default_factory=lambda: [256, 256])
    """Widths of the policy's hidden layers (a shared trunk with policy and value heads)."""
    learning_rate: float = 3e-4
    """Adam's step size (annealed linearly to zero when ``anneal_lr``)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly over the run."""
    gamma: float = 1.0
    """Discount; rewards come only at the end of a deal."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip_coef: float = 0.2
    """PPO's ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    max_grad_norm: float = 0.5
    """Gradient-norm clip."""
    update_epochs: int = 4
    """Passes over each batch."""
    minibatch_size: int = 1024
    """Decisions per gradient step."""
    opponents: dict = field(default_factory=lambda: {"self": 0.3, "pool": 0.2, "heuristic": 0.4, "easy": 0.1})
    """Share of opponent seats by kind: self (the current policy, also trained on), pool (past snapshots),
    heuristic, easy, random, search (slow)."""
    pool_size: int = 8
    """Past snapshots kept as opponents."""
    snapshot_every: int = 5
    """Updates between snapshots added to the pool."""
    checkpoint_every: int = 5
    """Updates between checkpoints."""
    keep_checkpoints: int = 10
    """Numbered checkpoints kept besides ``latest.pt`` and the evaluated ones (each has its bot file beside it):
    older ones are deleted as new ones are written (a 40-minute run wrote 850 of them, 250 MB).  0 keeps all."""
    eval_every: int = 10
    """Updates between evaluations against HeuristicBot (0 = only at the end)."""
    eval_games: int = 400
    """Games per evaluation (duplicate deals, both seats)."""
    threads: Any = "auto"
    """Torch threads for the update, or "auto": the cores left over by the rollout workers, at least 1.  More
    threads than idle cores slow the update badly on a busy machine (a thread pool waits for its slowest thread)."""
    pretrain_games: int = 0
    """Games of the teacher to imitate before PPO (0 = start PPO from scratch); see training/pretrain.py."""
    pretrain_teacher: Any = "search:fast"
    """The bot imitated in the warm start, or a list of bots: each table is taught by the first that plays it
    (``[trained, search:fast]``: the shipped specialist where there is one)."""
    pretrain_epochs: int = 8
    """Passes over the teacher's decisions."""
    pretrain_temperature: float = 1.0
    """The imitation's logits are divided by this before PPO starts.  The teacher (a search bot sampling the
    unseen cards) is noisy, so the imitation spreads its probability: played by sampling it loses far more
    often than played greedily (0.34 against 0.61 not-the-fool against HeuristicBot after 1,500 teacher
    games), and PPO spends its first millions of decisions regaining what the greedy policy already had.
    0.25 starts PPO at 0.57 instead."""
    init_from: Any = None
    """The bot whose network the run starts from instead of fresh weights: a bot file (ONNX; a relative path
    missing from the current folder is read from the package's, as the shipped configs name shipped files), or
    ``trained`` (``trained:<family>``) for a shipped one, e.g. to train it further against a league; its rules
    and depth must be the config's, its layers as wide or narrower (a narrower one is widened first, computing the
    same moves: ``training.policy.widen``).  None: fresh weights."""
    critic: str = "seat"
    """What the value estimate behind each advantage reads: ``seat``, the policy's own value head (the seat's
    observation); ``full``, a critic of its own (``training.policy.FullCritic``, the policy's widths) that also
    reads every other hand and the stock (``durak_env.privileged``: PerfectDou's perfect-information critic).
    The policy never reads them, and its own value head keeps learning the same returns from the observation."""
    reward: str = "placings"
    """What a deal pays the seats it trains: ``placings``, the environment's reward (``Result.rewards``: first out
    +1, the fool -1, the places between evenly spaced); ``fool``, the fool -1 and every other seat +1/(n-1), a draw
    0 (``durak_env.engine.game.staked``), which at more than two seats puts all of a deal's stake on not being the
    fool, as the game itself does.  The same at two seats."""
    magnet_coef: float = 0.0
    """Magnetic mirror descent (MMD, Sokota et al. 2023, the regularised-game family): the weight of
    KL(policy || magnet) in the policy loss, which pulls the policy toward the magnet, a copy of itself taken every
    ``magnet_every`` updates; PPO's clip stands in for MMD's proximal step.  0 (the default): plain PPO."""
    magnet_every: int = 10
    """Updates between the magnet's refreshes (with ``magnet_coef`` above 0)."""
    value_warmup: int = 0
    """Updates at the start of PPO in which only the value head learns (the policy stays as the warm start
    left it), so that the first advantages come from a critic fitted to the learner's own games."""
    overlap: bool = True
    """Collect the next batch while updating on this one (the batch is then one update behind the weights;
    PPO's ratio is taken against the policy that acted, so this stays correct)."""
    source: str = field(default="", compare=False)
    """The config file the run was made from (for a shipped config, its path in the repository under
    ``configs/``; for any other, the file's name), which bot files name in their metadata.  ``load()`` fills
    it in; the run folder's config.yaml keeps it for a resume.  Not a setting: two configs with the same
    settings are equal wherever they came from."""

    @classmethod
    def from_dict(cls, data: Any, where: str = "config") -> "TrainConfig":
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a mapping of settings, got {type(data).__name__}")
        allowed = [f.name for f in fields(cls)]
        for key in data:
            if key not in allowed:
                raise ConfigError(f"{where}: unknown key {key!r}; keys: {', '.join(allowed)}")
        cfg = cls(**data)
        cfg.validate(where)
        return cfg

    @classmethod
    def load(cls, path: str | Path, _extending: tuple[Path, ...] = ()) -> "TrainConfig":
        """A config from a YAML file, or a shipped config by name ("default", "shipped", ...).  ``extends: BASE``
        (a shipped config's name, or a file beside this one) starts from BASE's settings, which the file's own
        replace key by key."""
        path = config_source(path)
        try:
            text = path.read_text()
        except OSError as err:
            raise ConfigError(f"cannot read config {path}: {err.strerror or err}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"cannot read config {path}: not a text (UTF-8 YAML) file") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line = f" (line {mark.line + 1})" if mark else ""
            raise ConfigError(f"{path}: not valid YAML{line}") from None
        if isinstance(data, dict) and "extends" in data:
            data = {**cls.base_settings(path, data.pop("extends"), _extending), **data}
        cfg = cls.from_dict(data, str(path))
        if not cfg.source:
            shipped = Path(str(path)).resolve().parent in (Path(str(configs_folder())).resolve(), CHECKOUT_CONFIGS)
            cfg.source = f"configs/{path.name}" if shipped else path.name  # no folder of the user's in a bot file
        return cfg

    @classmethod
    def base_settings(cls, path: Path, base: Any, extending: tuple[Path, ...]) -> dict[str, Any]:
        """The settings of the config ``path`` extends (``extends: base``), for its own to replace."""
        if not isinstance(base, str):
            raise ConfigError(f"{path}: extends must be a config's name or file, got {base!r}")
        beside = Path(str(path)).parent / base
        base_path = config_source(beside if beside.exists() else base)
        if Path(str(base_path)).resolve() in extending + (Path(str(path)).resolve(),):
            raise ConfigError(f"{path}: extends {base!r}, which extends it in turn")
        settings = cls.load(base_path, extending + (Path(str(path)).resolve(),)).to_dict()
        del settings["source"]  # the file that names the settings is the one extending
        return settings

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def workers(self) -> int:
        """Rollout processes: ``num_workers``, with "auto" resolved to the cores this process may use."""
        return usable_cores() if self.num_workers == "auto" else self.num_workers

    def torch_threads(self) -> int:
        """Update threads: ``threads``, with "auto" resolved to the cores the workers leave (at least 1)."""
        return max(1, usable_cores() - self.workers()) if self.threads == "auto" else self.threads

    @property
    def universal(self) -> bool:
        """Whether the run trains one policy for every table (``rules: any``)."""
        return self.rules == ANY

    def make_rules(self) -> Rules | None:
        """The rules trained for, or None for a policy for any rules (``rules: any``)."""
        if self.universal:
            return None
        try:
            return Rules.preset(self.rules) if isinstance(self.rules, str) else Rules.from_dict(self.rules)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"rules: {err}") from None

    def teachers(self) -> list:
        """``pretrain_teacher`` as a list of bot names."""
        return self.pretrain_teacher if isinstance(self.pretrain_teacher, list) else [self.pretrain_teacher]

    def make_tables(self) -> Tables | None:
        """The tables games are dealt from (``rules: any``), else None."""
        if not self.universal:
            return None
        try:
            return Tables.from_dict(self.tables)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"tables: {err}") from None

    def evaluation_tables(self) -> list[tuple[str, Rules]]:
        """Where each evaluation plays, by name: the rules trained for, or (``rules: any``) the named tables of
        ``eval_tables`` and the held-out combinations."""
        rules, tables = self.make_rules(), self.make_tables()
        if tables is None:
            return [(rules.describe(), rules)]
        out = []
        for entry in self.eval_tables or EVAL_TABLES:
            if entry == "held_out":
                out += tables.held_out_rules()
                continue
            entry = table_name(str(entry))
            preset, _, seats = entry.rpartition("-")
            try:
                out.append((entry, Rules.preset(preset, num_players=int(seats))))
            except ValueError as err:
                raise ConfigError(f"eval_tables: {entry!r} is not a preset and its seats (podkidnoy-2): {err}") from None
        return out

    def init_path(self) -> Path:
        """The bot file ``init_from`` names (a shipped bot's, for ``trained``)."""
        name, _, family = str(self.init_from).partition(":")
        if name == "trained":
            from baselines import shipped_bot

            return shipped_bot(self.make_rules(), family or None)
        path = Path(self.init_from)
        shipped = Path(__file__).resolve().parent.parent / path  # a shipped config's file, from any folder
        return shipped if not path.is_absolute() and not path.exists() and shipped.exists() else path

    def validate(self, where: str = "config") -> None:
        """Refuse (``ConfigError``, one line naming the field) any value outside its field's bounds
        (``COUNTS``, ``NUMBERS``, ``SWITCHES``), a teacher or opponent no bot has, or rules that cannot be."""
        def bad(name: str, what: str) -> ConfigError:
            return ConfigError(f"{where}: {name} must be {what}, got {getattr(self, name)!r}")

        for name, low in COUNTS.items():
            v = getattr(self, name)
            if v == "auto" and name in AUTO:
                continue
            if not is_integer(v, low):
                raise bad(name, f"an integer >= {low}")
        for name, (low, high) in NUMBERS.items():
            v = getattr(self, name)
            if name == "time_budget" and v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
                raise bad(name, f"a number from {low} to {high}")
            setattr(self, name, float(v))
        for name in SWITCHES:
            if not isinstance(getattr(self, name), bool):
                raise bad(name, "true or false")
        if not isinstance(self.source, str):
            raise bad("source", "the path of a config file")
        if (not isinstance(self.hidden_sizes, list) or not self.hidden_sizes
                or not all(is_integer(h, 1, 8192) for h in self.hidden_sizes)):
            raise bad("hidden_sizes", "a non-empty list of layer widths from 1 to 8192")
        teachers = self.teachers()
        if not teachers or not all(isinstance(t, str) for t in teachers):
            raise bad("pretrain_teacher", "a bot name such as search:fast, or a list of them")
        if self.init_from is not None and not isinstance(self.init_from, str):
            raise bad("init_from", "the path of a bot file, or null")
        if self.critic not in CRITICS:
            raise bad("critic", f"one of {', '.join(CRITICS)}")
        if self.reward not in REWARDS:
            raise bad("reward", f"one of {', '.join(REWARDS)}")
        if not self.universal and (self.tables is not None or self.eval_tables is not None):
            raise ConfigError(f"{where}: tables and eval_tables are for a policy for any rules (rules: any)")
        if self.eval_tables is not None and not isinstance(self.eval_tables, list):
            raise bad("eval_tables", "a list of tables (podkidnoy-2, held_out), or null")
        self.make_tables()
        self.evaluation_tables()
        if not isinstance(self.opponents, dict) or not self.opponents:
            raise bad("opponents", f"a mapping of shares over {', '.join(OPPONENTS)}")
        self._check_bots(where)
        self.make_rules()

    def _check_bots(self, where: str) -> None:
        """The teacher and every opponent that is not a kind must be a bot made for these rules; shares >= 0."""
        from baselines import make_bot

        if self.pretrain_games:
            for teacher in self.teachers():
                if self.universal and teacher.partition(":")[0] == "trained":
                    continue  # a shipped policy where the table has one, the next teacher elsewhere
                try:
                    make_bot(teacher, rules=self.make_rules())
                except ValueError as err:
                    raise ConfigError(f"{where}: pretrain_teacher: {err}") from None
        if self.init_from is not None:
            try:
                start = make_bot(self.init_path())
            except ValueError as err:
                raise ConfigError(f"{where}: init_from: {err}") from None
            widths = getattr(start, "metadata", {}).get("hidden_sizes")
            made_for = getattr(start, "rules", None) if not getattr(start, "universal", False) else None
            if made_for != self.make_rules() or not widens(widths, self.hidden_sizes):
                raise ConfigError(f"{where}: init_from: {self.init_from} is a network of {widths} for "
                                  f"{_words(made_for)}; this config trains {list(self.hidden_sizes)} for "
                                  f"{_words(self.make_rules())} (as many layers, none narrower)")
        for kind, share in self.opponents.items():
            if kind not in OPPONENTS:
                try:
                    bot = make_bot(kind, rules=self.make_rules())
                except (ValueError, TypeError) as err:
                    raise ConfigError(f"{where}: opponents: {kind!r} is neither a kind ({', '.join(OPPONENTS)}) nor "
                                      f"a bot: {err}") from None
                plays = None if getattr(bot, "universal", False) else getattr(bot, "rules", None)
                if hasattr(bot, "metadata") and plays != self.make_rules():
                    raise ConfigError(f"{where}: opponents: {kind} was trained for {_words(plays)}; this config "
                                      f"trains for {_words(self.make_rules())}")
            if isinstance(share, bool) or not isinstance(share, (int, float)) or share < 0:
                raise ConfigError(f"{where}: opponents.{kind} must be a share >= 0, got {share!r}")
        if sum(self.opponents.values()) <= 0:
            raise ConfigError(f"{where}: opponents shares must add up to more than 0")


ANY = "any"
"""``rules``' value for one policy for every table."""
EVAL_TABLES = ("podkidnoy-2", "perevodnoy-2", "after-beaten-transfer-3", "tournament-4", "attacker-only-3",
               "throw-after-take-5", "held_out")
"""Where a policy for any rules is evaluated by default: the four tables with a specialist, two without, and the
held-out combinations."""


def _words(rules: Rules | None) -> str:
    return "any rules" if rules is None else rules.describe()


COUNTS = {"seed": 0, "total_steps": 1, "num_envs": 1, "rollout_steps": 1, "update_epochs": 1, "minibatch_size": 1,
          "pool_size": 1, "snapshot_every": 1, "checkpoint_every": 1, "keep_checkpoints": 0, "eval_games": 1, "num_workers": 1,
          "threads": 1, "eval_every": 0, "pretrain_games": 0, "pretrain_epochs": 1, "value_warmup": 0,
          "magnet_every": 1}
"""The integer fields and the least each may be."""
AUTO = ("num_workers", "threads")
"""Integer fields that may also be "auto" (one per usable core)."""
NUMBERS = {"time_budget": (0.05, 100_000.0), "pretrain_temperature": (0.01, 10.0), "learning_rate": (1e-7, 1.0),
           "gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0), "clip_coef": (0.0, 1.0), "vf_coef": (0.0, 1.0),
           "ent_coef": (0.0, 1.0), "max_grad_norm": (0.0, 100.0), "magnet_coef": (0.0, 10.0)}
"""The number fields and their bounds (``time_budget`` may also be None: no budget)."""
SWITCHES = ("anneal_lr", "overlap")
"""The true-or-false fields."""
CRITICS = ("seat", "full")
"""What a run's critic may read (``TrainConfig.critic``)."""
REWARDS = STAKES
"""What a deal may pay the seats a run trains (``TrainConfig.reward``): the engine's stakes."""


def widens(widths: list | None, hidden_sizes: list) -> bool:
    """Whether a network of ``widths`` can start one of ``hidden_sizes``: the same, or wider layer by layer
    (``training.policy.widen``)."""
    return (isinstance(widths, list) and len(widths) == len(hidden_sizes)
            and all(w >= h for w, h in zip(hidden_sizes, widths)))


CHECKOUT_CONFIGS = Path(__file__).resolve().parent.parent / "configs"
"""A source tree's configs/ (the shipped configs, before they are installed as ``training.configs``)."""


def configs_folder():
    """Where the shipped configs are: ``training.configs`` once installed, or the checkout's ``configs/``
    when the package runs from a source tree on ``PYTHONPATH`` (where that package does not exist)."""
    from importlib.resources import files

    try:
        return files("training.configs")
    except ModuleNotFoundError:
        return CHECKOUT_CONFIGS


def shipped_configs() -> dict[str, str]:
    """The configs that ship with the package: name -> their first comment line (what the run is, and how
    long it takes)."""
    out = {}
    for item in sorted(configs_folder().iterdir(), key=lambda p: p.name):
        if item.name.endswith(".yaml"):
            first = item.read_text().splitlines()[0] if item.read_text() else ""
            out[item.name[:-5]] = first.lstrip("# ").strip()
    return out


def config_source(path: str | Path):
    """A config file: the path as given, or, for a bare name that is no file here, the shipped config of that
    name (``durak train --config default`` works from any folder)."""
    candidate = Path(path)
    name = str(path)
    if not candidate.exists() and "/" not in name and name.removesuffix(".yaml") in shipped_configs():
        return configs_folder() / f"{name.removesuffix('.yaml')}.yaml"
    return candidate
