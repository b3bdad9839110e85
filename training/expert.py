"""Expert iteration: distil the network search into the fast policy, and repeat.

Each round, ``search:net`` guided by the current policy (a bot file) plays deals, mostly against itself and
against the policy alone and HeuristicBot; at each of its decisions with a choice the share of the root's
playouts through each move is recorded, with the deal's outcome for its seat.  The policy is then trained
from its current weights on those move shares (cross-entropy with the search's distribution, so the network
learns what the search found and not only its top move) and on the outcomes (the value head), and written as
the next round's bot file.  The next round's search is guided by that bot: a better prior makes a better
search, which teaches a better prior (Anthony et al., "Thinking Fast and Slow with Deep Learning and Tree
Search", 2017; AlphaZero's training target).

A run is a folder and resumes where it stopped: each round's deals are written in parts
(``round-K/part-NNNN.npz``) that a rerun keeps, and a round with its ``bot.onnx`` is done.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from baselines import make_bot
from baselines.netsearch import NetSearchBot
from baselines.policy_file import bot_metadata, load_bot
from baselines.progress import interrupted
from durak_env.engine.game import Game
from durak_env.engine.loop import play, seated
from durak_env.engine.seeds import derive_seed

from .export import policy_from_bot_file, write_bot
from .policy import ActionProbabilities, widen

PART_GAMES = 20
"""Deals per part file (the unit a rerun keeps)."""


@dataclass(frozen=True)
class ExpertConfig:
    start: str
    """The bot file the first round's search is guided by, and whose weights the policy starts from."""
    out: str
    """The run folder."""
    rounds: int = 2
    games: int = 2000
    """Deals per round."""
    playouts: int = 400
    """Playouts of the search at each decision (a count, not a time, so that a round is the same on any
    machine and under any load)."""
    opponents: tuple = (("search", 0.5), ("policy", 0.25), ("heuristic", 0.25))
    """Share of deals by who sits at the other seats: the search itself, the policy it is guided by, or
    HeuristicBot."""
    temperature: float = 1.0
    """What the policy learns from the move shares: shares ** (1 / temperature), renormalised; 1 is the shares
    themselves, below 1 sharper, 0 the search's chosen move alone (a bot plays its most probable move, so a
    sharp target teaches where the search disagrees with it rather than how widely it looked)."""
    epochs: int = 4
    learning_rate: float = 3e-4
    batch_size: int = 1024
    seed: int = 1
    hidden_sizes: tuple | None = None
    """The widths the policy is distilled into: the start's network widened to them (``training.policy.widen``,
    the same moves to begin with) in the first round, kept after; None: the start's own widths."""
    window: int = 1
    """Rounds of deals each distillation learns from: its own and the ``window - 1`` rounds before it (AlphaZero's
    window of recent games), so that a round's bot is not taught by one round's noise alone."""
    workers: int = 2
    address: str | None = None
    """A Ray cluster to play the search games on ("auto": the one this machine is a node of), where the bot file is
    at the same path on every node (a shared folder); None: ``workers`` processes here."""


def search_deals(task: tuple) -> dict[str, np.ndarray]:
    """Play ``games`` deals with the search at one seat (and at the others when they are "search"); returns
    its observations, masks, move shares and outcomes at its decisions with a choice."""
    bot_file, playouts, games, seed, opponents = task
    policy = load_bot(bot_file)
    rules, enc = policy.rules, policy.encoder
    rng = random.Random(seed)
    search = NetSearchBot(policy, seed=seed, playouts=playouts)
    others = {"search": None, "policy": policy.act, "heuristic": make_bot("heuristic", seed=seed).act}
    kinds, weights = zip(*opponents)
    obs, masks, shares, seats = [], [], [], []

    def searched(view) -> int:
        action = search.act(view)
        if len(view.legal_actions) > 1:
            obs.append(enc.encode(view))
            masks.append(enc.mask(view))
            shares.append(move_shares(search, enc.num_actions))
            seats.append(view.seat)
        return action

    outcomes: list[float] = []
    for _ in range(games):
        game = Game(rules, seed=rng.getrandbits(63))
        n = rules.num_players
        learner = rng.randrange(n)
        kind = rng.choices(kinds, weights)[0]
        seated_moves = [searched if s == learner or kind == "search" else others[kind] for s in range(n)]
        first = len(seats)
        play(game, seated(seated_moves))
        if game.result is None:  # cut off by the move limit: no outcome to learn from
            del obs[first:], masks[first:], shares[first:], seats[first:]
            continue
        rewards = game.result.rewards()
        outcomes += [rewards[seat] for seat in seats[first:]]
    return {"obs": np.asarray(obs, dtype=np.float32).reshape(-1, enc.size),
            "mask": np.asarray(masks, dtype=np.int8).reshape(-1, enc.num_actions),
            "share": np.asarray(shares, dtype=np.float32).reshape(-1, enc.num_actions),
            "outcome": np.asarray(outcomes, dtype=np.float32)}


