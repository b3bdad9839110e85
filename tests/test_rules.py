"""Rules as validated data: presets, fields and clear refusals (STYLE.md, example 9)."""

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak_env import Game, Rules
from durak_env.engine.invariants import random_rules


def test_default_is_two_player_36_card_podkidnoy():
    r = Rules()
    assert (r.num_players, r.deck_size, r.transfer) == (2, 36, False)
    assert Rules.preset("podkidnoy") == r


def test_every_preset_names_its_reference_and_is_valid():
    presets = Rules.presets()
    for seed in ("000", "001", "002", "003", "004"):
        assert any(f"seed {seed}" in doc for doc in presets.values()), seed
    for name in presets:
        rules = Rules.preset(name)
        assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_presets_follow_their_seeds():
    assert Rules.preset("attacker-only").throw_in == "attacker"  # 000: "the attacker may throw in another"
    assert Rules.preset("attacker-only").defender_limit == "bout_start"
    assert Rules.preset("after-beaten").throw_in == "neighbours" and Rules.preset("after-beaten").throw_in_after_take
    assert Rules.preset("after-beaten-transfer").transfer
    assert Rules.preset("throw-after-take").no_trump_lead == "redeal" and Rules.preset("throw-after-take").max_attacks_early == 5
    s3 = Rules.preset("tournament")
    assert (s3.open_discard, s3.max_bouts, s3.early_ends, s3.next_deal) == (False, 150, "first_bout", "fool_deals")
    assert Rules.preset("podkidnoy").no_trump_lead == "seat_zero"


@pytest.mark.parametrize("field, value, words", [
    ("num_players", 7, "num_players must be an integer from 2 to 6"),
    ("num_players", "2", "num_players"),
    ("deck_size", 40, "deck_size must be one of 24, 36, 52"),
    ("throw_in", "left", "throw_in must be one of attacker, neighbours, all"),
    ("transfer", 1, "transfer must be true or false"),
    ("max_attacks_early", 7, "max_attacks_early must be an integer from 1 to 6"),
    ("defender_limit", "never", "defender_limit"),
    ("no_trump_lead", "dealer", "no_trump_lead"),
    ("early_ends", "never", "early_ends"),
    ("max_bouts", 0, "max_bouts"),
    ("match_deals", 16, "match_deals"),
    ("next_deal", "random", "next_deal"),
])
def test_bad_values_name_the_field(field, value, words):
    with pytest.raises(ValueError, match=words):
        Rules(**{field: value})


def test_impossible_table_is_refused():
    with pytest.raises(ValueError, match="does not leave a trump card"):
        Rules(num_players=4, deck_size=24)
    assert Rules(num_players=3, deck_size=24).deal_size == 6


def test_unknown_fields_and_presets_list_the_allowed_ones():
    with pytest.raises(ValueError, match="unknown rules field 'players'; fields: num_players"):
        Rules.from_dict({"players": 3})
    with pytest.raises(ValueError, match="unknown rules preset 'nope'; presets: podkidnoy"):
        Rules.preset("nope")
    assert Rules.from_dict({"preset": "tournament", "num_players": 4}).num_players == 4


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().num_players = 3


# ----- any value, any field ---------------------------------------------------------------

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


def test_an_integer_argument_may_come_from_numpy_but_never_as_true_or_false():
    """Every integer argument is checked by one rule (durak_env.engine.checks.is_integer): numpy's integers pass,
    as a seat or a table size read from an array would be; true, false, 2.0 and "2" do not."""
    import numpy as np

    from durak_env.engine.checks import is_integer

    rules = Rules(num_players=np.int64(3))
    assert rules.num_players == 3 and type(rules.num_players) is int and json.dumps(rules.to_dict())
    assert Game(Rules(), seed=1).view(np.int8(1)).seat == 1
    for bad in (True, False, 2.0, "2", None, np.bool_(True), np.float32(2)):
        assert not is_integer(bad)
        with pytest.raises(ValueError, match="num_players must be an integer from 2 to 6"):
            Rules(num_players=bad)
    assert is_integer(np.uint64(2**64 - 1), 0, 2**64 - 1) and not is_integer(-1, 0) and not is_integer(7, high=6)


def test_rules_no_preset_can_seat_are_described_by_their_fields():
    """Issue 29: ``make_bot("trained", rules=Rules(num_players=6, deck_size=52))`` failed with a Rules error about
    "a 36-card deck": ``describe`` built every preset at six seats, and the 36-card ones cannot deal six hands of
    six.  Such rules are described by the fields that differ from the default, and asking for a trained bot says
    that none was trained for them."""
    from baselines import make_bot

    rules = Rules(num_players=6, deck_size=52)
    assert rules.describe() == "num_players=6, deck_size=52"
    assert Rules.preset("tournament", num_players=6).describe() == "tournament, 6 players"
    bot = make_bot("trained", rules=rules)  # no specialist: the universal bot, at these rules
    assert bot.universal and bot.rules == rules


def test_presets_are_named_by_what_they_play_and_the_old_names_still_work(recwarn):
    """Issue 44: each preset named by what it plays; the seed names keep working as aliases and say so once a
    process (a ``PresetRenamed`` warning), for rules, tables of a universal config and shipped bot families."""
    import warnings

    from baselines import shipped_bot
    from durak_env.engine import rules as rules_module
    from durak_env.engine.rules import RENAMED, PresetRenamed
    from durak_env.tables import Tables

    assert not any(name.startswith("seed") for name in Rules.presets())
    assert set(RENAMED.values()) <= set(Rules.presets())
    rules_module._TOLD.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for old, new in RENAMED.items():
            assert Rules.preset(old, num_players=3) == Rules.preset(new, num_players=3)
            assert Rules.from_dict({"preset": old}) == Rules.preset(new)  # again: said once already
    told = [w for w in caught if issubclass(w.category, PresetRenamed)]
    assert len(told) == len(RENAMED) and all("is now called" in str(w.message) for w in told)
    tables = Tables.from_dict({"presets": ["seed003", "podkidnoy"], "weights": {"seed003-4": 3}})
    assert tables.presets == ("tournament", "podkidnoy") and tables.weights == {"tournament-4": 3}
    assert shipped_bot(None, "seed003") == shipped_bot(None, "tournament")
    assert shipped_bot(None, "seed001-transfer-0.2") == shipped_bot(None, "after-beaten-transfer-0.2")
