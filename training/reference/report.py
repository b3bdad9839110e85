"""The Baselines page from the reference runs' data.

    python -m training.reference.report runs/reference/dmc-30 runs/reference/recipe-30 ... --data docs/baselines.json
    python -m training.reference.report --ladder runs/reference/ladder.jsonl --data docs/baselines.json
    python -m training.reference.report --data docs/baselines.json --page docs/baselines.md --figure docs/baselines.png

With run folders, their curves and commands are gathered into ``--data`` (a run already there is replaced by its
folder's newer data): a reference run's (``python -m training.reference``) or a ``durak train`` run's (the
project's recipe, ``configs/default.yaml``, and MMD, ``configs/mmd.yaml``).  With ``--ladder``, the ratings that
``benchmarks/ladder.py`` played for the runs' bots.  The page and the figure are written from ``--data`` alone, so
that they always show what the data holds (tests/test_reference.py regenerates the page and compares).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from baselines.ratings import ANCHOR, fit

from .harness import CURVE, RUN_LOG

NAMES = {"dmc": "Deep Monte-Carlo (own, DouZero's method)", "dqn": "DQN (Tianshou)",
         "dqn-marl": "DQN (Tianshou, its multi-agent tic-tac-toe pattern)", "nfsp": "NFSP (OpenSpiel)",
         "ppo": "PPO (sb3-contrib MaskablePPO)", "mmd": "MMD, magnetic mirror descent (this project's PPO)",
         "recipe": "This project's recipe (`durak train`)"}
"""Each algorithm's name on the page, with the library that ran it."""
OUTSIDE = ("dqn", "dqn-marl", "nfsp", "ppo")
"""The algorithms run by an outside library: the two best of them also get 120 minutes, as the recipe does."""
TRAINER_CONFIGS = {"configs/default.yaml": "recipe", "configs/mmd.yaml": "mmd"}
"""The ``durak train`` configs whose runs the page shows, and the algorithm each is."""
NOTES = {
    "dmc": "a Q-network over the observation and the move's kind and card, fitted by mean squared error to each "
           "move's final reward in epsilon-greedy (0.05) self-play over the native vector core, 256 deals at once.",
    "dqn": "Tianshou's single-agent DQN on the Gymnasium environment against the random player: each transition "
           "runs from one of the learner's decisions to its next.",
    "dqn-marl": "Tianshou's DQN set up as its tic-tac-toe example sets up a two-player game.  Its multi-agent "
                "buffer interleaves the seats' moves, so a move's n-step target reaches into the other seat's moves "
                "and bootstraps on the other seat's observation: on Durak it falls below random play.",
    "nfsp": "OpenSpiel's PyTorch NFSP with the settings of its NFSP example (a smaller reservoir), one agent per "
            "seat, in self-play on python_durak; the bot is seat 0's average policy, played greedily.  At 30 "
            "minutes that policy takes the cards in about 70% of the defences where it may (HeuristicBot: about "
            "22%), so it is the fool in nearly every deal.",
    "ppo": "sb3-contrib's MaskablePPO on the Gymnasium environment against the random player.",
    "mmd": "magnetic mirror descent (Sokota et al., 2023) as `configs/mmd.yaml` sets up this project's PPO: pure "
           "self-play from fresh weights, with KL(policy || magnet) in the loss, the magnet being the policy of up "
           "to 10 updates before.",
    "recipe": "the README's main job at a longer budget: a warm start imitating `search:fast`, then PPO against "
              "itself, its past snapshots, HeuristicBot (60% of the opponent seats) and EasyBot.  Unlike the "
              "others it learned from HeuristicBot, so its score against it flatters it; its ladder rating does "
              "not depend on that.",
}
"""What each algorithm is, in a sentence or two, for the page."""


def gather(run_dirs: list[Path], data: dict) -> dict:
    """``data`` with each run folder's curve and command added (keyed by the folder's name)."""
    runs = dict(data.get("runs", {}))
    for run_dir in run_dirs:
        runs[run_dir.name] = trainer_run(run_dir) if (run_dir / "evals.jsonl").is_file() else reference_run(run_dir)
    return {**data, "runs": dict(sorted(runs.items()))}


def read_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def reference_run(run_dir: Path) -> dict:
    """A ``python -m training.reference`` run: its curve, and its command and starts from its run log (the last
    start's budget and command, ``--resume`` left out: a run resumed to a longer budget is that budget's run)."""
    if not (run_dir / CURVE).is_file() or not (run_dir / RUN_LOG).is_file():
        raise ValueError(f"{run_dir} is not a run folder (no {CURVE}, {RUN_LOG} or evals.jsonl)")
    curve, log = read_lines(run_dir / CURVE), read_lines(run_dir / RUN_LOG)
    if not curve or not log:
        raise ValueError(f"{run_dir} has no curve or no run log yet")
    last = log[-1]  # a run resumed to a longer budget is that budget's run
    command = " ".join(arg for arg in last["argv"][1:] if arg != "--resume")
    return {"algorithm": last["algorithm"], "minutes": last["minutes"], "seed": last["seed"],
            "command": f"python -m training.reference {command}", "starts": [entry["at"] for entry in log],
            "curve": curve}


