"""One bot for any rules (issue 29): the universal observation and action layout, the tables a policy trains
over, the vector of mixed tables, universal bot files, and a training run over tables."""

import json
import random

import numpy as np
import pytest
import torch

from baselines import make_bot, shipped_bot
from baselines.evaluate import evaluate
from baselines.policy_file import bot_metadata, load_bot, load_weights, write_weights
from durak_env import Game, Rules
from durak_env.engine.actions import decode_action, layout_for, translation
from durak_env.engine.invariants import random_rules
from durak_env.engine.rules import DECK_SIZES, MAX_PLAYERS, MIN_PLAYERS, PRESETS
from durak_env.observation import RULE_FEATURES, ObservationEncoder, network_shape, rule_features
from durak_env.tables import DISTINCT_PRESETS, Tables
from durak_env.vector_games import VectorGames
from training.config import ConfigError, TrainConfig
from training.export import write_bot
from training.policy import ActionProbabilities, PolicyNet

from test_information import shuffle_hidden

UNIVERSAL_SIZE, UNIVERSAL_ACTIONS = 693, 158


def every_table():
    """Every preset at every seat count it can seat, and a few random rule sets."""
    rng = random.Random(5)
    tables = [Rules.preset(p, num_players=n) for p in DISTINCT_PRESETS for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
              if PRESETS[p][0].can_seat(n)]
    return tables + [random_rules(rng) for _ in range(6)]


def positions(rules: Rules, seed: int, count: int = 40):
    """Games of ``rules`` after 0, 3, 6, ... random moves."""
    game, rng = Game(rules, seed=seed), random.Random(seed)
    for _ in range(count):
        if game.result is not None:
            return
        yield game
        for _ in range(3):
            if game.result is None:
                game.step(rng.choice(game.legal_actions()))


def test_a_universal_network_reads_and_writes_the_same_sizes_at_every_table():
    assert network_shape(None) == (UNIVERSAL_SIZE, UNIVERSAL_ACTIONS)
    for rules in every_table():
        encoder = ObservationEncoder(rules, universal=True)
        assert encoder.size == UNIVERSAL_SIZE
        assert len(encoder.into) == layout_for(rules.deck_size).size
    assert network_shape(Rules()) == (309, 110)


@pytest.mark.parametrize("rules", every_table(), ids=lambda r: r.describe()[:40])
def test_the_universal_observation_is_the_tables_own_with_room_for_the_largest(rules):
    """Slice by slice, the universal vector holds the rules' own observation: card planes at the cards' slots of
    the 52-card deck (the others 0), seats at their relative slots (those past the table 0); then which seats
    are at the table, and the rules."""
    own, wide = ObservationEncoder(rules), ObservationEncoder(rules, universal=True)
    cards = list(layout_for(rules.deck_size).card_of)
    n = rules.num_players
    for game in positions(rules, seed=rules.num_players):
        for seat in range(n):
            a, b = own.encode_game(game, seat), wide.encode_game(game, seat)
            assert (wide.encode(game.view(seat)) == b).all()
            assert wide.encode_floats(game.view(seat)) == b.tolist()
            for name, part in own.slices.items():
                x, y = a[part], b[wide.slices[name]]
                if name == "known":
                    rows = y.reshape(MAX_PLAYERS - 1, 52)
                    assert not rows[n - 1:].any()
                    y = rows[:n - 1, cards].reshape(-1)
                elif len(y) == 52:
                    assert y.sum() == x.sum()
                    y = y[cards]
                elif len(y) == MAX_PLAYERS:
                    assert not y[n:].any()
                    y = y[:n]
                assert (x == y).all(), name
            assert b[wide.slices["seats"]].tolist() == [1.0] * n + [0.0] * (MAX_PLAYERS - n)
            assert b[wide.slices["rules"]].tolist() == pytest.approx(rule_features(rules))


def test_hidden_cards_do_not_change_the_universal_observation():
    rng = random.Random(3)
    for rules in every_table()[::3]:
        encoder = ObservationEncoder(rules, universal=True)
        for game in positions(rules, seed=11, count=12):
            seat = rng.randrange(rules.num_players)
            other = Game.from_dict(shuffle_hidden(game.to_dict(), seat, rng))
            assert (encoder.encode_game(game, seat) == encoder.encode_game(other, seat)).all()


LEFT_OUT = {"no_trump_lead", "match_deals", "next_deal"}
"""Rules fields that do not change how a deal is played once it is dealt (``rule_features``' docstring)."""


