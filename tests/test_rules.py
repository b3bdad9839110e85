"""Rules as validated data: presets, fields and clear refusals (STYLE.md, example 9)."""

import dataclasses
import json

import pytest

from durak_env import Rules


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
    assert Rules.preset("seed000").throw_in == "attacker"  # 000: "the attacker may throw in another"
    assert Rules.preset("seed000").defender_limit == "bout_start"
    assert Rules.preset("seed001").throw_in == "neighbours" and Rules.preset("seed001").throw_in_after_take
    assert Rules.preset("seed001-transfer").transfer
    assert Rules.preset("seed002").no_trump_lead == "redeal" and Rules.preset("seed002").max_attacks_early == 5
    s3 = Rules.preset("seed003")
    assert (s3.open_discard, s3.max_bouts, s3.early_ends, s3.next_deal) == (False, 150, "first_bout", "fool_deals")
    assert Rules.preset("seed004").no_trump_lead == "seat_zero"


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
    assert Rules.from_dict({"preset": "seed003", "num_players": 4}).num_players == 4


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().num_players = 3
