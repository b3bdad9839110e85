"""The ``durak`` command line.

Usage errors print one line and exit with status 2, never a traceback; Ctrl-C stops
quietly with status 130; a command whose optional packages are missing names the
extra that installs them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from durak_env import __version__
from durak_env.engine.actions import decode_action
from durak_env.engine.game import Game
from durak_env.engine.loop import play
from durak_env.engine.render import describe_result, render
from durak_env.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

EXTRAS = {"torch": "train", "onnx": "train", "tensorboard": "train", "yaml": "train", "onnxruntime": "play",
          "tqdm": "play", "openskill": "play", "matplotlib": "play", "starlette": "play", "uvicorn": "play",
          "ray": "rllib"}
"""Optional packages -> the extra of durak-env that installs them (pyproject.toml)."""


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        raise UsageError(message)


DEFAULT_PRESET = "podkidnoy"
"""The preset a command plays when none is named (``Rules()``'s rules)."""


def rules_from_args(args: argparse.Namespace) -> Rules:
    overrides = {}
    if getattr(args, "players", None) is not None:
        overrides["num_players"] = args.players
    for text in getattr(args, "set", None) or []:
        key, sep, value = text.partition("=")
        if not sep:
            raise UsageError(f"--set takes FIELD=VALUE, got {text!r}")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key] = value
    try:
        return Rules.preset(args.rules or DEFAULT_PRESET, **overrides)
    except (ValueError, TypeError) as err:
        raise UsageError(str(err)) from None


def rules_for_bots(args: argparse.Namespace, bots: list[str]) -> Rules:
    """The rules given on the command line; without ``--rules``, ``--players`` and ``--set``, the rules the first
    bot file among ``bots`` was trained for (``durak eval tournament.onnx heuristic`` plays seed 003 at its table;
    a universal file names none), else the default preset."""
    files = [spec for spec in bots if Path(spec).is_file()]
    if args.rules is None and args.players is None and not args.set and files:
        from baselines.policy_file import load_bot

        try:
            made_for = load_bot(files[0]).rules
        except ValueError as err:
            raise UsageError(str(err)) from None
        if made_for is not None:
            return made_for
    return rules_from_args(args)


def add_rules_args(p: argparse.ArgumentParser, default: str | None = DEFAULT_PRESET) -> None:
    p.add_argument("--rules", default=default,
                   help=f"a rules preset (see `durak rules`; default {DEFAULT_PRESET}"
                        + (", or the rules of the first bot file named)" if default is None else ")"))
    p.add_argument("--players", type=int, help=f"seats at the table ({MIN_PLAYERS}-{MAX_PLAYERS})")
    p.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override a rules field, e.g. transfer=true")


def seat_bots(specs: list[str] | None, rules: Rules, seat: int, extra: dict | None = None):
    """Bots for every seat but ``seat`` from ``--opponent`` (one for all, or one per other seat, in seat order),
    with their names; ``extra`` maps names given by ``--bot NAME=PATH`` to files."""
    from baselines import make_bot

    n = rules.num_players
    if not 0 <= seat < n:
        raise UsageError(f"--seat must be from 0 to {n - 1}")
    specs = specs or ["heuristic"]
    if len(specs) not in (1, n - 1):
        raise UsageError(f"give one --opponent for every other seat ({n - 1}), or one for all; got {len(specs)}")
    others = [s for s in range(n) if s != seat]
    named = dict(zip(others, specs * (n - 1) if len(specs) == 1 else specs))
    bots, names = [None] * n, ["you"] * n
    for s, spec in named.items():
        try:
            bots[s] = make_bot((extra or {}).get(spec, spec), rules=rules)  # seeded by each deal: bot_seed
        except ValueError as err:
            raise UsageError(str(err)) from None
        made_for = getattr(bots[s], "rules", None)
        if made_for is not None and made_for != rules:
            raise UsageError(f"{spec} was trained for {made_for.describe()}; this game is {rules.describe()}: "
                             "pass --rules/--players/--set to match")
        names[s] = spec
    return bots, names


