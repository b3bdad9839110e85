"""Hardening (issue 7): every illegal action in every phase, fuzzed rules / snapshots / configs,
determinism with every global generator stirred, and the soak's CI run."""

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import durak_env
from durak_env import Game, IllegalAction, Rules, encode_action
from durak_env.engine.invariants import check_invariants, random_rules
from training.config import ConfigError, TrainConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

JUNK = [-1, -(10**9), 10**9, 2.5, "3", "attack 6D", None, True, False, [1], {"a": 1}, object()]


def phases(game: Game) -> set[str]:
    if game.is_over:
        return {"over"}
    out = {"full table"} if game.attacks and not game._room() else set()  # no room: adding is over the cap
    if game.to_act == game.defender and game.open_count and not game.taking:
        return out | {"transfer" if game._can_transfer() else "defend"}
    if game.taking:
        return out | {"throw after take"}
    return out | {"lead" if not game.attacks else "throw in"}


def positions(count: int, seed: int = 0):
    """Positions from random play over presets and random rules, each phase included."""
    rng = random.Random(seed)
    for k in range(count):
        rules = random_rules(rng) if k % 2 else Rules.preset(rng.choice(list(Rules.presets())),
                                                             transfer=rng.random() < 0.5)
        game = Game(rules, seed=k)
        while not game.is_over:
            if rng.random() < 0.15:
                yield game
            game.step(rng.choice(game.legal_actions()))
        yield game


def test_every_illegal_action_in_every_phase_is_refused_and_changes_nothing():
    seen_phases = set()
    checked = 0
    for game in positions(60):
        seen_phases |= phases(game)
        before = game.to_dict()
        legal = list(game.legal_actions())
        size = 3 * game.rules.deck_size + 2
        for action in [a for a in range(size) if a not in legal] + JUNK:
            with pytest.raises(IllegalAction) as err:
                game.step(action)
            text = str(err.value)
            assert repr(action) in text or "game is over" in text
            if not game.is_over:
                assert "legal: " in text and "not allowed here" not in text
            assert err.value.legal == tuple(legal)
            checked += 1
        if not game.is_over:
            other = (game.to_act + 1) % game.n
            with pytest.raises(IllegalAction, match=f"player {other} tried .* it is player {game.to_act}'s turn"):
                game.step(legal[0], seat=other)
        assert game.to_dict() == before and game.legal_actions() == legal
        check_invariants(game)
    assert seen_phases >= {"lead", "throw in", "defend", "transfer", "throw after take", "full table", "over"}
    assert checked > 50_000


def test_each_kind_of_refusal_says_why():
    game = Game(Rules.preset("podkidnoy"), seed=1)  # player 0 leads
    rules = game.rules
    not_held = next(c for c in ("6C", "7C", "8C", "9C", "10C", "6S", "7S") if c not in map(str, game.hand(0)))
    cases = {
        encode_action("take", rules): "leading the attack, not defending",
        encode_action("done", rules): "the bout's first card must be played",
        encode_action(f"attack {not_held}", rules): f"does not hold {not_held}",
        encode_action("transfer 6D", rules): "not defending",
    }
    for action, words in cases.items():
        with pytest.raises(IllegalAction, match=words):
            game.step(action)
    game.step(game.legal_actions()[0])
    while game.to_act != game.defender:
        game.step(encode_action("done", rules))  # the throwers pass: the defender answers
    d = game.defender
    with pytest.raises(IllegalAction, match=f"player {d} is defending"):
        game.step(encode_action("done", rules))
    weak = next(c for c in game.hand(d) if encode_action(f"defend {c}", rules) not in game.legal_actions())
    with pytest.raises(IllegalAction, match=f"{weak} does not beat {durak_env.Card(game.attacks[0])}"):
        game.step(encode_action(f"defend {weak}", rules))
    with pytest.raises(IllegalAction, match="these rules have no transfer"):
        game.step(encode_action(f"transfer {game.hand(d)[0]}", rules))


def test_raw_env_refuses_illegal_actions_and_actions_after_the_end():
    env = durak_env.raw_env()
    env.reset(seed=2)
    obs, *_ = env.last()
    before = env.unwrapped.game.to_dict()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="legal"):
        env.step(illegal)
    assert env.unwrapped.game.to_dict() == before
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError, match="None"):
                env.step(0)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ----- rules -------------------------------------------------------------------------------

FIELD_VALUES = st.one_of(st.integers(-3, 60), st.none(), st.booleans(), st.text(max_size=12),
                         st.sampled_from(["attacker", "neighbours", "all", "first_bout", "first_discard",
                                          "bout_start", "current_hand", "first_seat", "redeal", "after_dealer",
                                          "seat_zero", "rotate", "fool_deals"]),
                         st.floats(allow_nan=True), st.lists(st.integers(), max_size=2))
FIELDS = list(Rules().to_dict())


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELDS), FIELD_VALUES, min_size=1, max_size=5))
def test_any_rules_value_is_accepted_or_refused_naming_a_field(values):
    try:
        rules = Rules(**values)
    except ValueError as err:
        text = str(err)
        assert "\n" not in text
        assert any(name in text for name in FIELDS), text
        return
    assert Rules.from_dict(rules.to_dict()) == rules
    game = Game(rules, seed=1)
    while not game.is_over:
        game.step(game.legal_actions()[0])