def trainer_run(run_dir: Path) -> dict:
    """A ``durak train`` run of a config in ``TRAINER_CONFIGS``: its evaluations as the curve (``minutes``: the
    run's wall clock, warm start and evaluations included; ``decisions``: the learner's), and the command that
    gives its config (the settings where it differs from the shipped file, given as options)."""
    from training.config import TrainConfig

    cfg = TrainConfig.load(run_dir / "config.yaml")
    if cfg.source not in TRAINER_CONFIGS:
        raise ValueError(f"{run_dir}: a run of {cfg.source or 'an unnamed config'}, which the page does not show "
                         f"(it shows {', '.join(TRAINER_CONFIGS)})")
    shipped = TrainConfig.load(cfg.source.removeprefix("configs/").removesuffix(".yaml"))
    options = [f"--{flag} {getattr(cfg, name):g}" for flag, name in
               (("time-budget", "time_budget"), ("total-steps", "total_steps"), ("seed", "seed"))
               if getattr(cfg, name) != getattr(shipped, name)]
    if {k: v for k, v in cfg.to_dict().items() if k not in ("time_budget", "total_steps", "seed")} != \
            {k: v for k, v in shipped.to_dict().items() if k not in ("time_budget", "total_steps", "seed")}:
        raise ValueError(f"{run_dir}: its settings are no longer {cfg.source}'s; run it again from the file")
    curve = [{"minutes": row["minutes"], "decisions": row["global_step"], "not_fool": row["not_fool"],
              "ci": row["not_fool_ci"], "games": row["games"], "opponent": "heuristic"}
             for row in read_lines(run_dir / "evals.jsonl")]
    if not curve:
        raise ValueError(f"{run_dir} has no evaluation yet")
    return {"algorithm": TRAINER_CONFIGS[cfg.source], "minutes": cfg.time_budget, "seed": cfg.seed,
            "command": " ".join(["durak train --config", cfg.source, *options, "--run-dir", f"runs/reference/{run_dir.name}"]),
            "curve": curve}


def ladder(path: Path, data: dict) -> dict:
    """``data`` with the ladder's ratings (``benchmarks/ladder.py``'s pairings in ``path``) of every bot."""
    rows = read_lines(path)
    games: dict[str, int] = {}
    for row in rows:
        for side in (row["a"], row["b"]):
            games[side] = games.get(side, 0) + row["games"]
    ratings = fit(rows)
    return {**data, "ladder": {name: {"rating": round(r, 1), "error": round(e, 1), "games": games[name]}
                               for name, (r, e) in sorted(ratings.items())}}


def run_bot(name: str) -> str:
    """The ladder's name for a run's bot (its file, as ``benchmarks/ladder.py --bots`` was given it)."""
    return f"runs/reference/{name}/bot.onnx"


def ladder_command(data: dict) -> str:
    """The ladder that rates every run's bot: random, HeuristicBot and the bots, weakest to strongest by their
    score against HeuristicBot, each meeting random and its neighbours."""
    order = sorted(data["runs"], key=lambda name: data["runs"][name]["curve"][-1]["not_fool"])
    bots = [run_bot(name) for name in order]
    at = sum(data["runs"][name]["curve"][-1]["not_fool"] < 0.5 for name in order)
    bots.insert(at, "heuristic")
    return f"python benchmarks/ladder.py --games 400 --bots {ANCHOR} {' '.join(bots)} --out runs/reference/ladder"


def page(data: dict) -> str:
    """The Baselines page's text."""
    runs, ratings = data["runs"], data.get("ladder", {})
    lines = ["# Baselines", "",
             "<!-- Written by python -m training.reference.report from docs/baselines.json; do not edit. -->", "",
             "Standard algorithms trained on 2-player podkidnoy (36 cards) on one 2-core machine, each for a "
             "wall-clock budget, from the command shown.  Each is scored against HeuristicBot on duplicate deals: "
             "the share of games in which it is not the fool, with its 95% interval.  For scale, random moves are "
             "not the fool in 0.098 [0.080, 0.116] of 1,000 such games "
             "(`durak eval random heuristic --games 1000 --seed 0`), and 0.5 is level with HeuristicBot.  Only the "
             "project's recipe learned from HeuristicBot; the others learned in self-play or against a random "
             "player.  A run's command and seed give the same start again; where a wall-clock budget stops it "
             "depends on the machine's speed.", ""]
    if ratings:
        lines += ["The ladder rating puts every bot on one scale, from head-to-head games against random play "
                  f"(fixed at 1000), HeuristicBot ({rating_text(ratings, 'heuristic')}) and the bots next to it "
                  "(400 duplicate-deal games a pairing, Bradley-Terry on the Elo scale, 95% interval): "
                  f"`{ladder_command(data)}`.", ""]
    lines += ["| algorithm | budget | decisions | not the fool against heuristic | games | ladder | command |",
              "|---|---|---|---|---|---|---|"]
    for name, run in runs.items():
        last = run["curve"][-1]
        lines.append(f"| {NAMES.get(run['algorithm'], run['algorithm'])} | {run['minutes']:g} min "
                     f"({last['minutes']:.1f} at the last point) | {last['decisions']:,} | {last['not_fool']:.3f} "
                     f"[{last['ci'][0]:.3f}, {last['ci'][1]:.3f}] | {last['games']:,} | "
                     f"{rating_text(ratings, run_bot(name))} | `{run['command']}` |")
    lines += ["", "How each was trained:", ""]
    lines += [f"- **{NAMES[a]}**: {NOTES[a]}" for a in NAMES if a in {r["algorithm"] for r in runs.values()}]
    lines += ["", "![Learning curves: not the fool against heuristic, by minutes and by decisions](baselines.png)",
              "", "Each curve's points: minutes of training, decisions chosen by the networks in training, and the "
              "not-fool rate with its interval.  The reference runs (`python -m training.reference`) stop their "
              "clock while they evaluate; a `durak train` run counts its warm start and evaluations in its budget.",
              ""]
    for name, run in runs.items():
        points = ", ".join(f"{p['minutes']:.0f} min {p['not_fool']:.3f}" for p in run["curve"])
        lines.append(f"- `{name}`: {points}.")
    return "\n".join(lines + ["", "## Not measured", ""] + not_measured(data) + [""])