def cmd_rules(args: argparse.Namespace) -> int:
    if args.show:
        rules = rules_from_args(argparse.Namespace(rules=args.show, players=None, set=None))
        print(json.dumps(rules.to_dict(), indent=2))
        return 0
    for name, doc in Rules.presets().items():
        print(f"{name:20s} {doc}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Self-play of seeded random players, printing every move."""
    rules = rules_from_args(args)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    for g in range(args.games):
        seed = args.seed + g
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        print(f"=== game {g + 1}, seed {seed}, rules {args.rules} ({rules.num_players} players)")
        if not args.quiet:
            print(render(game.view(game.to_act)))

        def told(seat: int, action: int, forced: bool) -> None:
            print(f"player_{seat}: {decode_action(action, rules)}")

        moves = play(game, lambda gm: rng.choice(gm.legal_actions()), on_move=None if args.quiet else told)
        verdict = describe_result(game.result) if game.result else "cut off by the move limit"
        print(f"result after {game.bouts} bouts and {moves} moves: {verdict}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """A tournament between bots (see baselines/evaluate.py)."""
    from baselines.evaluate import WorkerDied, evaluate, prepare_outputs, write_outputs

    rules = rules_for_bots(args, args.bots)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.workers is not None and args.address is not None:
        raise UsageError("--workers counts this machine's processes; with --address the cluster's cores play")
    try:
        prepare_outputs(args.json, args.csv, args.chart)
        report = evaluate(args.bots, rules, games=args.games, seed=args.seed, duplicate=not args.no_duplicate,
                          workers=args.workers, progress=not args.quiet, keep_records=bool(args.csv),
                          address=args.address)
    except WorkerDied as err:
        print(f"durak: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        raise UsageError(str(err)) from None
    print(report.table())
    try:
        write_outputs(report, args.json, args.csv, args.chart)
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot write output: {err}") from None
    return 0


BACKENDS = ("torch", "ray", "rllib")
RLLIB_COUNTS = (("env_runners", 0), ("learners", 0), ("iterations", 1), ("envs_per_runner", 1))
"""The RLlib-only count options and their least values."""


def cmd_train(args: argparse.Namespace) -> int:
    """Self-play PPO: this package's (training/train.py, the README's main job) or on Ray RLlib."""
    if args.backend not in BACKENDS:
        raise UsageError(f"unknown backend {args.backend!r}; backends: {', '.join(BACKENDS)}")
    rllib_options = [f"--{n.replace('_', '-')}" for n in ("env_runners", "iterations", "envs_per_runner")
                     if getattr(args, n) is not None] + (["--learners"] if args.learners else [])
    if args.backend != "rllib" and rllib_options:
        raise UsageError(f"{', '.join(rllib_options)} only work with --backend rllib")
    if args.backend == "torch" and args.address is not None:
        raise UsageError("--address needs a cluster backend: --backend ray (or rllib)")
    if args.actors is not None and args.backend != "ray":
        raise UsageError("--actors only works with --backend ray")
    if args.actors is not None and args.actors < 1:
        raise UsageError(f"--actors must be at least 1, got {args.actors}")
    cluster = {"backend": "ray", "address": args.address, "actors": args.actors} if args.backend == "ray" else {}
    from training.config import shipped_configs

    if args.list_configs:
        for name, about in shipped_configs().items():
            print(f"{name:14s} {about}")
        return 0
    if args.resume:
        if args.backend == "rllib":
            raise UsageError("--resume applies to the torch backend; RLlib runs restart from their checkpoint folder")
        return _run_ppo(resume=args.resume, progress=not args.quiet, **cluster)
    if not args.config:
        raise UsageError("give --config NAME or FILE (e.g. default; durak train --list-configs lists them)"
                         + (" or --resume RUN_DIR" if args.backend != "rllib" else ""))
    cfg = _load_config(args)
    for name, least in RLLIB_COUNTS:
        value = getattr(args, name)
        if value is not None and value < least:
            raise UsageError(f"--{name.replace('_', '-')} must be at least {least}, got {value}")
    prefix = "rllib-" if args.backend == "rllib" else ""  # a ray run is the torch backend's run: same folder
    run_dir = Path(args.run_dir or Path("runs") / f"{prefix}{Path(args.config).stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    if args.backend != "rllib":
        return _run_ppo(cfg, run_dir=run_dir, progress=not args.quiet, **cluster)
    from training.rllib_selfplay import train_rllib

    history = train_rllib(cfg, run_dir, address=args.address, env_runners=args.env_runners, learners=args.learners,
                          envs_per_runner=args.envs_per_runner or 32, iterations=args.iterations,
                          progress=not args.quiet)
    print(f"{len(history)} iterations; RLlib checkpoint in {run_dir / 'checkpoint'}")
    return _report_run(run_dir)


def _load_config(args: argparse.Namespace):
    """The config that ``--config`` names, with ``--total-steps``, ``--time-budget`` and ``--seed`` applied,
    checked."""
    from training.config import ConfigError, TrainConfig

    try:
        cfg = TrainConfig.load(args.config)
        if args.total_steps is not None:
            cfg.total_steps = args.total_steps
        if args.time_budget is not None:
            cfg.time_budget = args.time_budget
        if args.seed is not None:
            cfg.seed = args.seed
        cfg.validate()
    except (ConfigError, ValueError) as err:
        raise UsageError(str(err)) from None
    return cfg


def _run_ppo(*args, **kwargs) -> int:
    """``train_ppo`` (a new run or ``resume=``): a bad config is a usage error, a dead worker or a failed
    write one line and status 1."""
    from training.checkpoints import WriteFailed
    from training.config import ConfigError
    from training.rollout import WorkerDied
    from training.train import train_ppo

    try:
        return _report_run(train_ppo(*args, **kwargs))
    except (ConfigError, ValueError) as err:
        raise UsageError(str(err)) from None
    except (WorkerDied, WriteFailed) as err:
        print(f"durak: {err}", file=sys.stderr)
        return 1


def _report_run(run: Path) -> int:
    print(f"run folder: {run}")
    if (run / "bot.onnx").exists():
        print(f"trained bot: {run / 'bot.onnx'}  (play it: durak play --opponent {run / 'bot.onnx'})")
    return 0


def cmd_init_config(args: argparse.Namespace) -> int:
    """Copy a shipped config to edit."""
    from training.config import config_source, shipped_configs

    if args.name not in shipped_configs():
        raise UsageError(f"no shipped config {args.name!r}; configs: {', '.join(shipped_configs())}")
    out = Path(args.output)
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists; pass --force to replace it")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(config_source(args.name).read_text())
    except OSError as err:
        raise UsageError(f"cannot write {out}: {err.strerror or err}") from None
    print(f"wrote {out}  (train with: durak train --config {out})")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from training.export import export

    try:
        out = export(args.checkpoint, args.format, args.output)
    except ValueError as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        raise UsageError(f"cannot write {args.output}: {err.strerror or err}") from None
    print(f"wrote {out}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from .terminal import play_terminal

    rules = rules_from_args(args)
    bots, names = seat_bots(args.opponent, rules, args.seat)
    if args.save:
        from baselines.evaluate import prepare_outputs

        try:
            prepare_outputs(json_path=args.save)
        except ValueError as err:
            raise UsageError(str(err).replace("--json", "--save")) from None
    return play_terminal(rules, bots, names, seed=args.seed, seat=args.seat, preset=args.rules, save=args.save)


def page_options(args: argparse.Namespace, in_page: bool = False):
    """The page's options from ``durak serve``'s or ``durak site``'s arguments: the rules, the default bots and
    the bot files offered (each read now, so that a bad file is said at start, not in the middle of a game)."""
    from baselines import BUILTIN_BOTS, POLICY_BOTS, make_bot

    from .web.api import Options, policy_bots

    rules = rules_from_args(args)
    files = {}
    for text in args.bot or []:
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--bot takes NAME=PATH, got {text!r}")
        if name in BUILTIN_BOTS or name in POLICY_BOTS:
            raise UsageError(f"--bot {name}: that name is a built-in bot; pick another")
        if in_page and not path.endswith(".onnx"):
            raise UsageError(f"--bot {name}: the page takes ONNX bot files (durak export --format onnx), not {path}")
        try:
            make_bot(path)
        except ValueError as err:
            raise UsageError(f"--bot {name}: {err}") from None
        files[name] = path
    offered = [*BUILTIN_BOTS, *policy_bots(in_page), *files]
    opponents = args.opponent or ["heuristic"]
    for name in opponents:
        if name not in offered:
            raise UsageError(f"--opponent {name}: the page offers {', '.join(offered)}")
    if len(opponents) not in (1, rules.num_players - 1):
        raise UsageError(f"give one --opponent for every other seat ({rules.num_players - 1}), or one for all")
    return Options(rules, args.rules, opponents, files, tuple(getattr(args, "allow_host", None) or ()),
                   in_page=in_page)


def cmd_serve(args: argparse.Namespace) -> int:
    """The page in the browser (frontends/web)."""
    from .web.server import serve

    options = page_options(args)
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, got {args.port}")
    try:
        return serve(options, args.host, args.port, args.open)
    except OSError as err:
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {err.strerror or err}") from None


def cmd_site(args: argparse.Namespace) -> int:
    """The page as a folder of static files that plays with no server (frontends/web/site.py)."""
    from .web.site import build_site, folder_size

    options = page_options(args, in_page=True)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file: give a folder for the site")
    pyodide = Path(args.pyodide) if args.pyodide else None
    try:
        build_site(out, options, pyodide)
    except (ValueError, OSError) as err:
        raise UsageError(str(err)) from None
    print(f"durak: wrote the site to {out} ({folder_size(out) / 2**20:.1f} MB); serve the folder with any static "
          f"file server, e.g. python3 -m http.server -d {out}")
    return 0


def _bot_list() -> str:
    from baselines import BOT_NAMES

    return ", ".join(BOT_NAMES) + ", or an exported bot file"


def _rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--show", metavar="PRESET", help="print every field of a preset as JSON")


def _demo_args(p: argparse.ArgumentParser) -> None:
    add_rules_args(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="print only each game's result")


def _eval_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("bots", nargs="+", help=f"bots: {_bot_list()}")
    add_rules_args(p, default=None)
    p.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole duplicate decks)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-duplicate", action="store_true", help="one game per deck, seats rotating between decks")
    p.add_argument("--workers", type=int, help="processes (default: the cores this process may use)")
    p.add_argument("--address", help="play the games on a Ray cluster ('auto': the one this machine is a node of; "
                                     "ray://host:10001): the same report as one machine's")
    p.add_argument("--json", help="write the summary as JSON")
    p.add_argument("--csv", help="write one row per seat per game as CSV")
    p.add_argument("--chart", help="write a chart of fool rates (.png, .svg or .pdf)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _train_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="a shipped config by name (default, shipped, ...) or a YAML file")
    p.add_argument("--list-configs", action="store_true", help="list the shipped configs and exit")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    p.add_argument("--run-dir", help="where to write the run (default: runs/<config>-<time>)")
    p.add_argument("--total-steps", type=int, help="override the config's total_steps")
    p.add_argument("--time-budget", type=float, metavar="MINUTES", help="override the config's time_budget (the "
                                                                        "run's minutes, teacher games included)")
    p.add_argument("--seed", type=int, help="override the config's seed")
    p.add_argument("--backend", default="torch", help="torch (this package's PPO, default), ray (the same PPO with "
                                                      "its rollout workers as Ray actors, on a cluster) or rllib "
                                                      "(Ray RLlib self-play)")
    p.add_argument("--address", help="ray, rllib: an existing Ray cluster ('auto' or ray://host:10001; default: a Ray "
                                     "of this machine's own)")
    p.add_argument("--actors", type=int, help="ray: rollout actors (default: the cluster's cores but one)")
    p.add_argument("--env-runners", type=int, help="rllib: env runners (default: cores - 1 locally)")
    p.add_argument("--learners", type=int, default=0, help="rllib: remote learners (0 = learn in the driver)")
    p.add_argument("--envs-per-runner", type=int, help="rllib: games each env runner steps at once (default 32)")
    p.add_argument("--iterations", type=int, help="rllib: stop after this many iterations (default: total_steps)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _init_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="a shipped config (durak train --list-configs)")
    p.add_argument("-o", "--output", required=True, help="the file to write")
    p.add_argument("--force", action="store_true", help="replace the file if it exists")


def _export_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", help="a checkpoint file, or a run folder (its latest checkpoint)")
    p.add_argument("--format", choices=("onnx", "torchscript"), default="onnx")
    p.add_argument("-o", "--output", required=True, help="the bot file to write (missing folders are made)")


def _play_args(p: argparse.ArgumentParser) -> None:
    add_rules_args(p)
    p.add_argument("--opponent", action="append", metavar="BOT",
                   help=f"the bot at every other seat, or repeat it for each in seat order (default heuristic): "
                        f"{_bot_list()}")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, help="fix the deal")
    p.add_argument("--save", metavar="FILE", help="write the game record (JSON) when the game ends")


def _serve_args(p: argparse.ArgumentParser) -> None:
    add_rules_args(p)
    p.add_argument("--opponent", action="append", metavar="BOT",
                   help="the page's default bot at every other seat, or repeat it for each in seat order")
    p.add_argument("--bot", action="append", metavar="NAME=PATH", help="offer an exported bot file under NAME")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this computer)")
    p.add_argument("--port", type=int, help="the port (default 8000, or a free one if 8000 is taken)")
    p.add_argument("--allow-host", action="append", metavar="NAME",
                   help="also answer requests addressed to this host name (the server answers IP addresses and "
                        "localhost; any other name is refused, so that another site cannot reach it by DNS)")
    p.add_argument("--open", action="store_true", help="open the page in the browser")


def _site_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", help="the folder to write the site to")
    add_rules_args(p)
    p.add_argument("--opponent", action="append", metavar="BOT",
                   help="the page's default bot at every other seat, or repeat it for each in seat order")
    p.add_argument("--bot", action="append", metavar="NAME=PATH", help="offer an exported ONNX bot file under NAME")
    p.add_argument("--pyodide", metavar="DIR", help="a folder with the npm package pyodide's files (default: npm ci "
                                                    "from frontends/web/npm's lock file, once)")


COMMANDS = {
    "rules": (cmd_rules, _rules_args, "list the rules presets, or show one's fields"),
    "demo": (cmd_demo, _demo_args, "watch random players play (self-play printed move by move)"),
    "eval": (cmd_eval, _eval_args, "play bots against each other and report fool rates with 95%% confidence "
                                   "intervals"),
    "train": (cmd_train, _train_args, "self-play PPO training (the main job)"),
    "init-config": (cmd_init_config, _init_config_args, "copy a shipped training config to edit"),
    "export": (cmd_export, _export_args, "export a checkpoint as a playable bot file"),
    "play": (cmd_play, _play_args, "play against bots in the terminal"),
    "serve": (cmd_serve, _serve_args, "play against bots in the browser"),
    "site": (cmd_site, _site_args, "write the page as static files that play every bot with no server (Pyodide)"),
}
"""The subcommands: what each runs, its arguments and its line in ``durak --help``."""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="durak", description="Durak: rules engine, environment, bots and training.")
    parser.add_argument("--version", action="version", version=f"durak-env {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for name, (run, add_args, about) in COMMANDS.items():
        p = sub.add_parser(name, help=about)
        add_args(p)
        p.set_defaults(func=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        from baselines.progress import CtrlC

        with CtrlC():  # a loop that asks it stops after a Ctrl-C that a library swallowed
            return args.func(args)
    except UsageError as err:
        print(f"durak: error: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:
        extra = EXTRAS.get((err.name or "").split(".")[0])
        if extra is None:
            raise
        print(f"durak: error: this command needs {err.name}: pip install 'durak-env[{extra}]'", file=sys.stderr)
        return 2
    except BrokenPipeError:
        if not _stdout_gone():
            raise  # a pipe of the command's own (to a worker process) broke: a fault, not a reader that left
        # The reader of the output went away (durak ... | head): stop quietly, the output still buffered sent
        # nowhere, or Python's flush at exit would fail on the same pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BaseException as err:  # Ctrl-C, as itself or come out as an error of the code it landed in
        from baselines.progress import interrupted

        if not interrupted(err):
            raise
        print(file=sys.stderr)
        return 130


def _stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has gone: poll reports an error on its write end."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows) or no file behind stdout: as before
        return True


if __name__ == "__main__":
    sys.exit(main())