def move_shares(search: NetSearchBot, width: int) -> np.ndarray:
    """The share of the last search's playouts through each move at its root, ``width`` actions wide."""
    shares = np.zeros(width, dtype=np.float32)
    total = sum(search.last_visits.values())
    for a, visits in search.last_visits.items():
        shares[a] = visits / total
    return shares


def distil(bot_file: str, data: dict[str, np.ndarray], cfg: ExpertConfig, out: Path) -> dict:
    """Train the policy of ``bot_file`` on the search's move shares and the outcomes; write ``out``."""
    source = load_bot(bot_file)
    net = policy_from_bot_file(bot_file)
    if cfg.hidden_sizes is not None and net.hidden_sizes != list(cfg.hidden_sizes):
        net = widen(net, list(cfg.hidden_sizes), cfg.seed)
    stats = fit_shares(net, data, cfg.temperature, cfg.epochs, cfg.learning_rate, cfg.batch_size, cfg.seed)
    meta = bot_metadata(source.rules, net.hidden_sizes, trainer="expert-iteration",
                        teacher=f"search:net:{cfg.playouts}", guided_by=Path(bot_file).name, decisions=stats["decisions"],
                        source={k: source.metadata.get(k) for k in ("trainer", "config", "update", "global_step",
                                                                     "opponents", "seed")})
    write_bot(ActionProbabilities(net), meta, net.obs_size, net.num_actions, "onnx", out)
    return stats


def fit_shares(net, data: dict[str, np.ndarray], temperature: float, epochs: int, learning_rate: float,
               batch_size: int, seed: int) -> dict:
    """Train ``net`` from its weights on ``data``'s move shares (cross-entropy with each row's distribution,
    ``sharpen``ed by ``temperature``) and outcomes (the value head), with a twentieth of the rows held out to
    report what it learned beyond its data: the policy loss, value loss and agreement of top moves there,
    before and after.  Leaves ``net`` in eval mode."""
    torch.manual_seed(seed)
    net.train()
    tensors = {k: torch.from_numpy(v) for k, v in data.items()}
    tensors["share"] = sharpen(tensors["share"], temperature)
    n = len(tensors["obs"])
    held = max(1, n // 20)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    train_rows, test_rows = order[held:], order[:held]
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)

    def losses(rows):
        logits, value = net(tensors["obs"][rows], tensors["mask"][rows])
        pi = torch.nn.functional.cross_entropy(logits, tensors["share"][rows])
        v = 0.5 * ((value - tensors["outcome"][rows]) ** 2).mean()
        agree = (logits.argmax(-1) == tensors["share"][rows].argmax(-1)).float().mean()
        return pi, v, agree

    with torch.no_grad():
        before = [float(x) for x in losses(test_rows)]
    for _ in range(epochs):
        shuffled = train_rows[torch.randperm(len(train_rows))]
        for start in range(0, len(shuffled), batch_size):
            pi, v, _ = losses(shuffled[start:start + batch_size])
            opt.zero_grad()
            (pi + 0.5 * v).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
    net.eval()
    with torch.no_grad():
        after = [float(x) for x in losses(test_rows)]
    names = ("policy_loss", "value_loss", "agreement")
    return {"decisions": n, "held_out_before": dict(zip(names, before)), "held_out_after": dict(zip(names, after))}


def sharpen(shares: torch.Tensor, temperature: float) -> torch.Tensor:
    """Each row's shares raised to 1 / ``temperature`` and renormalised; at 0, one-hot on the largest."""
    if temperature == 0:
        return torch.nn.functional.one_hot(shares.argmax(-1), shares.shape[-1]).to(shares.dtype)
    powered = shares ** (1.0 / temperature)
    return powered / powered.sum(-1, keepdim=True)


def run_round(k: int, bot_file: str, cfg: ExpertConfig, say) -> str:
    """Round ``k``: the search's deals (parts already written are kept), then the distilled bot file."""
    folder = Path(cfg.out) / f"round-{k}"
    bot = folder / "bot.onnx"
    if bot.exists():
        return str(bot)
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [(bot_file, cfg.playouts, min(PART_GAMES, cfg.games - i), derive_seed("expert", cfg.seed, k, i),
              cfg.opponents) for i in range(0, cfg.games, PART_GAMES)]
    data = play_parts(folder, tasks, search_deals, cfg.workers, say, f"round {k}: ", address=cfg.address)
    earlier = [read_parts(Path(cfg.out) / f"round-{j}") for j in range(max(1, k - cfg.window + 1), k)]
    data = {key: np.concatenate([d[key] for d in [*earlier, data]]) for key in PART_KEYS}
    stats = distil(bot_file, data, cfg, bot)
    (folder / "distil.json").write_text(json.dumps(stats, indent=1))
    say(f"round {k}: {json.dumps(stats)}")
    return str(bot)


