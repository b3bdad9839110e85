"""The Baselines page from the reference runs' data.

    python -m training.reference.report runs/reference/dmc-30 runs/reference/dqn-30 ... --data docs/baselines.json
    python -m training.reference.report --data docs/baselines.json --page docs/baselines.md --figure docs/baselines.png

With run folders, their curves and run logs are gathered into ``--data`` (a run already there is replaced by its
folder's newer data); then the page and the figure are written from ``--data`` alone, so that they always
show what the data holds (tests/test_reference.py regenerates the page and compares).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .harness import CURVE, RUN_LOG

NAMES = {"dmc": "Deep Monte-Carlo (own, DouZero's method)", "dqn": "DQN (Tianshou)",
         "dqn-marl": "DQN (Tianshou, its multi-agent tic-tac-toe pattern)", "nfsp": "NFSP (OpenSpiel)",
         "ppo": "PPO (sb3-contrib MaskablePPO)"}
"""Each algorithm's name on the page, with the library that ran it."""
NOTES = {
    "dmc": "a Q-network over the observation and the move's kind and card, fitted by mean squared error to each "
           "move's final reward in epsilon-greedy (0.05) self-play over the native vector core, 256 deals at once.",
    "dqn": "Tianshou's single-agent DQN on the Gymnasium environment against the random player: each transition "
           "runs from one of the learner's decisions to its next.",
    "dqn-marl": "Tianshou's DQN set up as its tic-tac-toe example sets up a two-player game.  Its multi-agent "
                "buffer interleaves the seats' moves, so a move's n-step target reaches into the other seat's moves "
                "and bootstraps on the other seat's observation: on Durak it falls below random play.",
    "nfsp": "OpenSpiel's PyTorch NFSP, one agent per seat, in self-play on python_durak; the bot is seat 0's "
            "average policy, played greedily.",
    "ppo": "sb3-contrib's MaskablePPO on the Gymnasium environment against the random player.",
}
"""What each algorithm is, in a sentence or two, for the page."""


def gather(run_dirs: list[Path], data: dict) -> dict:
    """``data`` with each run folder's curve and command added (keyed by the folder's name)."""
    runs = dict(data.get("runs", {}))
    for run_dir in run_dirs:
        curve = [json.loads(x) for x in (run_dir / CURVE).read_text().splitlines() if x.strip()]
        log = [json.loads(x) for x in (run_dir / RUN_LOG).read_text().splitlines() if x.strip()]
        if not curve or not log:
            raise ValueError(f"{run_dir} has no curve or no run log: not a reference run")
        first = log[0]
        runs[run_dir.name] = {"algorithm": first["algorithm"], "minutes": first["minutes"], "seed": first["seed"],
                              "command": "python -m training.reference " + " ".join(first["argv"][1:]),
                              "starts": [entry["at"] for entry in log], "curve": curve}
    return {"runs": dict(sorted(runs.items()))}


def page(data: dict) -> str:
    """The Baselines page's text."""
    lines = ["# Baselines", "",
             "<!-- Written by python -m training.reference.report from docs/baselines.json; do not edit. -->", "",
             "Standard algorithms trained on 2-player podkidnoy (36 cards) on one 2-core machine, each for a "
             "wall-clock budget, from the command shown.  None learned from HeuristicBot or any stronger bot of "
             "this project: each learned in self-play or against a random player.  Each is scored against "
             "HeuristicBot on duplicate deals: the share of games in which it is not the fool, with its 95% "
             "interval.  For scale, random moves are not the fool in 0.098 [0.080, 0.116] of 1,000 such games "
             "(`durak eval random heuristic --games 1000 --seed 0`), and 0.5 would be level with HeuristicBot.",
             "",
             "| algorithm | budget | decisions | not the fool against heuristic | games | command |",
             "|---|---|---|---|---|---|"]
    for name, run in data["runs"].items():
        last = run["curve"][-1]
        lines.append(f"| {NAMES.get(run['algorithm'], run['algorithm'])} | {run['minutes']:g} min "
                     f"({last['minutes']:.1f} trained) | {last['decisions']:,} | {last['not_fool']:.3f} "
                     f"[{last['ci'][0]:.3f}, {last['ci'][1]:.3f}] | {last['games']:,} | `{run['command']}` |")
    lines += ["", "How each was trained:", ""]
    lines += [f"- **{NAMES[a]}**: {NOTES[a]}" for a in NAMES if a in {r["algorithm"] for r in data["runs"].values()}]
    lines += ["", "![Learning curves: not the fool against heuristic, by minutes and by decisions](baselines.png)",
              "", "Each curve's points: minutes of training (evaluations not counted), decisions chosen by the "
              "networks in training, and the not-fool rate with its interval.", ""]
    for name, run in data["runs"].items():
        points = ", ".join(f"{p['minutes']:.0f} min {p['not_fool']:.3f}" for p in run["curve"])
        lines.append(f"- `{name}`: {points}.")
    missing = [NAMES[a] for a in NAMES if a not in {run["algorithm"] for run in data["runs"].values()}]
    lines += ["", "## Not measured yet", ""]
    lines += [f"- {name}: its 30-minute run has not been made yet." for name in missing]
    lines += ["- This project's own recipe (`durak train --config configs/default.yaml --time-budget 30`) at the "
              "same budgets, and the 120-minute runs of the two best outside algorithms and the recipe.",
              "- R-NaD and MMD, the regularised-game family: OpenSpiel's R-NaD is written in JAX, which this "
              "project does not install, and its MMD solves small games in tabular form, which a Durak deal is "
              "far too large for.", ""]
    return "\n".join(lines)


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
    p.add_argument("--data", type=Path, required=True, help="the results file (JSON)")
    p.add_argument("--page", type=Path, help="write the Markdown page here")
    p.add_argument("--figure", type=Path, help="write the learning curves here (PNG)")
    args = p.parse_args(argv)
    try:
        data = json.loads(args.data.read_text()) if args.data.is_file() else {"runs": {}}
        if args.runs:
            data = gather(args.runs, data)
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