def test_every_rules_field_that_changes_play_is_an_input():
    """Changing any field but the three left out changes the rules' features."""
    assert len(rule_features(Rules())) == len(RULE_FEATURES)
    changes = {"num_players": None, "deck_size": 36, "hand_size": 4, "full_table_hand_size": 4, "throw_in": "attacker",
               "throw_in_before_beaten": False, "transfer": True, "max_attacks": 7, "max_attacks_early": 4,
               "early_ends": "first_bout", "defender_limit": "bout_start", "throw_in_after_take": True,
               "open_discard": False, "max_bouts": 150, "no_trump_lead": "redeal", "match_deals": 3,
               "next_deal": "fool_deals"}
    assert set(changes) == set(Rules().to_dict())
    base = Rules(num_players=6, deck_size=52, hand_size=5)
    for name, value in changes.items():
        if name == "num_players":  # the seats slice says it
            continue
        other = base.replace(**{name: value})
        changed = rule_features(other) != rule_features(base)
        if name == "full_table_hand_size":  # it matters at six seats only, through the hand size dealt
            assert changed and other.deal_size == 4
        assert changed == (name not in LEFT_OUT), name


@pytest.mark.parametrize("deck", DECK_SIZES)
def test_a_move_translates_into_the_universal_layout_as_the_same_move(deck):
    into = translation(deck)
    assert len(set(into)) == len(into) == layout_for(deck).size
    for action, wide in enumerate(into):
        assert decode_action(wide, Rules(deck_size=52)) == decode_action(action, Rules(deck_size=deck, num_players=2))


# ----- tables ------------------------------------------------------------------------------------------------------

HELD = ({"deck_size": 24, "num_players": 3, "transfer": True}, {"num_players": 4, "throw_in": "neighbours"})


def test_tables_never_deal_a_held_out_combination():
    tables = Tables(held_out=HELD, random_share=0.5)
    names = [name for name, _ in tables.named()]
    assert "after-beaten-4" not in names and "neighbours-4" not in names  # neighbours at four: held out
    assert "podkidnoy-2" in names and "tournament-6" in names and "podkidnoy-6" not in names  # 36 cards seat five
    rng = random.Random(1)
    drawn = [tables.sample(rng) for _ in range(3000)]
    assert not any(tables.excludes(r) for r in drawn)
    assert len({(r.deck_size, r.num_players) for r in drawn}) >= 12  # random rule sets: every deck, many sizes
    assert Tables(random_share=0.5).excludes(Rules(deck_size=24, num_players=3, transfer=True)) is False
    assert [r for _, r in tables.held_out_rules()] == [Rules(**h) for h in HELD]


def test_table_weights_deal_a_table_that_much_more_often():
    tables = Tables(presets=("podkidnoy", "tournament"), seats=(2,), random_share=0, weights={"podkidnoy-2": 3})
    rng = random.Random(2)
    share = sum(tables.sample(rng) == Rules() for _ in range(4000)) / 4000
    assert share == pytest.approx(0.75, abs=0.03)


@pytest.mark.parametrize("data, words", [
    ({"presets": ["nope"]}, "unknown preset 'nope'"),
    ({"seats": [1, 2]}, "seats must be table sizes"),
    ({"random_share": 2}, "random_share must be a share"),
    ({"held_out": [{"deck_size": 25}]}, "deck_size"),
    ({"held_out": [{}]}, "each held_out entry"),
    ({"weights": {"podkidnoy-9": 2}}, "not a table played"),
    ({"weights": {"podkidnoy-2": -1}}, "weight of podkidnoy-2"),
    ({"colour": 1}, "unknown key 'colour'"),
    ([1], "tables must be a mapping"),
])
def test_bad_tables_are_refused_in_one_line(data, words):
    with pytest.raises(ValueError, match=words):
        Tables.from_dict(data)


# ----- the vector of mixed tables ------------------------------------------------------------------------------

