"""The flat action layout: named offsets and a round trip (STYLE.md, example 7)."""

import pytest

from durak_env import Action, Card, Rules, decode_action, encode_action, num_actions
from durak_env.engine.actions import layout_for


@pytest.mark.parametrize("deck_size, n", [(24, 74), (36, 110), (52, 158)])
def test_layout_sizes_and_round_trip(deck_size, n):
    rules = Rules(deck_size=deck_size)
    assert num_actions(rules) == n
    lay = layout_for(deck_size)
    assert (lay.attack, lay.defend, lay.transfer, lay.take, lay.done) == (0, deck_size, 2 * deck_size, n - 2, n - 1)
    for i in range(n):
        action = decode_action(i, rules)
        assert encode_action(action, rules) == i
        assert encode_action(str(action), rules) == i
        assert Action.parse(str(action)) == action


def test_readable_actions():
    rules = Rules()
    assert str(decode_action(encode_action("defend 8D", rules), rules)) == "defend 8D"
    assert decode_action(encode_action("take", rules), rules) == Action("take")
    assert decode_action(0, rules) == Action("attack", Card.parse("6C"))


@pytest.mark.parametrize("bad", [-1, 110, "3", 2.5, None])
def test_bad_indices_are_refused(bad):
    with pytest.raises(ValueError):
        decode_action(bad, Rules())


@pytest.mark.parametrize("text", ["attack", "take 6D", "defend 2C", "hit 6D", ""])
def test_bad_action_text_is_refused(text):
    with pytest.raises(ValueError):
        encode_action(text, Rules())
