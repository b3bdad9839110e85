"""Record the replay-regression fixture: ``python tests/make_replays.py`` writes tests/data/replays.json.

Seeded random games over several presets.  For each game the fixture keeps the
actions played and, per step, a short digest of the position (its snapshot, the
legal moves and the acting seat's observation), plus the final snapshot.
test_replays.py replays the actions and compares every digest: an optimisation
that changes any behaviour, legal set or observation fails it.  Rerun this only
when a change of behaviour is intended, and say so in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from durak_env import Game, Rules  # noqa: E402
from durak_env.observation import ObservationEncoder  # noqa: E402

FIXTURE = Path(__file__).parent / "data" / "replays.json"
GAMES = [("podkidnoy", {}, 1), ("podkidnoy", {}, 2), ("perevodnoy", {}, 3), ("attacker-only", {}, 4),
         ("after-beaten-transfer", {}, 5), ("neighbours", {"num_players": 4}, 6),
         ("tournament", {"num_players": 3}, 7), ("tournament", {"num_players": 6, "deck_size": 52}, 8),
         ("podkidnoy", {}, 9), ("perevodnoy", {"num_players": 5}, 10),
         ("perevodnoy", {}, 11)]  # four bouts where a transfer made the opener the defender (issue 17)


def digest(game: Game, encoder: ObservationEncoder) -> str:
    """Eight hex digits summing up the position, its legal moves and the acting seat's observation."""
    h = hashlib.sha256(json.dumps(game.to_dict(), sort_keys=True).encode())
    h.update(repr(list(game.legal_actions())).encode())  # recorded when the legal set was a list
    seat = game.to_act if not game.is_over else 0
    h.update(encoder.encode(game.view(seat)).tobytes())
    return h.hexdigest()[:8]


def record(preset: str, overrides: dict, seed: int) -> dict:
    rules = Rules.preset(preset, **overrides)
    game, rng, encoder = Game(rules, seed), random.Random(seed), ObservationEncoder(rules)
    actions, digests = [], [digest(game, encoder)]
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        game.step(action)
        actions.append(action)
        digests.append(digest(game, encoder))
    return {"preset": preset, "overrides": overrides, "seed": seed, "actions": actions, "digests": digests,
            "final": game.to_dict()}


def main() -> None:
    """Record the games of ``GAMES`` missing from the fixture, keeping every game already recorded as it is;
    ``--all`` records them all afresh."""
    FIXTURE.parent.mkdir(exist_ok=True)
    kept = {} if "--all" in sys.argv or not FIXTURE.exists() else {
        (g["preset"], json.dumps(g["overrides"], sort_keys=True), g["seed"]): g for g in json.loads(FIXTURE.read_text())}
    data = [kept.get((p, json.dumps(o, sort_keys=True), s)) or record(p, o, s) for p, o, s in GAMES]
    FIXTURE.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {FIXTURE} ({len(data)} games, {sum(len(g['actions']) for g in data)} steps)")


if __name__ == "__main__":
    main()
