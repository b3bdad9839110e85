"""Checkpoints and bot-file metadata: the one module that writes and reads them, for both backends.

A checkpoint (``checkpoints/update_*.pt`` and ``latest.pt`` in a run folder) holds the
network, the optimiser, the trainer's counters and the bot-file metadata of the
policy.  It is written to a temporary file and renamed, so a kill mid-write never
leaves a damaged file, and read with ``weights_only=True``, so a file cannot run code.
The metadata a bot file carries is built here by ``baselines.policy_file.bot_metadata``
(the owner of the bot-file format, which loads bots without torch).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from baselines.policy_file import bot_metadata
from durak_env.engine.rules import Rules

from .config import TrainConfig

FORMAT = 2
"""Bumped when a checkpoint's keys change (2: the bot-file metadata under "meta"; 1 kept it at the top level
and still loads)."""


def run_checkpoint(path: str | Path) -> Path:
    """The checkpoint a path names: the file itself, or a run folder's ``checkpoints/latest.pt``."""
    path = Path(path)
    if path.is_dir():
        return path / "checkpoints" / "latest.pt" if (path / "checkpoints").is_dir() else path / "latest.pt"
    return path


def policy_metadata(cfg: TrainConfig, rules: Rules | None, trainer: str, update: int | None, global_step: int | None) -> dict:
    """The bot-file metadata of a policy trained with ``cfg``: the rules, the layouts, what it met, the
    stake it was paid (``reward``), the config file it came from and the bot that taught its warm start (each if
    known)."""
    extra = {"config": cfg.source} if cfg.source else {}
    if cfg.pretrain_games:
        extra["teacher"] = cfg.pretrain_teacher
    if cfg.init_from is not None:
        extra["init_from"] = cfg.init_path().name
    if cfg.universal:
        extra["tables"] = cfg.make_tables().to_dict()  # what it was dealt, and the rule sets held out of it
    return bot_metadata(rules, cfg.hidden_sizes, trainer=trainer, update=update, global_step=global_step,
                        opponents=dict(cfg.opponents), seed=cfg.seed, reward=cfg.reward, **extra)


class WriteFailed(OSError):
    """A run's file could not be written (a full disk, a folder made read-only): said in one line."""


def save_atomic(obj: dict, path: Path) -> None:
    """Write to a temporary file and rename, so a kill mid-write never leaves a damaged file; a failed write
    (a full disk) leaves the file as it was and raises WriteFailed."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    except (OSError, RuntimeError) as err:  # torch reports a failed write as a RuntimeError of its writer
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        reason = getattr(err, "strerror", None) or str(err).splitlines()[0]
        raise WriteFailed(f"cannot write {path.name} in {path.parent} ({reason}); the last checkpoint written "
                          "is kept: durak train --resume continues from it") from None


def make_checkpoint(cfg: TrainConfig, rules: Rules | None, state: dict, model: dict, optimizer: dict) -> dict:
    """A checkpoint's contents: ``state`` (update, global_step, games, pool, evals, generator...) with the
    network and optimiser states, the config and the policy's bot-file metadata."""
    meta = policy_metadata(cfg, rules, "ppo", state.get("update"), state.get("global_step"))
    return {"format": FORMAT, "meta": meta, "config": cfg.to_dict(), **state, "model": model, "optimizer": optimizer}


def load_checkpoint(path: str | Path) -> dict:
    """A training checkpoint, read without executing code (``weights_only=True``)."""
    path = run_checkpoint(path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    except Exception as err:  # damaged file, or one carrying code: refused either way
        raise ValueError(f"{path} is not a durak_env checkpoint that can be loaded safely ({type(err).__name__})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") not in (1, FORMAT) or "model" not in ckpt:
        raise ValueError(f"{path} is not a durak_env checkpoint")
    if ckpt["format"] == 1:  # written before 0.2: the metadata's facts at the top level
        try:
            cfg = TrainConfig.from_dict(ckpt["config"])
            ckpt["meta"] = policy_metadata(cfg, Rules.from_dict(ckpt["rules"]), "ppo", ckpt.get("update"),
                                           ckpt.get("global_step"))
        except (KeyError, ValueError) as err:
            raise ValueError(f"{path} is a damaged durak_env checkpoint ({err})") from None
    return ckpt


__all__ = ["FORMAT", "WriteFailed", "load_checkpoint", "make_checkpoint", "policy_metadata", "run_checkpoint", "save_atomic"]
