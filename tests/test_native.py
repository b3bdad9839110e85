"""The native engine (durak_env._native) against the Python reference: the same deals for the same seeds, the same
legal moves, refusals, observations, results and rewards at every decision, the vector core's arrays bit for bit,
and bad input refused in one line without a crash.

The README's test command builds the native engine (an editable install compiles it), so these tests run it; with
DURAK_PURE_PYTHON=1 the package is the reference alone (``test_pure_python_runs_the_reference``).
"""

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from durak_env.engine.game import Game, IllegalAction
from durak_env.engine.refusal import Refusal
from durak_env.engine.rules import Rules
from durak_env.environment import raw_env
from durak_env.vector_games import make_vector_games
from durak_env.native import (REFUSALS, NativeGame, NativeVectorGames, _native, available,
                              native_game, rules_fields, seed_words, to_native, to_reference)
from durak_env.vector import SelfPlayVectorEnv
from durak_env.vector_games import VectorGames

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import differential  # noqa: E402  (benchmarks/differential.py: the comparison itself)

pytestmark = pytest.mark.skipif(bool(os.environ.get("DURAK_PURE_PYTHON")), reason="DURAK_PURE_PYTHON: no native engine")


def test_the_native_engine_is_built_by_the_test_install():
    assert available(), "durak_env._native is missing: the editable install of the README's test command builds it"


@pytest.mark.parametrize("rules", differential.tables(), ids=lambda r: r.describe())
def test_every_preset_at_every_table_agrees_move_for_move(rules):
    rng = random.Random(repr(rules))
    decisions = 0
    for k in range(3):
        decisions += differential.compare_deal(rules, rng.getrandbits(64), rng.randrange(rules.num_players), rng,
                                               heuristic=k == 2)
    assert decisions > 3 * 20  # real deals were compared, not empty ones


def test_random_rules_agree_move_for_move():
    rng = random.Random(7)
    decisions = sum(differential.compare_deal(rules, rng.getrandbits(64), 0, rng)
                    for rules in (differential.deal_rules(rng) for _ in range(60)))
    assert decisions > 60 * 20


def test_a_disagreement_is_caught(monkeypatch):
    """The comparison can fail: a native engine that answers another legal set (here, the reference's changed
    under it) is reported with the deal and the moves that reach it."""
    real = Game.legal_actions

    def shifted(self):
        legal = real(self)
        return legal[1:] if len(legal) > 2 else legal

    monkeypatch.setattr(Game, "legal_actions", shifted)
    with pytest.raises(differential.Disagreement, match="legal moves.*\n  deal: rules="):
        differential.compare_deal(Rules(), 5, 0, random.Random(0))


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**64 - 1, 2**64 + 12345, -77, 10**40])
def test_the_same_seed_deals_the_same_cards(seed):
    """random.Random's seeding and shuffle, reproduced: any integer seed, negative and past 64 bits too."""
    for rules in (Rules(), Rules.preset("perevodnoy", num_players=4, deck_size=52), Rules.preset("throw-after-take")):
        ref, nat = Game(rules, seed, 1), native_game(rules, seed, 1)
        assert Game.assemble(rules, **nat.facts()).to_dict() == ref.to_dict()
    assert seed_words(seed)[0] == abs(seed) & 0xFFFFFFFF


def test_a_redeal_draws_on_from_the_same_stream():
    """Seed 002: "If nobody holds a trump, the cards are dealt again": the native engine shuffles again from the
    same generator, as the reference does, so a redealt seed still deals the same cards."""
    rules = Rules.preset("throw-after-take", num_players=2, deck_size=52, hand_size=1)
    redealt = [s for s in range(400) if _first_shuffle_has_no_trump(rules, s)]
    assert redealt, "no seed among 400 needed a redeal"
    for seed in redealt[:5]:
        assert Game.assemble(rules, **native_game(rules, seed).facts()).to_dict() == Game(rules, seed).to_dict()


