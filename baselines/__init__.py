"""Baseline bots and the tournament evaluator.

Every bot has one interface (``baselines.base.Bot``): ``act(view) -> action index``
and ``reset(seed)``.  ``make_bot("heuristic")``, ``make_bot("easy:0.5")``,
``make_bot("search:strong")`` build them by name.
"""

from __future__ import annotations

from pathlib import Path

from durak_env.engine.rules import Rules

from .base import Bot, RandomBot
from .heuristic import EasyBot, HeuristicBot, heuristic_action
from .search import LEVELS, PolicySearchBot, SearchBot

BUILTIN_BOTS = {"heuristic": "Heuristic (its lowest fitting card, trumps last)", "easy": "Easy (plays loosely)",
                "random": "Random",
                **{f"search:{level}": f"Search, {level}" for level in LEVELS}, "search:mcts": "Tree search (MCTS)"}
"""The bots that need nothing but the rules in play, by name, with the words a page shows for each."""
POLICY_BOTS = {"trained": "Trained (the shipped bot)", "search:net": "Trained + tree search (30 ms a move)",
               "search:model": "Trained + search, others modelled (30 ms)"}
"""The bots built on the shipped policy for the rules in play (where a family's bot is shipped), with their words."""
NEEDS_NUMPY = ("search:net", "search:model")
"""Bots that batch the network with numpy, which a browser page (``durak site``) does not have."""
BOT_NAMES = ("random", "heuristic", "easy", "easy:<share 0-1>", *(f"search:{lv}" for lv in LEVELS), "search:<worlds>",
             "search:policy", "search:mcts[:<playouts>|<n>ms|<n>s]", "search:net[:<playouts>|<n>ms|<n>s][:<stake>]",
             "search:model[:<playouts>|<n>ms|<n>s][:<stake>]",
             "search:endgame[:<playouts>|<n>ms|<n>s][:<stake>]", "trained",
             "trained:<family>", "py:<module>.<Class>")
BOTS_DIR = Path(__file__).with_name("bots")
SHIPPED_BOTS: dict[str, tuple[Path, Rules | None]] = {
    "podkidnoy": (BOTS_DIR / "podkidnoy.onnx", Rules.preset("podkidnoy")),
    "podkidnoy-0.2": (BOTS_DIR / "podkidnoy-0.2.onnx", Rules.preset("podkidnoy")),
    "podkidnoy-0.3": (BOTS_DIR / "podkidnoy-0.3.onnx", Rules.preset("podkidnoy")),
    "perevodnoy": (BOTS_DIR / "perevodnoy.onnx", Rules.preset("perevodnoy")),
    "perevodnoy-0.2": (BOTS_DIR / "perevodnoy-0.2.onnx", Rules.preset("perevodnoy")),
    "after-beaten-transfer": (BOTS_DIR / "after-beaten-transfer.onnx",
                              Rules.preset("after-beaten-transfer", num_players=3)),
    "after-beaten-transfer-0.2": (BOTS_DIR / "after-beaten-transfer-0.2.onnx",
                                  Rules.preset("after-beaten-transfer", num_players=3)),
    "after-beaten-transfer-0.3": (BOTS_DIR / "after-beaten-transfer-0.3.onnx",
                                  Rules.preset("after-beaten-transfer", num_players=3)),
    "tournament": (BOTS_DIR / "tournament.onnx", Rules.preset("tournament", num_players=4)),
    "tournament-0.2": (BOTS_DIR / "tournament-0.2.onnx", Rules.preset("tournament", num_players=4)),
    "tournament-0.3": (BOTS_DIR / "tournament-0.3.onnx", Rules.preset("tournament", num_players=4)),
    "podkidnoy-5": (BOTS_DIR / "podkidnoy-5.onnx", Rules.preset("podkidnoy", num_players=5, deck_size=52)),
    "perevodnoy-6": (BOTS_DIR / "perevodnoy-6.onnx", Rules.preset("perevodnoy", num_players=6, deck_size=52)),
    "universal": (BOTS_DIR / "universal.onnx", None),
    "universal-merge": (BOTS_DIR / "universal-merge.onnx", None),
    "universal-ppo": (BOTS_DIR / "universal-ppo.onnx", None),
}
"""Pretrained policies shipped with the package, by family: the file and the rules it was trained for, None for a
universal file, which plays any rules (each file carries its rules too; a test checks they agree).
``make_bot("trained")`` picks the first made for the rules in play, and the universal bot (``universal``) for rules
that have none; a bot shipped before keeps its file under its version (``trained:podkidnoy-0.2``), so that a
comparison with it can always be rerun (``trained:perevodnoy-0.2``, ``trained:after-beaten-transfer-0.2``,
``trained:after-beaten-transfer-0.3``, ``trained:tournament-0.2``, ``trained:tournament-0.3`` too;
``trained:universal-ppo``, the universal bot of PPO alone, before the specialists were merged in, and
``trained:universal-merge``, that bot with them merged in, from which PPO went on to make ``universal``)."""


RENAMED_FAMILIES = {f"{old}{version}": f"{new}{version}" for old, new in (("seed001-transfer", "after-beaten-transfer"),
                                                                            ("seed003", "tournament"))
                    for version in ("", "-0.2")}
"""The families' names before the presets were named by what they play (``trained:seed003`` still works)."""


