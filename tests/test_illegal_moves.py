"""Illegal moves in every phase: refused with what was tried, why and what is legal, and nothing changes.

The reason comes from the same checks that build the legal set (``engine/legality.py``), so every refusal
says which rule the move breaks; a legal move has no reason."""

import random

import numpy as np
import pytest

import durak_env
from durak_env import Game, IllegalAction, Refusal, Rules, encode_action
from durak_env.engine.invariants import check_invariants, random_rules
from durak_env.engine.legality import no_transfer

JUNK = [-1, -(10**9), 10**9, 2.5, "3", "attack 6D", None, True, False, [1], {"a": 1}, object()]


def phases(game: Game) -> set[str]:
    if game.is_over:
        return {"over"}
    out = {"full table"} if game.attacks and not game._has_room() else set()  # no room: adding is over the cap
    if game.to_act == game.defender and game.open_count and not game.taking:
        return out | {"transfer" if no_transfer(game) is None else "defend"}
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
    seen_phases, codes = set(), set()
    checked = 0
    for game in positions(60):
        seen_phases |= phases(game)
        before = game.to_dict()
        legal = game.legal_actions()
        size = 3 * game.rules.deck_size + 2
        for action in [a for a in range(size) if a not in legal] + JUNK:
            with pytest.raises(IllegalAction) as err:
                game.step(action)
            text = str(err.value)
            assert repr(action) in text or "game is over" in text
            if not game.is_over:
                assert "legal: " in text and "not allowed here" not in text
                assert game.why_not(action) is not None
            assert err.value.legal == legal
            code, words = game.refusal(action)
            assert err.value.code == code and code is not Refusal.NOT_LEGAL
            assert (words if code != Refusal.NOT_AN_ACTION else "not an action of this layout") in text
            codes.add(code)
            checked += 1
        for action in legal:
            assert game.why_not(action) is None and game.refusal(action) is None
        if not game.is_over:
            other = (game.to_act + 1) % game.n
            with pytest.raises(IllegalAction, match=f"player {other} tried .* it is player {game.to_act}'s turn") as err:
                game.step(legal[0], seat=other)
            assert err.value.code == Refusal.NOT_YOUR_TURN
        assert game.to_dict() == before and game.legal_actions() == legal
        check_invariants(game)
    assert seen_phases >= {"lead", "throw in", "defend", "transfer", "throw after take", "full table", "over"}
    assert checked > 50_000
    # Every code a move can earn is earned somewhere: none is dead, none is given for another's reason.
    assert codes == set(Refusal) - {Refusal.NOT_YOUR_TURN, Refusal.NOT_LEGAL}


def test_each_kind_of_refusal_says_why():
    game = Game(Rules.preset("podkidnoy"), seed=1)  # player 0 leads
    rules = game.rules
    not_held = next(c for c in ("6C", "7C", "8C", "9C", "10C", "6S", "7S") if c not in map(str, game.hand(0)))
    cases = {
        encode_action("take", rules): ("leading the attack, not defending", Refusal.NOT_DEFENDING),
        encode_action("done", rules): ("the bout's first card must be played", Refusal.FIRST_CARD),
        encode_action(f"attack {not_held}", rules): (f"does not hold {not_held}", Refusal.NOT_HELD),
        encode_action("transfer 6D", rules): ("not defending", Refusal.NOT_DEFENDING),
        10**6: ("not an action of this layout", Refusal.NOT_AN_ACTION),
    }
    for action, (words, code) in cases.items():
        with pytest.raises(IllegalAction, match=words) as err:
            game.step(action)
        assert words in game.why_not(action) and err.value.code == code == game.refusal(action)[0]
    game.step(game.legal_actions()[0])
    while game.to_act != game.defender:
        game.step(encode_action("done", rules))  # the throwers pass: the defender answers
    d = game.defender
    for move in ("done", f"attack {game.hand(d)[0]}"):
        with pytest.raises(IllegalAction, match=f"player {d} is defending") as err:
            game.step(encode_action(move, rules))
        assert err.value.code == Refusal.DEFENDING
    weak = next(c for c in game.hand(d) if encode_action(f"defend {c}", rules) not in game.legal_actions())
    with pytest.raises(IllegalAction, match=f"{weak} does not beat {durak_env.Card(game.attacks[0])}") as err:
        game.step(encode_action(f"defend {weak}", rules))
    assert err.value.code == Refusal.CANNOT_BEAT
    with pytest.raises(IllegalAction, match="these rules have no transfer") as err:
        game.step(encode_action(f"transfer {game.hand(d)[0]}", rules))
    assert err.value.code == Refusal.NO_TRANSFER


