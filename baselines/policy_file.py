"""Bot files (``durak export``, ONNX or TorchScript): their format, and bots loaded from them.

A bot file holds a policy ``(observation, int8 mask) -> action probabilities`` and,
under ``METADATA_KEY``, the metadata ``bot_metadata`` builds: the rules it was
trained for, the observation and action layout versions, and where it came from.
This module is the one owner of that format; training writes files through it.

A third form, the weights file (``NAME.weights.json``, written by ``write_weights`` from an ONNX file), holds
the same network's float32 weights and metadata for a browser page, where neither numpy nor onnxruntime
runs: ``WeightsBot`` evaluates it in plain Python on the same observation (``encode_floats``) and plays as
the ONNX file's ``PolicyBot`` plays (tests/test_bot_files.py compares their moves).

Loading never runs Python code from the file: ONNX is a graph read by
onnxruntime, and TorchScript archives go through TorchScript's own restricted
loader (no Python pickle globals).  A file made for other rules or another
observation layout is refused with a message saying what it was made for.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import operator
import random
import zipfile
from array import array
from pathlib import Path

try:
    import numpy as np
except ImportError:  # a browser page (Pyodide): weights files only (WeightsBot)
    np = None  # type: ignore[assignment]

from durak_env.engine.actions import LAYOUT_VERSION, translation
from durak_env.engine.rules import Rules
from durak_env.engine.view import SeatView
from durak_env.observation import OBSERVATION_VERSION, ObservationEncoder, network_shape

WEIGHTS_SUFFIX = ".weights.json"
"""How a weights file's name ends."""
WEIGHTS_FORMAT = "durak_env weights 1"
"""What a weights file says it is (its ``format``)."""
METADATA_KEY = "durak_env"
"""Where a bot file keeps its metadata: an ONNX ``metadata_props`` entry, or TorchScript's extra file
``durak_env.json``."""


def bot_metadata(rules: Rules | None, hidden_sizes: list[int], *, trainer: str, update: int | None = None,
                 global_step: int | None = None, **extra) -> dict:
    """The metadata every bot file carries: the rules it was trained for (and those rules in words), or, for a
    network of the universal layout that plays any rules (``rules`` None), ``"universal": true`` and null
    rules; the layout versions a loader checks, the network's widths and where it came from (``trainer``,
    the update and decisions trained on, and any ``extra`` facts such as the config or the opponents met)."""
    made_for = {"rules": None, "trained_for": "any rules", "universal": True} if rules is None else \
        {"rules": rules.to_dict(), "trained_for": rules.describe()}
    return {**made_for, "observation_version": OBSERVATION_VERSION, "layout_version": LAYOUT_VERSION,
            "hidden_sizes": list(hidden_sizes), "trainer": trainer, "update": update, "global_step": global_step,
            **extra}