def _first_shuffle_has_no_trump(rules: Rules, seed: int) -> bool:
    from durak_env.engine.cards import deck
    cards = deck(rules.deck_size)
    random.Random(seed).shuffle(cards)
    return not Game(_empty=True)._deal(rules, cards, 0)


def test_snapshots_carry_over_between_the_engines():
    """Mid-deal, a reference game's facts make a native game that plays on identically, and back."""
    rng = random.Random(3)
    rules = Rules.preset("perevodnoy", num_players=3)
    ref = Game(rules, 11)
    for _ in range(25):
        ref.step(rng.choice(ref.legal_actions()))
    nat = to_native(ref)
    back = to_reference(nat, rules)
    assert back.to_dict() == ref.to_dict()
    while ref.result is None:
        action = rng.choice(ref.legal_actions())
        ref.step(action)
        nat.play(action)
        assert nat.legal_actions() == ref.legal_actions()
    assert nat.result == (ref.result.placings, ref.result.points, ref.result.fool, ref.result.drawn, ref.result.capped)
    assert to_reference(nat, rules).last_bout == ref.last_bout


def _python_and_native(rules, envs, seed, **kw):
    py, nat = VectorGames(rules, envs, **kw), make_vector_games(rules, envs, **kw)
    assert isinstance(nat, NativeVectorGames)
    py.reset(seed)
    nat.reset(seed)
    return py, nat


ARRAYS = ("obs", "mask", "seats", "rewards", "ended", "truncated")


@pytest.mark.parametrize("preset,players,limit", [("podkidnoy", 2, 110), ("perevodnoy", 4, 230), ("tournament", 6, 300),
                                                  ("after-beaten", 3, 170)])
def test_the_vector_core_writes_the_reference_arrays_bit_for_bit(preset, players, limit):
    rules = Rules.preset(preset, num_players=players)
    py, nat = _python_and_native(rules, 16, 5, max_moves=limit)  # about a tenth of the deals cut off
    threaded = make_vector_games(rules, 16, max_moves=limit, threads=3)  # three threads share the deals
    threaded.reset(5)
    rng = np.random.default_rng(0)
    ends = truncations = 0
    for step in range(400):
        for name in ARRAYS:
            assert getattr(py, name).tobytes() == getattr(nat, name).tobytes() == getattr(threaded, name).tobytes(), \
                (name, step)
        assert (py.played, py.moves, py.final_moves) == (nat.played, nat.moves, nat.final_moves)
        assert (threaded.played, threaded.moves) == (nat.played, nat.moves)
        actions = np.array([rng.choice(g.legal_actions()) for g in py.games])  # the masks of rows not written are old
        if step % 3:
            for vec in (py, nat, threaded):
                vec.step(actions)
        else:  # the trainer's way: seats only, then the rows it reads
            rows = sorted(rng.choice(16, 5, replace=False).tolist())
            for vec in (py, nat, threaded):
                vec.step(actions, write=False)
                vec.write(rows)
        ends += int(py.ended.sum())
        truncations += int(py.truncated.sum())
    assert ends and truncations


def test_a_deal_its_forced_opening_moves_end_is_dealt_again_in_both_engines():
    """Found by fuzzing the native core: with one card each and a bout cap of one, a deal can end before anyone
    has a choice, and the vector wrote an observation for seat -1.  Both engines now deal that row again."""
    rules = Rules(num_players=4, deck_size=24, hand_size=1, max_attacks=1, max_attacks_early=1, max_bouts=1,
                  throw_in="attacker")
    py, nat = _python_and_native(rules, 32, 1)
    rng = np.random.default_rng(2)
    for _ in range(20):
        assert (py.seats >= 0).all() and py.mask.any(axis=1).all()
        for name in ARRAYS:
            assert getattr(py, name).tobytes() == getattr(nat, name).tobytes()
        assert (py.played, py.moves) == (nat.played, nat.moves)
        actions = (rng.random(py.mask.shape) * py.mask).argmax(1)
        py.step(actions)
        nat.step(actions)
    assert py.played > 32 * 20 * 2  # the redealt deals' forced moves are counted