def test_a_vector_over_tables_writes_every_deal_in_the_universal_layout():
    vec = VectorGames(Rules(), 24, tables=Tables(random_share=0.4))
    vec.reset(seed=4)
    assert vec.obs.shape == (24, UNIVERSAL_SIZE) and vec.mask.shape == (24, UNIVERSAL_ACTIONS)
    rng = np.random.default_rng(0)
    seen, ended = set(), 0
    for step in range(1500):
        if step % 100 == 0:
            for i, game in enumerate(vec.games):
                seen.add((game.rules.deck_size, game.n))
                wide = ObservationEncoder(game.rules, universal=True)
                assert (vec.obs[i] == wide.encode_game(game, game.to_act)).all()
                legal = sorted(vec.to_network(game, a) for a in game.legal_actions())
                assert np.flatnonzero(vec.mask[i]).tolist() == legal
        seats = [game.n for game in vec.games]
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.mask]))
        for i in np.flatnonzero(vec.ended):
            ended += 1
            assert not vec.rewards[i, seats[i]:].any()  # no seat past the table
    assert ended > 100 and len(seen) >= 5


def test_a_vector_over_tables_refuses_a_card_the_deals_deck_lacks():
    vec = VectorGames(Rules(), 2, tables=Tables(presets=("podkidnoy",), seats=(2,), random_share=0))
    vec.reset(seed=1)
    before = [g.to_dict() for g in vec.games]
    six_of_clubs = 4  # in the 36-card deck; the two of clubs (0) is not
    acts = np.array([int(np.flatnonzero(m)[0]) for m in vec.mask])
    acts[1] = 0
    with pytest.raises(Exception, match="deal 1"):
        vec.step(acts)
    assert [g.to_dict() for g in vec.games] == before
    assert vec.from_network(vec.games[0], six_of_clubs) == 0 and vec.from_network(vec.games[0], 0) == -1


# ----- universal bot files --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def universal_file(tmp_path_factory):
    """An untrained universal network, exported as a bot file (its moves are what the network says)."""
    torch.manual_seed(0)
    net = PolicyNet(*network_shape(None), [32])
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.3)
    out = tmp_path_factory.mktemp("universal") / "universal.onnx"
    return write_bot(ActionProbabilities(net), bot_metadata(None, [32], trainer="test"), *network_shape(None),
                     "onnx", out)


def test_a_universal_bot_file_plays_every_table_and_its_weights_file_plays_the_same(universal_file, tmp_path):
    bot = load_bot(universal_file)
    assert bot.universal and bot.rules is None and bot.metadata["trained_for"] == "any rules"
    weights = load_weights(write_weights(universal_file, tmp_path / "u.weights.json"))
    for rules in every_table()[::4]:
        for game in positions(rules, seed=2, count=15):
            view = game.view(game.to_act)
            probs, plain = bot.probabilities(view), weights.probabilities(view)
            assert len(probs) == layout_for(rules.deck_size).size
            assert probs.sum() == pytest.approx(1.0, abs=1e-5)
            assert set(np.flatnonzero(probs > 0)) <= set(view.legal_actions)
            assert max(abs(x - y) for x, y in zip(probs, plain)) < 1e-4
            assert bot.act(view) == weights.act(view) in view.legal_actions


def test_a_universal_bot_bound_to_a_table_is_a_bot_of_those_rules(universal_file):
    rules = Rules(num_players=6, deck_size=52)
    bound = load_bot(universal_file, rules=rules)
    assert bound.rules == rules and bound.encoder.size == UNIVERSAL_SIZE
    assert bound.encoder.num_actions == layout_for(52).size
    assert bound.bind(rules) is bound and load_bot(universal_file).bind(rules) is not bound
    specialist = load_bot(shipped_bot(Rules()))
    with pytest.raises(ValueError, match="trained for other rules"):
        specialist.bind(rules)
    report = evaluate([str(universal_file), "heuristic", "heuristic"], Rules(num_players=3, deck_size=24),
                      games=6, seed=1, workers=1)
    assert report.games == 6


def test_search_with_a_universal_network_plays_its_table(universal_file):
    from baselines.netsearch import NetSearchBot

    rules = Rules.preset("throw-after-take", num_players=5)
    bot = NetSearchBot(load_bot(universal_file, rules=rules), seed=1, playouts=16)
    for game in positions(rules, seed=3, count=5):
        assert bot.act(game.view(game.to_act)) in game.legal_actions()


# ----- training over tables ---------------------------------------------------------------------------------------

TINY_ANY = {"rules": "any", "tables": {"held_out": [{"deck_size": 24, "num_players": 3}]}, "seed": 3,
            "total_steps": 600, "num_envs": 8, "num_workers": 1, "rollout_steps": 200, "hidden_sizes": [16],
            "minibatch_size": 100, "update_epochs": 1, "opponents": {"self": 0.5, "pool": 0.2, "heuristic": 0.3},
            "snapshot_every": 1, "checkpoint_every": 1, "eval_every": 2, "eval_games": 4, "threads": 1,
            "eval_tables": ["podkidnoy-2", "tournament-6", "held_out"], "pretrain_games": 12,
            "pretrain_teacher": ["trained", "heuristic"], "pretrain_epochs": 1}