class PolicyBot:
    """A trained policy behind the common bot interface; plays its most probable legal action.

    A universal bot file (``"universal": true``: one network for any rules, issue 29) loads unbound
    (``rules`` None; ``choose_many`` and ``predict`` then take the universal layout's arrays, as training
    writes them).  ``bind(rules)`` gives it at one table, where it is a bot like any other: its encoder
    writes the universal observation of that table, and its masks and moves are the rules' own, translated
    into the network's 52-card layout and back inside the calls.  ``act``, ``probabilities`` and ``value``
    bind to the view's rules by themselves."""

    def __init__(self, probabilities, rules: Rules | None, name: str, sample: bool = False, seed: int | None = None,
                 metadata: dict | None = None, values=None, both=None):
        self._probabilities = probabilities  # (obs [B, size] float32, mask [B, N] int8) -> probs [B, N]
        self._values = values  # the same inputs -> the value head's estimate [B], where the file has one
        self._both = both  # the same inputs -> (probs, values) in one call of the network, where it can
        self.rules = rules
        """The rules it plays: those it was trained for, or those a universal bot is bound to (None: unbound)."""
        self.metadata = metadata or {}
        """What the file says of itself (``bot_metadata``)."""
        self.universal = bool(self.metadata.get("universal"))
        """Whether its network plays any rules (the universal layout)."""
        self.name = name
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self._root = self
        """The bot as loaded, which keeps the network, the random stream and the tables bound so far."""
        self._bound: dict[Rules, PolicyBot] = {}
        self.encoder = None if rules is None else ObservationEncoder(rules, self.universal)
        if self.encoder is not None:
            self._obs = np.zeros((1, self.encoder.size), dtype=np.float32)
            self._mask = np.zeros((1, self.encoder.num_actions), dtype=np.int8)

    def bind(self, rules: Rules) -> "PolicyBot":
        """This bot at a table of ``rules``: itself where it plays them; for a universal network, the network
        with its moves translated to ``rules``' layout (made once per rules); otherwise a ValueError."""
        if rules == self.rules:
            return self
        root = self._root
        if not self.universal:
            raise ValueError(f"{self.name} was trained for other rules ({self.rules.describe()}); "
                             f"this game is {rules.describe()}")
        bot = root._bound.get(rules)
        if bot is None:
            network = _translated((root._probabilities, root._values, root._both), rules)
            bot = root._bound[rules] = PolicyBot(*network[:1], rules, root.name, root.sample, None, root.metadata,
                                                 *network[1:])
            bot._root = root
        return bot

    def reset(self, seed: int | None = None) -> None:
        self._root.rng = np.random.default_rng(seed)

    def probabilities(self, view: SeatView) -> np.ndarray:
        bot = self.bind(view.rules)
        bot.encoder.encode(view, bot._obs[0])
        bot.encoder.mask(view, bot._mask[0])
        return np.asarray(bot._probabilities(bot._obs, bot._mask))[0]

    def choose_many(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The bot's moves for a batch of encoded observations and masks (as ``act`` picks them: the most
        probable legal move, or one sampled when ``sample``)."""
        probs = np.asarray(self._probabilities(obs, mask)) * (mask > 0)
        if not self.sample:
            return probs.argmax(axis=1)
        probs /= probs.sum(axis=1, keepdims=True)
        return np.array([self._root.rng.choice(len(p), p=p) for p in probs])

    def predict(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The probabilities [B, N] and the value head's estimates [B] (None without one) for a batch of encoded
        observations and masks, in one call of the network where the file allows it (a search's leaves)."""
        if self._both is not None:
            probs, values = self._both(obs, mask)
            return np.asarray(probs), np.asarray(values).reshape(-1)
        values = None if self._values is None else np.asarray(self._values(obs, mask)).reshape(-1)
        return np.asarray(self._probabilities(obs, mask)), values

    @property
    def has_value(self) -> bool:
        """Whether the file has a value head (files exported before 0.2 have none)."""
        return self._values is not None

    def value(self, view: SeatView) -> float | None:
        """The policy's estimate of the deal's outcome for the view's seat (-1 the fool, +1 first out), from
        the view alone; None for a bot file without a value head."""
        if self._values is None:
            return None
        bot = self.bind(view.rules)
        bot.encoder.encode(view, bot._obs[0])
        bot.encoder.mask(view, bot._mask[0])
        return float(np.asarray(bot._values(bot._obs, bot._mask)).reshape(-1)[0])

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        probs = self.probabilities(view)
        legal_probs = probs[list(legal)]
        if self.sample:
            p = legal_probs / legal_probs.sum()
            return int(legal[self._root.rng.choice(len(legal), p=p)])
        return int(legal[int(np.argmax(legal_probs))])


def _translated(network: tuple, rules: Rules) -> tuple:
    """A universal network's calls (probabilities, values, both; masks and probabilities in the 52-card layout)
    as calls whose masks and probabilities are in ``rules``' own layout."""
    probabilities, values, both = network
    into = np.array(translation(rules.deck_size))
    width = network_shape(None)[1]

    def widen(mask):
        wide = np.zeros((len(mask), width), dtype=np.int8)
        wide[:, into] = mask
        return wide

    def own_probabilities(obs, mask):
        return np.asarray(probabilities(obs, widen(mask)))[:, into]

    def own_values(obs, mask):
        return values(obs, widen(mask))

    def own_both(obs, mask):
        probs, value = both(obs, widen(mask))
        return np.asarray(probs)[:, into], value

    return own_probabilities, values and own_values, both and own_both