def test_the_vector_core_deals_are_the_aec_deals():
    """A native vector's deal i is still ``raw_env().reset(seed=seed + i)``'s deal, as the reference's is."""
    nat = make_vector_games(Rules(), 4)
    nat.reset(100)
    for i in range(4):
        ref = Game(Rules(), random.Random(100 + i).getrandbits(64))
        ref.play_forced()
        assert nat.games[i].to_dict() == ref.to_dict()


def test_selfplay_vector_env_with_workers_is_native_and_matches_the_reference():
    native = SelfPlayVectorEnv("perevodnoy", num_envs=6, workers=2)
    python = SelfPlayVectorEnv("perevodnoy", num_envs=6, workers=2, engine="python")
    try:
        assert isinstance(native._local, NativeVectorGames) and isinstance(python._local, VectorGames)
        native.reset(seed=9)
        python.reset(seed=9)
        rng = np.random.default_rng(1)
        for _ in range(150):
            for name in ARRAYS:
                assert getattr(native, name).tobytes() == getattr(python, name).tobytes()
            actions = (rng.random(native.mask.shape) * native.mask).argmax(1)
            native.step(actions)
            python.step(actions)
    finally:
        native.close()
        python.close()


def test_an_illegal_vector_action_is_refused_with_the_engines_code_and_changes_nothing():
    py, nat = _python_and_native(Rules(), 3, 2)
    before = {name: getattr(nat, name).copy() for name in ARRAYS}
    actions = nat.mask.argmax(1)
    actions[1] = int(np.flatnonzero(nat.mask[1] == 0)[0])
    with pytest.raises(IllegalAction) as native_err:
        nat.step(actions)
    with pytest.raises(IllegalAction) as python_err:
        py.step(actions)
    assert native_err.value.code == python_err.value.code != Refusal.NOT_LEGAL
    assert str(native_err.value) == str(python_err.value)
    for name in ARRAYS:
        assert np.array_equal(getattr(nat, name), before[name])
    with pytest.raises(IllegalAction, match="integer actions") as err:
        nat.step(np.zeros(3, np.float32))
    assert err.value.code == Refusal.NOT_AN_ACTION


@pytest.mark.parametrize("preset,players", [("podkidnoy", 2), ("perevodnoy", 3), ("tournament", 5)])
def test_the_aec_environment_plays_the_same_on_both_engines(preset, players):
    """raw_env() on the native engine (the default where it is built) and on the reference: the same observations,
    masks, rewards, ends, infos, snapshots and refusals, decision for decision, over several deals."""
    envs = [raw_env(Rules.preset(preset, num_players=players), engine=e) for e in ("auto", "python")]
    for env in envs:
        env.reset(seed=3)
    assert isinstance(envs[0].game, NativeGame) and not isinstance(envs[1].game, NativeGame)
    rng = random.Random(0)
    deals = 0
    for _ in range(1500):
        native, python = (env.last() for env in envs)
        assert native[0]["observation"].tobytes() == python[0]["observation"].tobytes()
        assert native[0]["action_mask"].tobytes() == python[0]["action_mask"].tobytes()
        assert native[1:] == python[1:] and envs[0].agent_selection == envs[1].agent_selection
        if native[2] or native[3]:
            for env in envs:
                env.step(None)
            if not envs[0].agents:
                deals += 1
                for env in envs:
                    env.reset()
            continue
        assert envs[0].game.to_dict() == envs[1].game.to_dict()
        agent = envs[0].agent_selection
        assert envs[0].view(agent) == envs[1].view(agent)
        illegal = int(np.flatnonzero(native[0]["action_mask"] == 0)[rng.randrange(10)])
        errors = []
        for env in envs:
            with pytest.raises(IllegalAction) as err:
                env.step(illegal)
            errors.append((str(err.value), err.value.code, err.value.legal))
        assert errors[0] == errors[1]
        action = rng.choice(np.flatnonzero(native[0]["action_mask"]).tolist())
        for env in envs:
            env.step(action)
    assert deals >= 3