def test_a_run_over_tables_evaluates_each_table_and_exports_a_universal_bot(tmp_path):
    from training.train import train_ppo

    run = train_ppo(TrainConfig.from_dict(TINY_ANY), tmp_path / "run", progress=False)
    rows = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    tables = ["podkidnoy-2", "tournament-6", "deck_size=24, num_players=3"]
    assert [r["table"] for r in rows] == tables * (len(rows) // 3) and len(rows) >= 6
    assert [r["seats"] for r in rows[:3]] == [2, 6, 3]
    bot = load_bot(run / "bot.onnx")
    assert bot.universal and bot.metadata["rules"] is None
    assert bot.metadata["tables"]["held_out"] == TINY_ANY["tables"]["held_out"]  # the file names what it never saw
    assert (run / "pretrain.json").exists() and (run / "learning_curve.png").exists()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags = EventAccumulator(str(run / "tb")).Reload().Tags()["scalars"]
    assert {f"eval/{t}/not_fool_vs_heuristic" for t in tables} <= set(tags)


@pytest.mark.parametrize("change, words", [
    ({"rules": "podkidnoy"}, "tables and eval_tables are for a policy for any rules"),
    ({"eval_tables": ["podkidnoy-9"]}, "eval_tables: 'podkidnoy-9'"),
    ({"eval_tables": "podkidnoy-2"}, "eval_tables must be a list"),
    ({"tables": {"seats": [9]}}, "tables: seats must be"),
    ({"pretrain_teacher": []}, "pretrain_teacher must be"),
    ({"opponents": {"trained:podkidnoy": 1}}, "trained for podkidnoy, 2 players; this config trains for any rules"),
])
def test_a_config_over_tables_refuses_what_cannot_be(change, words):
    with pytest.raises(ConfigError, match=words):
        TrainConfig.from_dict({**TINY_ANY, **change})


def test_the_shipped_universal_config_names_its_held_out_rules_and_deals_none_of_them():
    cfg = TrainConfig.load("universal")
    tables = cfg.make_tables()
    assert len(tables.held_out) >= 8
    named = dict(tables.named())
    for _, rules in tables.held_out_rules():
        assert rules not in named.values()
    evaluated = [name for name, _ in cfg.evaluation_tables()]
    assert {"podkidnoy-2", "perevodnoy-2", "after-beaten-transfer-3", "tournament-4"} <= set(evaluated)
    assert len(evaluated) == len(set(evaluated)) >= 4 + 8


def test_the_shipped_universal_bot_names_the_tables_it_was_dealt_and_held_out_the_configs():
    """The shipped file says what it never saw: the config's held-out rule sets, which docs/shipped-bots.md's table
    marks as held out."""
    bot = load_bot(shipped_bot(family="universal"))
    assert bot.universal and bot.metadata["tables"] == TrainConfig.load("universal").make_tables().to_dict()


def test_make_bot_trained_answers_for_rules_no_specialist_plays(monkeypatch, universal_file):
    import baselines

    rules = Rules(num_players=6, deck_size=52)
    monkeypatch.setitem(baselines.SHIPPED_BOTS, "universal", (universal_file, None))
    bot = make_bot("trained", rules=rules)
    assert bot.universal and bot.rules == rules
    assert make_bot("trained", rules=Rules()).rules == Rules() and not make_bot("trained", rules=Rules()).universal


def test_trained_for_names_the_specialist_then_the_universal_bot_then_none(monkeypatch):
    """One place says which shipped bot plays a table (``make_bot("trained")``, ``durak eval`` and the page's
    list of trained table sizes ask it): a kept version never answers in place of the universal bot."""
    import baselines
    from baselines import trained_for

    assert trained_for(Rules.preset("perevodnoy")) == "perevodnoy"
    assert trained_for(Rules.preset("tournament", num_players=4)) == "tournament"
    assert trained_for(Rules(num_players=6, deck_size=52)) == "universal"
    monkeypatch.delitem(baselines.SHIPPED_BOTS, "universal")
    assert trained_for(Rules(num_players=6, deck_size=52)) is None
    assert trained_for(Rules.preset("podkidnoy")) == "podkidnoy"