def not_measured(data: dict) -> list[str]:
    """The page's last section: the runs and ratings the data lacks, and the algorithms that did not run."""
    runs, ratings = data["runs"], data.get("ladder", {})
    lines = [f"- {NAMES[a]} at {m} minutes." for a, m in missing(runs)]
    if ratings:
        lines += [f"- The ladder rating of `{name}`." for name in runs if run_bot(name) not in ratings]
    else:
        lines += ["- The ladder ratings."]
    return lines + ["- R-NaD, of the regularised-game family, did not run: OpenSpiel writes it in JAX and leaves it out "
                    "of its pip package, and this project installs neither.  OpenSpiel's own MMD (`mmd_dilated`) did "
                    "not run either: it solves a game's whole sequence form, and a Durak deal's tree is far too "
                    "large.  MMD above is the deep-RL form of the same update."]


def rating_text(ratings: dict, bot: str) -> str:
    if bot not in ratings:
        return "not rated"
    r = ratings[bot]
    return f"{r['rating']:.0f} [{r['rating'] - 2 * r['error']:.0f}, {r['rating'] + 2 * r['error']:.0f}]"


def missing(runs: dict) -> list[tuple[str, int]]:
    """The (algorithm, minutes) runs the page asks for and the data lacks: every algorithm at 30 minutes, and the
    recipe and the two best outside algorithms (by their 30-minute score) at 120."""
    have = {(run["algorithm"], round(run["minutes"])) for run in runs.values()}
    scores = {run["algorithm"]: run["curve"][-1]["not_fool"] for run in runs.values()
              if run["algorithm"] in OUTSIDE and round(run["minutes"]) == 30}
    best = sorted(scores, key=scores.get, reverse=True)[:2]
    wanted = [(a, 30) for a in NAMES] + [(a, 120) for a in ["recipe", *best]]
    return [pair for pair in wanted if pair not in have]


def figure(data: dict, path: Path) -> None:
    """Not-fool rate against minutes and against decisions, one line per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for name, run in data["runs"].items():
        curve = run["curve"]
        for ax, key in zip(axes, ("minutes", "decisions")):
            ax.errorbar([p[key] for p in curve], [p["not_fool"] for p in curve],
                        yerr=[[p["not_fool"] - p["ci"][0] for p in curve], [p["ci"][1] - p["not_fool"] for p in curve]],
                        label=name, marker="o", capsize=2)
    for ax in axes:
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)  # level with HeuristicBot
        ax.set_ylim(0, 1)
    axes[0].set_xlabel("minutes of training")
    axes[1].set_xlabel("decisions")
    axes[1].set_xscale("log")
    axes[0].set_ylabel("not the fool against heuristic")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.reference.report", description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", type=Path, help="reference run folders to add to --data")
    p.add_argument("--ladder", type=Path, help="benchmarks/ladder.py's pairings (.jsonl) of the runs' bots")
    p.add_argument("--data", type=Path, required=True, help="the results file (JSON)")
    p.add_argument("--page", type=Path, help="write the Markdown page here")
    p.add_argument("--figure", type=Path, help="write the learning curves here (PNG)")
    args = p.parse_args(argv)
    try:
        data = json.loads(args.data.read_text()) if args.data.is_file() else {"runs": {}}
        if args.runs:
            data = gather(args.runs, data)
        if args.ladder:
            data = ladder(args.ladder, data)
        if args.runs or args.ladder:
            args.data.write_text(json.dumps(data, indent=1) + "\n")
    except (OSError, ValueError, KeyError) as err:
        p.error(str(err))
    if args.page:
        args.page.write_text(page(data))
    if args.figure:
        figure(data, args.figure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