class TestBadInput:
    """The native API checks what it is given: a wrong value is one ValueError or TypeError, never a crash."""

    def test_rules(self):
        with pytest.raises(ValueError, match="rules out of range"):
            _native.Game([7, *rules_fields(Rules())[1:]], [1], 0)
        with pytest.raises(ValueError, match="14 fields"):
            _native.Game([2, 36], [1], 0)
        with pytest.raises(TypeError):
            _native.Game("podkidnoy", [1], 0)

    def test_seats_seeds_and_decks(self):
        fields = rules_fields(Rules())
        for first in (-1, 2):
            with pytest.raises(ValueError, match="first_seat"):
                _native.Game(fields, [1], first)
        with pytest.raises(ValueError, match="at least one"):
            _native.Game(fields, [], 0)
        with pytest.raises(TypeError):
            _native.Game(fields, [-1], 0)
        with pytest.raises(ValueError, match="each card of the deck once"):
            _native.Game.from_deck(fields, [0] * 36, 0)

    def test_actions(self):
        nat = native_game(Rules(), 3)
        for action in (-1, 10**6, nat.legal_actions()[0] + 1000):
            with pytest.raises(ValueError, match="not a legal action"):
                nat.play(action)
        assert REFUSALS[nat.refusal(2**62)] == Refusal.NOT_AN_ACTION
        with pytest.raises(TypeError):
            nat.play(2**80)
        assert nat.refusal(np.int64(-1)) == list(Refusal).index(Refusal.NOT_AN_ACTION)

    def test_facts(self):
        ref = Game(Rules(), 4)
        good = dict(ref.to_dict())
        fields = rules_fields(Rules())
        args = [fields, ref.trump_card, ref.stock, ref.hands, ref.discard, ref.known, [], [], [], ref.attacker,
                ref.defender, ref.opener, 0, False, 0, 0]
        _native.Game.assemble(*args)
        for index, bad in [(1, 99), (1, 0), (2, [60]), (3, [1 << 63, 0]), (6, [[0], [0]]), (6, [[5]]), (9, 2),
                           (12, 8), (14, -1)]:
            with pytest.raises(ValueError):
                _native.Game.assemble(*args[:index], bad, *args[index + 1:])
        assert good == ref.to_dict()

    def test_arrays(self):
        rules = Rules()
        shapes = {"obs": np.zeros((2, 309), np.float32), "mask": np.zeros((2, 110), np.int8),
                  "seats": np.zeros(2, np.int64), "rewards": np.zeros((2, 2), np.float32),
                  "ended": np.zeros(2, bool), "truncated": np.zeros(2, bool)}
        NativeVectorGames(rules, 2, arrays=shapes).reset(0)
        for name, bad in [("obs", np.zeros((2, 308), np.float32)), ("obs", np.zeros((2, 309), np.float64)),
                          ("mask", np.zeros((3, 110), np.int8)), ("seats", np.zeros(2, np.int32)),
                          ("obs", np.zeros((2, 618), np.float32)[:, ::2])]:
            with pytest.raises((ValueError, TypeError)):
                NativeVectorGames(rules, 2, arrays={**shapes, name: bad})
        vec = NativeVectorGames(rules, 2)
        vec.reset(0)
        with pytest.raises(IllegalAction, match="2 integer actions"):
            vec.step([1, 2, 3])
        with pytest.raises(ValueError, match="row out of range"):
            vec.write([5])


def test_pure_python_runs_the_reference():
    """DURAK_PURE_PYTHON=1: no native engine, and the environments play on the reference."""
    code = ("from durak_env.native import available; from durak_env.vector_games import make_vector_games; "
            "from durak_env.engine.rules import Rules; "
            "print(available(), type(make_vector_games(Rules(), 2)).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DURAK_PURE_PYTHON": "1"})
    assert out.stdout.split() == ["False", "VectorGames"], out.stderr
