"""Export a policy as a self-contained playable bot file: ONNX (runs with onnxruntime, no torch) or TorchScript.

Both embed the checkpoint's bot-file metadata (``baselines.policy_file``: the rules the
policy was trained for and the observation and action layout versions), so a loader
can refuse a bot made for another game.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch

from baselines.policy_file import METADATA_KEY
from durak_env.engine.rules import Rules
from durak_env.observation import network_shape

from .checkpoints import load_checkpoint
from .policy import ActionProbabilities, PolicyNet

FORMATS = ("onnx", "torchscript")


def policy_from_checkpoint(ckpt: dict) -> PolicyNet:
    """The checkpoint's network, in eval mode."""
    meta = ckpt["meta"]
    size, actions = network_shape(None if meta.get("universal") else Rules.from_dict(meta["rules"]))
    net = PolicyNet(size, actions, meta["hidden_sizes"])
    net.load_state_dict(ckpt["model"])
    net.eval()
    return net


def policy_from_bot_file(path: str | Path) -> PolicyNet:
    """The network of an exported ONNX bot file, in eval mode, to train further (its weights are named as
    ``ActionProbabilities(PolicyNet)``'s state, so they load by name)."""
    from baselines.policy_file import load_bot, onnx_weights

    bot = load_bot(path)  # refuses what is not a bot file, and names its rules and widths
    if bot.metadata.get("endgame"):
        raise ValueError(f"{path} holds two networks (training.endgame: a policy and its endgame part); train further "
                         f"from the bot file it started from, {bot.metadata['endgame'].get('start')}")
    weights = {name.removeprefix("net."): torch.from_numpy(array.copy()) for name, array in onnx_weights(path).items()}
    net = PolicyNet(*network_shape(None if bot.universal else bot.rules), bot.metadata["hidden_sizes"])
    net.load_state_dict(weights)
    net.eval()
    return net


def export(checkpoint: str | Path, fmt: str, out: str | Path) -> Path:
    """Write the policy of ``checkpoint`` (a file, or a run folder's latest) as a bot file."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    ckpt = load_checkpoint(checkpoint)
    net = policy_from_checkpoint(ckpt)
    return write_bot(ActionProbabilities(net), ckpt["meta"], net.obs_size, net.num_actions, fmt, out)


def write_bot(model: torch.nn.Module, meta: dict, obs_size: int, num_actions: int, fmt: str,
              out: str | Path) -> Path:
    """Write ``model`` (observation, int8 mask) -> (action probabilities, value) as a bot file with ``meta``
    embedded; the file appears whole or not at all, and missing folders are made."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    model = model.eval()
    meta_text = json.dumps(meta)
    obs = torch.zeros(1, obs_size)
    mask = torch.ones(1, num_actions, dtype=torch.int8)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    if fmt == "onnx":
        import onnx

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (obs, mask), str(tmp), input_names=["observation", "action_mask"],
                              output_names=["probabilities", "value"], dynamic_axes={"observation": {0: "batch"},
                              "action_mask": {0: "batch"}, "probabilities": {0: "batch"}, "value": {0: "batch"}},
                              dynamo=False)
        proto = onnx.load(str(tmp))
        entry = proto.metadata_props.add()
        entry.key, entry.value = METADATA_KEY, meta_text
        onnx.save(proto, str(tmp))
    else:
        with torch.no_grad():
            traced = torch.jit.trace(model, (obs, mask))
        torch.jit.save(traced, str(tmp), _extra_files={f"{METADATA_KEY}.json": meta_text})
    tmp.replace(out)
    return out


__all__ = ["FORMATS", "export", "policy_from_bot_file", "policy_from_checkpoint", "write_bot"]