def test_transfer_refusals_name_the_condition_that_fails():
    """Seed 002: "a defender who has not beaten anything yet may pass the attack on ... as long as they
    hold enough cards to cover every one"; each condition refuses with its own reason."""
    from helpers import act, position

    rules = Rules.preset("perevodnoy", num_players=3)
    short = position(rules, ["7H AS KS", "7S 8H QD JC", "9H"], "6C")  # seat 2 holds one card: cannot cover two
    for move in ("attack 7H", "done", "done"):
        act(short, move)
    assert short.why_not(encode_action("transfer 7S", rules)) == "player 2 holds too few cards to cover 2 attacks"
    beaten = position(rules, ["7H 7D AS", "7S 8H 8D QD", "9H 10S JD QS"], "6C")
    for move in ("attack 7H", "attack 7D", "done", "done", "defend 8H"):
        act(beaten, move)
    assert beaten.why_not(encode_action("transfer 7S", rules)) == ("a transfer comes before beating anything, and a "
                                                                   "card is beaten")
    assert beaten.why_not(encode_action("transfer 8D", rules)) is not None
    plain = position(Rules.preset("podkidnoy", num_players=3), ["7H AS KS", "7S 8H QD JC", "9H 10S JD"], "6C")
    act(plain, "attack 7H")
    for _ in range(2):
        act(plain, "done")
    assert plain.refusal(encode_action("transfer 7S", plain.rules)) == (Refusal.NO_TRANSFER,
                                                                        "these rules have no transfer")
    capped = position(rules.replace(max_attacks=1, max_attacks_early=1), ["7H AS KS", "7S 8H QD JC", "9H 10S JD"],
                      "6C")
    act(capped, "attack 7H")
    assert capped.refusal(encode_action("transfer 7S", rules)) == (Refusal.NO_TRANSFER, "the cap leaves no room "
                                                                                         "for the transferring card")


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


def test_illegal_action_on_raw_env_raises_and_changes_nothing():
    env = durak_env.raw_env()
    env.reset(seed=3)
    before = env.game.to_dict()
    agent = env.agent_selection
    with pytest.raises(ValueError) as err:
        env.step(encode_action("take", env.rules))  # nobody can take on an empty table
    assert isinstance(err.value, IllegalAction)
    assert "illegal action 108 [take]" in str(err.value) and "legal:" in str(err.value) and "attack" in str(err.value)
    assert env.game.to_dict() == before and env.agent_selection == agent
    for bad in (-1, 999, "3", 1.5):
        with pytest.raises(ValueError):
            env.step(bad)
        assert env.game.to_dict() == before


def test_illegal_action_on_wrapped_env_follows_pettingzoo():
    env = durak_env.env()
    env.reset(seed=3)
    agent = env.agent_selection
    env.step(encode_action("take", env.unwrapped.rules))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1


def test_game_stays_usable_after_refused_move():
    game = Game(seed=1)
    legal = game.legal_actions()
    with pytest.raises(IllegalAction) as err:
        game.step(encode_action("take", game.rules))
    assert err.value.legal == legal
    game.step(legal[0])


def test_the_legal_set_cannot_be_corrupted_by_a_caller():
    game = Game(seed=1)
    legal = game.legal_actions()
    assert isinstance(legal, tuple)
    with pytest.raises(AttributeError):
        legal.append(encode_action("take", game.rules))  # a list here would let a caller make take legal
    with pytest.raises(IllegalAction):
        game.step(encode_action("take", game.rules))


NOT_ACTIONS = [8.7, np.float64(3.0), True, np.True_, "3", None, [3]]
"""Not integers: none may be played as the integer it rounds or converts to (``int(8.7)`` is 8, ``int(True)`` 1)."""


@pytest.mark.parametrize("bad", NOT_ACTIONS, ids=repr)
def test_every_environment_refuses_a_non_integer_action_with_the_engines_code(bad):
    """Issue 44: "every environment refuses a non-integer action (8.7, True, "3") with the engine's code and
    words"; the refusal code reaches env()'s infos.  Each is tried where its integer would be legal."""
    import gymnasium

    from durak_env.vector import DurakVectorEnv, SelfPlayVectorEnv

    raw = durak_env.raw_env()
    raw.reset(seed=1)
    before = raw.game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        raw.step(bad)
    assert refused.value.code == Refusal.NOT_AN_ACTION and "not an action" in str(refused.value)
    assert raw.game.to_dict() == before

    wrapped = durak_env.env()
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.step(bad)  # PettingZoo's logger says "Illegal move made"
    info = wrapped.infos[agent]
    assert info["refusal"] == Refusal.NOT_AN_ACTION and "not an action" in info["refusal_reason"]
    assert wrapped.rewards[agent] == -1 and wrapped.terminations[agent]

    for mode in ("raise", "lose"):
        gym = gymnasium.make("durak_env/Durak-v0", opponents="random", illegal_action=mode).unwrapped
        _, info = gym.reset(seed=1)
        legal = np.flatnonzero(info["action_mask"])
        before = gym.game.to_dict()
        if mode == "raise":
            with pytest.raises(IllegalAction) as refused:
                gym.step(bad)
            assert refused.value.code == Refusal.NOT_AN_ACTION
        else:
            _, reward, terminated, _, info = gym.step(bad)
            assert (reward, terminated, info["refusal"]) == (-1.0, True, Refusal.NOT_AN_ACTION)
            assert "not an action" in info["refusal_reason"]
        assert gym.game.to_dict() == before and len(legal)

    selfplay = SelfPlayVectorEnv("podkidnoy", num_envs=2)
    vector = DurakVectorEnv(num_envs=2, opponents="random")
    try:
        selfplay.reset(seed=0)
        vector.reset(seed=0)
        for envs in (selfplay, vector):
            with pytest.raises(IllegalAction) as refused:
                envs.step(np.array([bad, bad], dtype=object))
            assert refused.value.code == Refusal.NOT_AN_ACTION
    finally:
        selfplay.close()
        vector.close()