def shipped_bot(rules: Rules | None = None, family: str | None = None) -> Path:
    """The shipped bot file for ``family``, or the one trained for ``rules`` (podkidnoy when both are None): the
    specialist made for them, else the universal bot, which plays any rules."""
    if family is not None:
        family = RENAMED_FAMILIES.get(family, family)
        if family not in SHIPPED_BOTS:
            raise ValueError(f"no shipped bot {family!r}; shipped: {', '.join(SHIPPED_BOTS)}")
        return _present(SHIPPED_BOTS[family][0])
    rules = rules or Rules()
    name = trained_for(rules)
    if name is not None:
        return _present(SHIPPED_BOTS[name][0])
    have = "; ".join(f"{name} ({r.describe() if r else 'any rules'})" for name, (_, r) in SHIPPED_BOTS.items())
    raise ValueError(f"no shipped bot was trained for these rules ({rules.describe()}); shipped bots: {have}")


def trained_for(rules: Rules) -> str | None:
    """Which shipped bot plays ``rules`` as ``trained``: the first specialist made for them, else the universal
    bot; None when neither ships."""
    for name, (_, made_for) in SHIPPED_BOTS.items():
        if made_for == rules:
            return name
    return "universal" if "universal" in SHIPPED_BOTS else None


def _present(path: Path) -> Path:
    """The shipped file, or the weights file a browser page's build (``durak site``) carries in its place."""
    from .policy_file import WEIGHTS_SUFFIX

    weights = path.with_name(path.stem + WEIGHTS_SUFFIX)
    return weights if not path.exists() and weights.exists() else path


def make_bot(spec: str | Path, seed: int | None = None, rules: Rules | None = None) -> Bot:
    """A bot from its name (``BOT_NAMES``): random, heuristic, easy[:share], search[:fast|medium|strong|<worlds>],
    search:policy (search with the shipped policy for ``rules`` inside it), search:mcts[:<budget>] (a tree search,
    baselines/mcts.py), search:net[:<budget>] (that tree guided by the shipped policy, baselines/netsearch.py),
    search:model[:<budget>] (that search, each other seat playing the policy's move for its own hand),
    search:endgame[:<budget>] (the policy until the stock is empty, then search:net; these three take a stake too,
    ``:fool``), trained (the shipped policy made for ``rules``), trained:<family>, or an exported policy file.  The
    searches run natively where built; ``:python`` (``search:mcts:1s:python``) keeps one in the reference engine."""
    if isinstance(spec, Path):
        spec = str(spec)
    if not isinstance(spec, str):
        raise ValueError(f"a bot is named by a string or a file path, got {spec!r}")
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return RandomBot(seed)
    if name == "heuristic" and not arg:
        return HeuristicBot(seed)
    if name == "easy":
        try:
            share = float(arg) if arg else 0.3
        except ValueError:
            raise ValueError(f"easy takes a share of random moves from 0 to 1, e.g. easy:0.3; got {spec!r}") from None
        return EasyBot(seed, randomness=share)
    if name == "search":
        level, reference = (arg[:-len(":python")], True) if arg.endswith(":python") else (arg, False)
        engine = "python" if reference else "auto"
        if not level or level == "python":
            return SearchBot(seed, engine="python" if level == "python" else engine)
        if level.isdigit():
            return SearchBot(seed, worlds=int(level), engine=engine)
        if level in LEVELS:
            return SearchBot(seed, level=level, engine=engine)
        if arg == "policy":
            from .policy_file import load_bot

            return PolicySearchBot(load_bot(shipped_bot(rules), rules=rules or Rules()), seed=seed)
        if arg == "mcts" or arg.startswith("mcts:"):
            from .mcts import mcts_from_name

            return mcts_from_name(arg[len("mcts"):], seed=seed)
        kind, _, budget = arg.partition(":")
        if kind in ("net", "model", "endgame"):
            from .netsearch import net_search_from_name
            from .policy_file import load_bot

            return net_search_from_name(budget, load_bot(shipped_bot(rules), rules=rules or Rules()), seed=seed,
                                        kind=kind)
        return SearchBot(seed, level=arg)
    if name == "trained":
        from .policy_file import load_bot

        path = shipped_bot(rules, arg or None)
        return load_bot(path, seed=seed, rules=rules if rules is not None and not arg else None)
    if name == "py":
        return python_bot(arg, seed)
    if Path(spec).suffix in (".onnx", ".pt", ".durak", ".json") or Path(spec).exists():
        from .policy_file import load_bot

        return load_bot(spec, seed=seed)
    raise ValueError(f"unknown bot {spec!r}; bots: {', '.join(BOT_NAMES)}, or an exported policy file")


def python_bot(path: str, seed: int | None = None) -> Bot:
    """``py:<module>.<Class>``: a bot class of your own, from a module on Python's path (``PYTHONPATH``): made with
    no arguments and reset with ``seed``.  It imports the module you name, as ``python -m`` would; it reads no
    data file (docs/tutorials/ladder.md)."""
    import importlib

    module, _, name = path.rpartition(".")
    if not module or not name:
        raise ValueError(f"a Python bot is named py:<module>.<Class>, e.g. py:my_bot.LowestCardBot; got py:{path}")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"py:{path}: {err} (is the module's folder on PYTHONPATH?)") from None
    bot = cls()
    if not callable(getattr(bot, "act", None)) or not callable(getattr(bot, "reset", None)):
        raise ValueError(f"py:{path} is not a bot: it needs act(view) -> action and reset(seed)")
    bot.reset(seed)
    return bot


__all__ = ["BOT_NAMES", "BUILTIN_BOTS", "LEVELS", "NEEDS_NUMPY", "POLICY_BOTS", "SHIPPED_BOTS", "Bot", "EasyBot",
           "HeuristicBot", "PolicySearchBot", "RandomBot", "SearchBot", "heuristic_action", "make_bot", "python_bot",
           "shipped_bot", "trained_for"]