def test_random_rules_cover_every_field_and_value():
    rng = random.Random(0)
    drawn = [random_rules(rng).to_dict() for _ in range(3000)]
    for name in FIELDS:
        if name in ("match_deals", "next_deal"):
            continue  # match settings: the presets' values
        assert len({json.dumps(d[name]) for d in drawn}) > 1, name
    assert {d["num_players"] for d in drawn} == set(range(2, 7))
    assert {d["deck_size"] for d in drawn} == {24, 36, 52}


# ----- snapshots -----------------------------------------------------------------------------

def mutate(snap: dict, data) -> dict:
    snap = json.loads(json.dumps(snap))
    key = data.draw(st.sampled_from(sorted(snap)))
    how = data.draw(st.sampled_from(["delete", "junk", "duplicate card", "unknown card", "seat", "shrink"]))
    if how == "delete":
        del snap[key]
    elif how == "junk":
        snap[key] = data.draw(st.one_of(st.integers(-5, 60), st.none(), st.booleans(), st.text(max_size=5),
                                        st.lists(st.one_of(st.integers(-1, 7), st.text(max_size=3)), max_size=4),
                                        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
    elif how == "duplicate card" and snap["hands"][0]:
        snap["hands"][1 % len(snap["hands"])].append(snap["hands"][0][0])
    elif how == "unknown card":
        snap["hands"][0] = snap["hands"][0] + [data.draw(st.sampled_from(["1Z", "2C", "", "AH ", "XX", "11S"]))]
    elif how == "seat":
        field = data.draw(st.sampled_from(["attacker", "defender", "to_act", "opener", "first_seat"]))
        snap[field] = data.draw(st.sampled_from([-1, 7, 2, 1.5, "0", None]))
    elif how == "shrink" and isinstance(snap.get(key), list) and snap[key]:
        snap[key] = snap[key][:-1]
    return snap


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_fuzzed_snapshots_load_cleanly_or_are_refused_with_a_value_error(data, seed, steps):
    rng = random.Random(seed)
    game = Game(random_rules(rng), seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions()))
    bad = mutate(game.to_dict(), data)
    try:
        loaded = Game.from_dict(bad)
    except ValueError as err:
        assert str(err) and "\n" not in str(err)
        return
    # Accepted: it must be a sound position that plays to the end (never a crash later).
    check_invariants(loaded)
    while not loaded.is_over:
        loaded.step(rng.choice(loaded.legal_actions()))
        check_invariants(loaded)


# ----- configs -------------------------------------------------------------------------------

CONFIG_FIELDS = list(TrainConfig().to_dict())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(st.sampled_from(CONFIG_FIELDS), st.text(max_size=8)),
                       st.one_of(st.integers(-5, 10**7), st.floats(allow_nan=True), st.none(), st.booleans(),
                                 st.text(max_size=8), st.lists(st.integers(-2, 300), max_size=3),
                                 st.dictionaries(st.text(max_size=6), st.floats(-1, 2), max_size=3)),
                       max_size=4))
def test_fuzzed_configs_are_valid_or_one_line_naming_the_problem(values):
    try:
        cfg = TrainConfig.from_dict(values)
    except ConfigError as err:
        text = str(err)
        assert text and "\n" not in text
        return
    cfg.validate()
    cfg.make_rules()


# ----- determinism ---------------------------------------------------------------------------

def test_global_generators_stirred_between_steps_change_nothing():
    """The env, its forced moves and every bot draw only on their own seeded generators."""
    from baselines import make_bot

    def trajectory(stir: int) -> list:
        env = durak_env.raw_env(rules="perevodnoy")
        env.reset(seed=11)
        bots = {a: make_bot(spec, seed=i) for i, (a, spec) in
                enumerate(zip(env.possible_agents, ["easy:0.5", "search:4"]))}
        out = []
        for step, agent in enumerate(env.agent_iter()):
            random.seed(stir * 1000 + step)
            np.random.seed(stir * 1000 + step)
            random.random(), np.random.random()
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                out.append(("end", agent, reward))
                env.step(None)
                continue
            action = bots[agent].act(env.unwrapped.view(agent))
            out.append((agent, action, obs["observation"].tobytes()))
            env.step(action)
        return out

    assert trajectory(1) == trajectory(2)


# ----- soak ----------------------------------------------------------------------------------

def test_soak_ci_run_finds_no_violation():
    """The CI-sized soak: 10,000 checked games over presets and random rules on both cores."""
    import soak

    out = soak.soak(10_000, workers=2, progress=False)
    assert out["games"] == 10_000 and out["steps"] > 1_000_000
    assert out["rule_sets"] > 1000
    assert out["violations"] == [], out["violations"][:3]


def test_soak_reports_a_violation_with_what_reproduces_it(monkeypatch):
    import soak

    def broken(game):
        if game.bouts == 3:
            raise AssertionError("planted")

    monkeypatch.setattr(soak, "check_invariants", broken)
    games, steps, violations, _ = soak.run_chunk((0, 20))
    assert games == 20 and violations
    v = violations[0]
    assert "planted" in v["problem"] and Rules.from_dict(v["rules"]) == soak.rules_for(v["seed"])
