"""The wheel's native engine and its Python reference play alike: the same seeded games, one digest per game.

    python tests/builds_agree.py OUT.json              # the engine the environments play on here
    DURAK_PURE_PYTHON=1 python tests/builds_agree.py OUT.json   # the Python reference
    python tests/builds_agree.py --compare A.json B.json

Every preset at every table size it allows, a few seeded games each, random legal moves: at every position the
digest takes in the legal set, every seat's observation and mask, and at the end the result.  Moves go in as
numpy integers by turns through ``step`` and ``play_unchecked`` (the public API takes them on both engines), and
``next_in`` is asked with one.  CI runs it in the installed wheel's environment on both engines and compares
(.ci/wheel-test): the native engine as a wheel builds it, held to the reference; tests/test_builds_agree.py runs it
on the source.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import numpy as np

GAMES = 8
"""Games per preset and table size."""


def digests() -> dict[str, str]:
    from durak_env import Rules
    from durak_env.engine.rules import MAX_PLAYERS, MIN_PLAYERS
    from durak_env.native import NativeGame, new_game
    from durak_env.observation import ObservationEncoder

    out = {}
    for preset in Rules.presets():
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            try:
                rules = Rules.preset(preset, num_players=players)
            except ValueError:
                continue  # the deck cannot seat that many
            enc = ObservationEncoder(rules)
            for g in range(GAMES):
                rng = random.Random(f"{preset}/{players}/{g}")
                game = new_game(rules, np.int64(g))
                h = hashlib.sha256()
                while not game.is_over:
                    legal = game.legal_actions()
                    h.update(repr((game.to_act, legal, game.next_in(np.int64(game.to_act)))).encode())
                    for seat in range(players):
                        if isinstance(game, NativeGame):
                            obs, mask = game.observe(seat)
                        else:
                            obs, mask = enc.encode_game(game, seat), enc.mask_game(game, seat)
                        h.update(obs.tobytes())
                        h.update(mask.tobytes())
                    action = np.int64(legal[rng.randrange(len(legal))])
                    game.step(action) if rng.random() < 0.5 else game.play_unchecked(action)
                r = game.result
                h.update(repr((r.placings, r.points, r.fool, r.drawn, r.capped)).encode())
                out[f"{preset}/{players}/{g}"] = h.hexdigest()
    return out


def compare(a: dict, b: dict) -> list[str]:
    """The games whose digests differ (or that one side lacks), by name."""
    return [k for k in sorted(set(a["games"]) | set(b["games"])) if a["games"].get(k) != b["games"].get(k)]


def main(argv: list[str]) -> int:
    if argv[:1] == ["--compare"] and len(argv) == 3:
        a, b = (json.loads(open(p).read()) for p in argv[1:])
        differ = compare(a, b)
        if differ:
            print(f"builds_agree: {a['build']} and {b['build']} differ in {len(differ)} of {len(a['games'])} games, "
                  f"first {differ[0]}", file=sys.stderr)
            return 1
        print(f"builds_agree: {a['build']} and {b['build']} agree on {len(a['games'])} games")
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    from durak_env.native import engine_name

    build = engine_name()
    with open(argv[0], "w") as f:
        json.dump({"build": build, "games": digests()}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