def play_parts(folder: Path, tasks: list, play, workers: int, say, label: str = "",
               address: str | None = None, keys: tuple = ()) -> dict[str, np.ndarray]:
    """Each task's part of the deals, played by ``play`` in ``workers`` processes (or as tasks on the Ray cluster
    at ``address``) and written to ``folder/part-NNNN.npz`` (whole or not at all; the parts already there are kept,
    so a rerun goes on where a run stopped); returns every part's arrays joined (``keys``: those of ``play``'s
    parts, ``PART_KEYS`` by default)."""
    todo = [(i, t) for i, t in enumerate(tasks) if not (folder / f"part-{i:04d}.npz").exists()]
    started = time.monotonic()
    pool = ProcessPoolExecutor(workers) if address is None else None
    if pool is not None:
        answers = pool.map(play, [t for _, t in todo])
    else:
        from durak_env.cluster import connect, run_tasks

        connect(address)
        answers = run_tasks(play, [t for _, t in todo])
    try:
        for done, ((i, _), part) in enumerate(zip(todo, answers), 1):
            tmp = folder / f"part-{i:04d}.tmp.npz"
            np.savez_compressed(tmp, **part)
            tmp.replace(folder / f"part-{i:04d}.npz")
            say(f"{label}part {len(tasks) - len(todo) + done}/{len(tasks)} "
                f"({(time.monotonic() - started) / done:.0f} s a part)")
    finally:
        if pool is not None:
            pool.shutdown()
    return read_parts(folder, len(tasks), keys or PART_KEYS)


PART_KEYS = ("obs", "mask", "share", "outcome")
"""The arrays of a part: the search's observations, masks, move shares and the deals' outcomes."""


def read_parts(folder: Path, count: int | None = None, keys: tuple = PART_KEYS) -> dict[str, np.ndarray]:
    """The arrays ``keys`` of ``folder``'s parts joined in order: the first ``count``, or every one there."""
    names = sorted(folder.glob("part-[0-9][0-9][0-9][0-9].npz")) if count is None else \
        [folder / f"part-{i:04d}.npz" for i in range(count)]
    parts = [np.load(name) for name in names]
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}


def command(prog: str, run, cfg) -> int:
    """``run(cfg)`` as a command: its result printed; a ValueError said in one line (exit 2); Ctrl-C, as itself
    or come out as another error (``baselines.progress.interrupted``), quietly (130)."""
    try:
        print(run(cfg, say=lambda line: print(line, flush=True)))
    except ValueError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    except BaseException as err:
        if not interrupted(err):
            raise
        return 130
    return 0


def record_config(out: Path, cfg, defaults) -> None:
    """Write a run's settings to ``out/config.json``, or refuse when the folder holds a run with other settings
    (``defaults``, the settings' defaults, stand for any added since that run began)."""
    out.mkdir(parents=True, exist_ok=True)
    recorded = out / "config.json"
    if recorded.exists() and {**asdict(defaults), **json.loads(recorded.read_text())} != json.loads(json.dumps(asdict(cfg))):
        raise ValueError(f"{out} holds a run with another configuration ({recorded}); choose another folder")
    recorded.write_text(json.dumps(asdict(cfg), indent=1))


def run(cfg: ExpertConfig, say=print) -> str:
    """Every round in turn (those done are skipped); returns the last round's bot file."""
    if cfg.window < 1:
        raise ValueError(f"window must be at least 1 (this round's deals), got {cfg.window}")
    out = Path(cfg.out)
    record_config(out, cfg, ExpertConfig(cfg.start, cfg.out))
    bot = cfg.start
    for k in range(1, cfg.rounds + 1):
        bot = run_round(k, bot, cfg, say)
    return bot


def widths(text: str) -> tuple[int, ...]:
    """``256,256`` as layer widths (argparse's type: a bad list is a usage error)."""
    try:
        out = tuple(int(w) for w in text.split(","))
    except ValueError:
        out = ()
    if not out or not all(0 < w <= 8192 for w in out):
        raise argparse.ArgumentTypeError(f"layer widths from 1 to 8192, comma-separated (256,256), got {text!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.expert", description=__doc__.split("\n\n")[0])
    p.add_argument("start", help="the bot file to start from (e.g. baselines/bots/podkidnoy.onnx)")
    p.add_argument("out", help="the run folder (a rerun resumes it)")
    for name, kind in (("rounds", int), ("games", int), ("playouts", int), ("temperature", float), ("epochs", int),
                       ("learning-rate", float), ("seed", int), ("window", int), ("workers", int), ("address", str)):
        p.add_argument(f"--{name}", type=kind, default=getattr(ExpertConfig, name.replace("-", "_")))
    p.add_argument("--hidden-sizes", type=widths, default=None, help="widths to distil into, e.g. 256,256 (widened "
                   "from the start's network); default: the start's own")
    args = p.parse_args(argv)
    cfg = ExpertConfig(args.start, args.out, args.rounds, args.games, args.playouts, temperature=args.temperature,
                       epochs=args.epochs, learning_rate=args.learning_rate, seed=args.seed,
                       hidden_sizes=args.hidden_sizes, window=args.window, workers=args.workers, address=args.address)
    return command("expert", run, cfg)


if __name__ == "__main__":
    sys.exit(main())