def _check_meta(meta: dict, path: str) -> Rules | None:
    """The rules a bot file's metadata names (None for a universal file, which plays any), or a ValueError
    saying why the file cannot be read."""
    if not isinstance(meta, dict) or "rules" not in meta:
        raise ValueError(f"{path} carries no durak_env metadata; export bots with `durak export`")
    if meta.get("observation_version") != OBSERVATION_VERSION or meta.get("layout_version") != LAYOUT_VERSION:
        raise ValueError(
            f"{path} was made for observation layout v{meta.get('observation_version')} and action layout "
            f"v{meta.get('layout_version')}; this durak_env reads v{OBSERVATION_VERSION} and v{LAYOUT_VERSION}")
    if meta.get("universal") is True and meta["rules"] is None:
        return None
    try:
        rules = Rules.from_dict(meta["rules"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"{path} names rules this durak_env cannot read: {err}") from None
    # The words come from the rules, in the presets' names of today: a file made before the presets were renamed
    # says "seed003, 4 players" for "tournament, 4 players".
    meta["trained_for"] = rules.describe()
    return rules


def bot_digest(path: str | Path) -> str:
    """A bot file's identity in results kept across runs (which bot played them): its sha256's first 16 hex
    digits."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def load_bot(path: str | Path, rules: Rules | None = None, sample: bool = False,
             seed: int | None = None) -> PolicyBot | WeightsBot:
    """A bot from an exported ``.onnx`` or TorchScript file, or a weights file; refuses a file made for other
    rules.  With ``rules``, a universal file comes bound to them (``PolicyBot.bind``)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no bot file at {path}")
    name = path.name
    head = path.read_bytes()[:4]
    if name.endswith(WEIGHTS_SUFFIX):
        bot = load_weights(path, sample, seed)
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
        extra = [n for n in names if n.endswith(f"extra/{METADATA_KEY}.json")]
        if not extra:
            raise ValueError(f"{path} is not an exported bot (a training checkpoint? export it with `durak export`)")
        bot = _load_torchscript(path, name, sample, seed)
    elif path.suffix == ".onnx" or head[:1] == b"\x08":
        bot = _load_onnx(path, name, sample, seed)
    else:
        raise ValueError(f"{path} is not a bot file (ONNX or TorchScript from `durak export`)")
    return bot if rules is None else bot.bind(rules)


def _load_onnx(path: Path, name: str, sample: bool, seed) -> PolicyBot:
    import onnxruntime as ort

    try:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as err:
        raise ValueError(f"{path} is not a readable ONNX bot ({type(err).__name__})") from None
    raw = session.get_modelmeta().custom_metadata_map.get(METADATA_KEY)
    try:
        meta = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        meta = None
    rules = _check_meta(meta, str(path))

    def probabilities(obs, mask):
        return session.run(["probabilities"], {"observation": obs, "action_mask": mask})[0]

    def values(obs, mask):
        return session.run(["value"], {"observation": obs, "action_mask": mask})[0]

    def both(obs, mask):
        return session.run(["probabilities", "value"], {"observation": obs, "action_mask": mask})

    has_value = any(o.name == "value" for o in session.get_outputs())  # files exported before 0.2 have none
    return PolicyBot(probabilities, rules, name, sample, seed, meta, values if has_value else None,
                     both if has_value else None)


def _load_torchscript(path: Path, name: str, sample: bool, seed) -> PolicyBot:
    import torch

    extra = {f"{METADATA_KEY}.json": ""}
    try:
        module = torch.jit.load(str(path), map_location="cpu", _extra_files=extra)
    except Exception as err:
        raise ValueError(f"{path} is not a readable TorchScript bot ({type(err).__name__})") from None
    try:
        meta = json.loads(extra[f"{METADATA_KEY}.json"])
    except json.JSONDecodeError:
        meta = None
    rules = _check_meta(meta, str(path))
    module.eval()

    def outputs(obs, mask):
        with torch.no_grad():
            out = module(torch.from_numpy(obs), torch.from_numpy(mask))
        return out if isinstance(out, tuple) else (out, None)  # files exported before 0.2: probabilities only

    def values(obs, mask):
        return outputs(obs, mask)[1].numpy()

    size, actions = network_shape(rules)
    has_value = outputs(np.zeros((1, size), np.float32), np.ones((1, actions), np.int8))[1] is not None
    return PolicyBot(lambda obs, mask: outputs(obs, mask)[0].numpy(), rules, name, sample, seed, meta,
                     values if has_value else None)


# ----- weights files: the network in plain Python, for a browser page ------------------------------------------


def onnx_weights(path: str | Path) -> dict:
    """The named float32 arrays of an ONNX bot file's network (``net.trunk.0.weight``, ..., ``net.pi.bias``,
    ``net.v.weight``: ``ActionProbabilities(PolicyNet)``'s state); the caller has read it with ``load_bot``."""
    import onnx
    from onnx import numpy_helper

    return {w.name: numpy_helper.to_array(w).astype(np.float32) for w in onnx.load(str(path)).graph.initializer}


def _packed(array) -> str:
    """An array as base64 little-endian float32s (``_floats`` reads them)."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode()


def weights_json(bot_file: str | Path) -> str:
    """The ONNX bot file ``bot_file`` as a weights file's text: its metadata, and each layer's weight (transposed
    for the trunk, whose inputs are mostly zero) and bias as base64 float32."""
    bot = load_bot(bot_file)  # refuses what is not a bot file
    arrays = onnx_weights(bot_file)
    trunk = []
    for k in range(len(bot.metadata["hidden_sizes"])):
        weight, bias = arrays[f"net.trunk.{2 * k}.weight"], arrays[f"net.trunk.{2 * k}.bias"]
        trunk.append({"inputs": int(weight.shape[1]), "weight_t": _packed(weight.T), "bias": _packed(bias)})
    heads = {name: {"inputs": int(arrays[f"net.{key}.weight"].shape[1]), "weight": _packed(arrays[f"net.{key}.weight"]),
                    "bias": _packed(arrays[f"net.{key}.bias"])} for name, key in (("policy", "pi"), ("value", "v"))}
    return json.dumps({"format": WEIGHTS_FORMAT, "meta": bot.metadata, "trunk": trunk, **heads})


def write_weights(bot_file: str | Path, out: str | Path) -> Path:
    """Write the ONNX bot file ``bot_file`` as a weights file at ``out`` (``weights_json``)."""
    out = Path(out)
    out.write_text(weights_json(bot_file))
    return out


def _floats(text: str, width: int) -> list[list[float]]:
    """base64 float32s as rows of ``width`` Python floats."""
    values = array("f")
    values.frombytes(base64.b64decode(text))
    return [values[i:i + width].tolist() for i in range(0, len(values), width)]


class WeightsBot:
    """A weights file's network in plain Python: ``PolicyBot``'s observation, moves, probabilities and value,
    without numpy or onnxruntime (a browser page).  The trunk adds up only the inputs that are not zero.  A
    universal file's network plays the rules of each view it is given (its moves translated into the
    network's 52-card layout and back)."""

    has_value = True
    """A weights file always carries the value head."""

    def __init__(self, data: dict, name: str, sample: bool = False, seed: int | None = None):
        self.metadata = data["meta"]
        self.rules = _check_meta(self.metadata, name)
        self.universal = self.rules is None
        self.name = Path(name).name
        self.sample = sample
        self.rng = random.Random(seed)
        self._encoders: dict[Rules, ObservationEncoder] = {}
        try:
            self._read(data)
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as err:  # binascii.Error is a ValueError
            raise ValueError(f"{name} is a damaged weights file ({type(err).__name__}: {err})") from None
        if self._shape() != self._expected_shape():
            raise ValueError(f"{name}: its layers ({self._shape()}) are not the network its metadata names "
                             f"({self._expected_shape()})")

    def _read(self, data: dict) -> None:
        self._trunk = []
        for layer in data["trunk"]:
            bias = [b[0] for b in _floats(layer["bias"], 1)]
            self._trunk.append((_floats(layer["weight_t"], len(bias)), bias))
        policy, value = data["policy"], data["value"]
        self._pi = _floats(policy["weight"], policy["inputs"])
        self._pi_bias = [b[0] for b in _floats(policy["bias"], 1)]
        self._v = _floats(value["weight"], value["inputs"])[0]
        self._v_bias = _floats(value["bias"], 1)[0][0]

    def _shape(self) -> list:
        """Every layer's (inputs, outputs), as read; a row of the wrong length shows as None."""
        shape = [(len(columns), len(bias) if all(len(c) == len(bias) for c in columns) else None)
                 for columns, bias in self._trunk]
        width = len(self._v)
        pi_fits = all(len(row) == width for row in self._pi) and len(self._pi_bias) == len(self._pi)
        return shape + [(width, len(self._pi) if pi_fits else None)]

    def _expected_shape(self) -> list:
        size, actions = network_shape(None if self.universal else self.rules)
        widths = [size, *self.metadata.get("hidden_sizes", [])]
        return [*zip(widths, widths[1:]), (widths[-1], actions)]

    def bind(self, rules: Rules) -> "WeightsBot":
        """This bot at a table of ``rules`` (``PolicyBot.bind``): itself, once it is known to play them."""
        self._encoder(rules)
        return self

    def _encoder(self, rules: Rules) -> ObservationEncoder:
        """The encoder of ``rules`` (a ValueError for rules a specialist was not trained for)."""
        if not self.universal and rules != self.rules:
            raise ValueError(f"{self.name} was trained for other rules ({self.rules.describe()}); "
                             f"this game is {rules.describe()}")
        encoder = self._encoders.get(rules)
        if encoder is None:
            encoder = self._encoders[rules] = ObservationEncoder(rules, self.universal)
        return encoder

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def _features(self, view: SeatView) -> list[float]:
        x = self._encoder(view.rules).encode_floats(view)
        for columns, bias in self._trunk:
            h = list(bias)
            for i, v in enumerate(x):
                if v:
                    h = [a + v * w for a, w in zip(h, columns[i])]
            x = [a if a > 0.0 else 0.0 for a in h]  # ReLU
        return x

    def _legal_probabilities(self, h: list[float], legal, rules: Rules) -> list[float]:
        into = self._encoder(rules).into
        logits = [self._pi_bias[into[a]] + sum(map(operator.mul, self._pi[into[a]], h)) for a in legal]
        top = max(logits)
        weights = [math.exp(z - top) for z in logits]
        total = sum(weights)
        return [w / total for w in weights]

    def probabilities(self, view: SeatView) -> list[float]:
        """The policy's probability of every action (0 for the illegal ones), as ``PolicyBot.probabilities``."""
        out = [0.0] * self._encoder(view.rules).num_actions
        legal = view.legal_actions
        for action, p in zip(legal, self._legal_probabilities(self._features(view), legal, view.rules)):
            out[action] = p
        return out

    def value(self, view: SeatView) -> float:
        h = self._features(view)
        return self._v_bias + sum(map(operator.mul, self._v, h))

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        probs = self._legal_probabilities(self._features(view), legal, view.rules)
        if self.sample:
            return self.rng.choices(legal, weights=probs)[0]
        return legal[probs.index(max(probs))]


def load_weights(path: str | Path, sample: bool = False, seed: int | None = None) -> WeightsBot:
    """A bot from a weights file (``write_weights``)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path} is not a readable weights file ({type(err).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != WEIGHTS_FORMAT or not isinstance(data.get("meta"), dict):
        raise ValueError(f"{path} is not a weights file of this durak_env ({WEIGHTS_FORMAT})")
    return WeightsBot(data, str(path), sample, seed)
