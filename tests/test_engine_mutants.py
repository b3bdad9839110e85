"""Tests added because a mutant of the engine survived the suite (benchmarks/mutation.py): each says which
rule it protects and quotes its seed."""

import json

from durak_env import Card, Rules
from durak_env.engine.cards import parse_cards


def test_rules_describe_names_the_preset_and_table_or_the_fields_that_differ():
    """What the page, the terminal and bot files say a game is: the first preset the rules equal at their table
    size, else the fields that differ from the default (seed 004's game)."""
    assert Rules().describe() == "podkidnoy, 2 players"
    assert Rules.preset("tournament", num_players=4).describe() == "tournament, 4 players"
    assert Rules.preset("perevodnoy", num_players=3).describe() == "perevodnoy, 3 players"
    assert Rules(deck_size=52, transfer=True).describe() == "deck_size=52, transfer=True"


def test_cards_read_and_write_themselves():
    """Seed 004 names cards by rank then suit ("10H", "QS"); a list of them is space-separated."""
    assert parse_cards("6D 10h qs") == [Card.parse("6D"), Card.parse("10H"), Card.parse("QS")]
    assert parse_cards("") == []
    assert repr(Card.parse("10H")) == "Card('10H')" and str(Card.parse("TS")) == "10S"


def test_after_a_drawn_deal_the_deal_passes_one_seat_on_seed003():
    """Seed 003: the fool deals the next deal, the seat after the dealer leading; "after a draw the deal passes
    one seat on" (durak_env/engine/match.py).  The first deal is dealt by the last seat."""
    from durak_env import Game, Match

    rules = Rules.preset("tournament", num_players=4)
    drawn = Game(rules, seed=64)
    while not drawn.is_over:
        drawn.step(drawn.legal_actions()[0])
    assert drawn.result.fool is None
    match = Match(rules, seed=0)
    match.record(drawn)
    assert match.first_seat == 1  # the first dealer was seat 3; one seat on deals (seat 0), seat 1 leads
    match.record(drawn)
    assert match.first_seat == 2
    lost = Game(rules, seed=1)
    while not lost.is_over:
        lost.step(lost.legal_actions()[0])
    match.record(lost)
    assert match.first_seat == (lost.result.fool + 1) % 4


def test_every_deal_of_a_match_can_be_recorded():
    """A match's deals are dealt from seeds that a game record can hold (0 to 2**64 - 1), so each deal of a
    match in the browser can be downloaded and replayed."""
    from durak_env import Match
    from durak_env.engine.record import load_record, make_record

    rules = Rules.preset("tournament", num_players=3, match_deals=15)
    match = Match(rules, seed=11)
    while not match.over:
        game = match.next_deal()
        moves = []
        while not game.is_over:
            moves.append((game.to_act, game.legal_actions()[0]))
            game.step(moves[-1][1])
        record = make_record(rules, match.seeds[-1], game.first_seat, moves)
        assert load_record(json.loads(json.dumps(record.to_dict()))).seed == match.seeds[-1]
        match.record(game)
    assert len(set(match.seeds)) == 15


def _play_until(game, stop, seed=0):
    """Random legal play until ``stop(game)`` holds (or the deal ends); returns whether it held."""
    import random

    rng = random.Random(seed)
    while not game.is_over and not stop(game):
        game.step(rng.choice(game.legal_actions()))
    return stop(game)


def test_refusals_say_the_game_is_over_or_that_the_index_is_no_action():
    """Bad input gets one clear line: a finished deal refuses every move "because the game is over", and an
    index outside the action layout is "not an action of this layout" (docs/rules.md, the engine's refusals)."""
    import pytest

    from durak_env import Game, IllegalAction, decode_action

    game = Game(Rules(), seed=3)
    legal = ", ".join(f"{a} ({decode_action(a, game.rules)})" for a in game.legal_actions())
    with pytest.raises(IllegalAction, match=r"for player 0: not an action of this layout; legal: ") as err:
        game.step(10_000)
    assert str(err.value).endswith(f"; legal: {legal}") and "(attack " in legal
    assert game.why_not(10_000).startswith("not an action of this layout")
    _play_until(game, lambda g: False)
    assert game.why_not(0) == "the game is over"


def test_a_seats_view_of_the_last_bout_shows_the_beaten_cards_only_where_the_discard_is_open():
    """Seed 004: "the four table cards are thrown away" in sight of both players (its discard is open);
    seed 003: "Beaten cards go out of play and only their number is shown"."""
    from durak_env import Game

    beaten_off = lambda g: g.last_bout is not None and not g.last_bout.took  # noqa: E731
    open_game, hidden_game = Game(Rules(), seed=5), Game(Rules.preset("tournament", num_players=4), seed=5)
    assert _play_until(open_game, beaten_off) and _play_until(hidden_game, beaten_off)
    assert open_game.rules.open_discard and not hidden_game.rules.open_discard
    assert open_game.view(0).last_bout == open_game.last_bout and open_game.last_bout.table_mask
    seen = hidden_game.view(0).last_bout
    assert hidden_game.last_bout.table_mask and seen.table_mask == 0
    assert seen._replace(table_mask=hidden_game.last_bout.table_mask) == hidden_game.last_bout


def test_the_observation_slices_are_the_ones_docs_rules_md_lists():
    """docs/rules.md's observation tables are the layouts users read: names, order and sizes (the universal
    layout is the first table at 52 cards and six seats, then the second table)."""
    import re
    from pathlib import Path

    from durak_env import observation_slices

    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    first, universal = [re.findall(r"^\| (`[^|]+) \| ([^|]+) \|", part.split("\n\n", 1)[0], re.M)
                        for part in text.split("| slice | size | content |")[1:3]]

    def listed(table, d: int, n: int) -> list[tuple[str, int]]:
        out = []
        for names, size in table:
            size = size.strip().replace("(n-1)·D", str((n - 1) * d)).replace("D", str(d))
            size = size.replace(" each", "").replace("n", str(n))
            out += [(name, int(size)) for name in re.findall(r"`(\w+)`", names)]
        return out

    for rules in (Rules(), Rules.preset("tournament", num_players=4), Rules(deck_size=52, num_players=3)):
        got = [(name, s.stop - s.start) for name, s in observation_slices(rules).items()]
        assert got == listed(first, rules.deck_size, rules.num_players)
        got = [(name, s.stop - s.start) for name, s in observation_slices(rules, universal=True).items()]
        assert got == listed(first, 52, 6) + listed(universal, 52, 6)


def test_observations_written_in_place_and_in_batches_equal_the_views():
    """The environments write observations into preallocated rows (``encode_game(..., out=)``) and the
    rollouts in batches (``encode_games``); both must give the seat's own observation, also when the
    card 0 (the two of clubs of a 52-card deck, a trump here) beats an attack."""
    import numpy as np

    from durak_env import Game, ObservationEncoder

    found = 0
    for seed in range(200):
        game = Game(Rules(deck_size=52), seed=seed)
        if not _play_until(game, lambda g: 0 in g.defences, seed):
            continue
        enc = ObservationEncoder(game.rules)
        out = np.full((2, enc.size), -7.0, dtype=np.float32)
        for seat in (0, 1):
            want = enc.encode(game.view(seat))
            assert np.array_equal(enc.encode_game(game, seat, out=out[seat]), want)
            assert np.array_equal(out[seat], want)
        batch = np.full((2, enc.size), -7.0, dtype=np.float32)
        enc.encode_games([game, game], [0, 1], batch)
        assert np.array_equal(batch, out)
        found += 1
        if found == 3:
            break
    assert found == 3, "no deal in 200 had the two of clubs beating an attack"


def test_the_seat_flags_of_an_observation_are_relative_one_hots():
    """docs/rules.md: seats are relative (index k is the seat k places to the observer's left); ``attacker``,
    ``defender`` and ``to_act`` are one-hot, ``out`` and ``passed`` one flag a seat.  Checked from every seat
    of 4-seat seed-002 deals (where the others throw in after a take), through the view, the game and the batch,
    against the game itself."""
    import random

    import numpy as np

    from durak_env import Game, ObservationEncoder

    rules = Rules.preset("throw-after-take", num_players=4)
    enc, sl, n = ObservationEncoder(rules), ObservationEncoder(rules).slices, 4
    seen = {"out": 0, "passed": 0, "taking": 0}
    for seed in range(6):
        game, rng = Game(rules, seed), random.Random(seed)
        while not game.is_over:
            batch = enc.encode_games([game] * n, list(range(n)), np.empty((n, enc.size), np.float32))
            for seat in range(n):
                order = [(seat + k) % n for k in range(n)]
                want = {name: [float(order[k] == getattr(game, name)) for k in range(n)]
                        for name in ("attacker", "defender", "to_act")}
                want["out"] = [float(game.out_mask >> s & 1) for s in order]
                want["passed"] = [float(game.passed >> s & 1) for s in order]
                want["taking"] = [float(game.taking)]
                for obs in (enc.encode(game.view(seat)), enc.encode_game(game, seat), batch[seat]):
                    assert {name: obs[sl[name]].tolist() for name in want} == want
            seen["out"] += bool(game.out_mask)
            seen["passed"] += bool(game.passed)
            seen["taking"] += game.taking
            game.step(rng.choice(game.legal_actions()))
    assert all(seen.values()), seen


def test_a_snapshot_with_the_two_of_clubs_beating_on_the_table_round_trips():
    """Every card in exactly one place (the snapshot loader's conservation check): a defence card is on the
    table, including card 0, the two of clubs of a 52-card deck, when it is a trump beating an attack."""
    from durak_env import Game

    for seed in range(200):
        game = Game(Rules(deck_size=52), seed=seed)
        if _play_until(game, lambda g: 0 in g.defences, seed):
            break
    else:
        raise AssertionError("no deal in 200 had the two of clubs beating an attack")
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.to_dict() == game.to_dict() and again.legal_actions() == game.legal_actions()


def test_conservation_names_a_card_from_another_deck():
    """Every card in exactly one place, and only the deck's cards: a 36-card deck has no two of clubs."""
    from durak_env.engine.cards import conservation_problem, deck_mask

    assert conservation_problem(36, [("hands[0]", 1 << 0), ("stock", deck_mask(36))]) == \
        "hands[0] holds 2C, which is not in a 36-card deck"
    assert conservation_problem(36, [("stock", deck_mask(36))]) is None


def test_a_hand_of_one_card_is_a_valid_rule_and_none_is_not():
    """hand_size runs from 1 (the smallest deal that is still a game) to 26 (two hands of a 52-card deck)."""
    import pytest

    from durak_env import Game

    game = Game(Rules(hand_size=1), seed=1)
    assert [h.bit_count() for h in game.hands] == [1, 1]
    _play_until(game, lambda g: False)
    assert game.is_over
    with pytest.raises(ValueError, match="hand_size"):
        Rules(hand_size=0)


def test_a_finished_deal_waits_on_nobody():
    """Once the deal is over nobody is to act: ``to_act`` is -1 (an int, as the native engine stores it), the
    cap and the defender's limit are 0, and nobody throws in."""
    from durak_env import Game

    game = Game(Rules(), seed=4)
    _play_until(game, lambda g: False)
    assert game.is_over and game.to_act == -1 and (game.cap, game.limit, game.throwers) == (0, 0, ())
    assert game.clone().to_act == -1 and not game.legal_actions()


def test_the_refusal_of_a_take_names_what_the_seat_is_doing():
    """Seed 000: only the defender takes.  An attacker refused a take is told whether it is leading the attack
    or adding cards (after the defender beat the first card, seed 004's "add cards of the ranks on the table")."""
    from helpers import act, position

    from durak_env import encode_action

    rules = Rules()
    game = position(rules, ["7H 7D 9C", "8H 9S 10S"], "6C")
    take = encode_action("take", rules)
    assert game.why_not(take) == "player 0 is leading the attack, not defending"
    act(game, "attack 7H")
    act(game, "done")  # seed 000's podkidnoy lets the attacker add before the card is beaten: it waits
    act(game, "defend 8H")
    assert game.to_act == 0 and game.why_not(take) == "player 0 is adding cards, not defending"


def test_the_rules_name_their_bounds_when_a_hand_size_is_out_of_them():
    """Bad rules are refused in one line naming the field and its range: a hand holds 1 to 26 cards (half of a
    52-card deck), at a full table too (``full_table_hand_size``, seed 003's five cards at six seats, may be 1)."""
    import pytest

    with pytest.raises(ValueError, match=r"^Rules.hand_size must be an integer from 1 to 26, got 27$"):
        Rules(hand_size=27)
    with pytest.raises(ValueError, match=r"^Rules.full_table_hand_size must be an integer from 1 to 26, got 0$"):
        Rules(num_players=6, full_table_hand_size=0)
    assert Rules(num_players=6, full_table_hand_size=1).deal_size == 1


def test_a_snapshot_past_the_cap_of_bouts_is_refused():
    """Seed 003: the deal ends when the cap of bouts is reached, so no position has more bouts than the cap: a
    snapshot that says so is refused, and the observation's ``bouts`` never passes 1."""
    import pytest

    from durak_env import Game, ObservationEncoder

    rules = Rules(max_bouts=3)
    game = Game(rules, seed=2)
    _play_until(game, lambda g: False)
    assert game.bouts == 3 and game.result.capped
    enc = ObservationEncoder(rules)
    assert enc.encode_game(game, 0)[enc.slices["bouts"]].tolist() == [1.0]
    data = game.to_dict()
    data["bouts"] = 4
    with pytest.raises(ValueError, match="snapshot has 4 bouts; the deal ends at the rules' cap of 3"):
        Game.from_dict(data)


def test_the_page_encodes_without_numpy_what_the_environments_encode():
    """The browser page (seed 001's bot in a page, no numpy there) reads a bot's observation through
    ``encode_floats``: the same floats as ``encode``, in the table's own layout and in the universal one (where
    the seats a smaller table lacks are 0 and the rules follow), at every step of a few deals."""
    import random

    import numpy as np

    from durak_env import Game, ObservationEncoder
    from durak_env.observation import RULE_FEATURES, network_shape, rule_features

    assert network_shape(None) == (693, 158)
    assert network_shape(Rules()) == (ObservationEncoder(Rules()).size, 110)  # 36 cards: 3 moves a card, take, done
    # seed 003 caps the deal at 150 bouts; the others have no cap
    for rules, bout_cap in ((Rules(), 0.0), (Rules.preset("tournament", num_players=4), 1.0),
                            (Rules(deck_size=52, num_players=3, transfer=True), 0.0)):
        own, wide = ObservationEncoder(rules), ObservationEncoder(rules, universal=True)
        assert own.rules is rules and wide.size == 693
        game, rng = Game(rules, seed=7), random.Random(7)
        while not game.is_over:
            for enc in (own, wide):
                view = game.view(game.to_act)
                assert enc.encode_floats(view) == enc.encode(view).tolist()
            assert wide.encode(view)[:wide.slices["seats"].start].tolist() == _widened(own.encode(view), own, wide)
            game.step(rng.choice(game.legal_actions()))
        obs = wide.encode(game.view(0))
        assert obs[wide.slices["seats"]].tolist() == [1.0] * rules.num_players + [0.0] * (6 - rules.num_players)
        assert obs[wide.slices["rules"]].tolist() == np.float32(rule_features(rules)).tolist()
        assert len(RULE_FEATURES) == wide.slices["rules"].stop - wide.slices["rules"].start
        assert dict(zip(RULE_FEATURES, rule_features(rules)))["bout_cap"] == bout_cap
    # seed 003: "Up to five cards may attack the first bout, six after that" (the features count cards by six)
    features = dict(zip(RULE_FEATURES, rule_features(Rules.preset("tournament"))))
    assert (features["max_attacks"], features["max_attacks_early"]) == (1.0, 5 / 6)
    # Seed 001 whole, each choice one-hot: 36 cards, six dealt, the neighbours throw in after a take, the first
    # discard ends the early cap, the defender limited to its cards at the start, the discard open, no bout cap.
    assert dict(zip(RULE_FEATURES, rule_features(Rules.preset("after-beaten")))) == {
        "deck_24": 0.0, "deck_36": 1.0, "deck_52": 0.0, "deal_size": 1.0, "throw_in_attacker": 0.0,
        "throw_in_neighbours": 1.0, "throw_in_all": 0.0, "throw_in_before_beaten": 0.0, "transfer": 0.0,
        "max_attacks": 1.0, "max_attacks_early": 1.0, "early_ends_first_bout": 0.0, "early_ends_first_discard": 1.0,
        "defender_limit_bout_start": 1.0, "defender_limit_current_hand": 0.0, "throw_in_after_take": 1.0,
        "open_discard": 1.0, "bout_cap": 0.0}


def test_every_slice_of_the_observation_is_written_somewhere():
    """The encoder writes its slices by name (observation.py): each declared slice, in the table's own layout and
    the universal one, holds a number other than 0 in some position of random play over the presets, so a slice
    declared and never written (or written under another's name, leaving one empty) is caught."""
    import random

    from durak_env import Game, ObservationEncoder
    from durak_env.engine.invariants import random_rules

    rng = random.Random(5)
    for universal in (False, True):
        written: set[str] = set()
        tables = [Rules.preset(name, num_players=n) for name in Rules.presets() for n in (2, 3)] \
            + [random_rules(rng) for _ in range(6)]
        for rules in tables:
            enc = ObservationEncoder(rules, universal)
            for seed in range(4):
                game = Game(rules, seed)
                while not game.is_over:
                    for seat in range(rules.num_players):
                        obs = enc.encode_game(game, seat)
                        written |= {name for name, part in enc.slices.items() if obs[part].any()}
                    game.step(rng.choice(game.legal_actions()))
        assert written == set(enc.slices), set(enc.slices) - written


def test_a_mask_written_into_an_array_clears_what_it_held():
    """``mask(view, out=)`` (a bot's kept array): the legal moves of this view only, whatever the array held."""
    import numpy as np

    from durak_env import Game, ObservationEncoder

    game = Game(Rules(), seed=3)
    enc = ObservationEncoder(game.rules)
    view = game.view(game.to_act)
    kept = np.ones(enc.num_actions, dtype=np.int8)
    assert enc.mask(view, out=kept) is kept
    assert np.flatnonzero(kept).tolist() == sorted(view.legal_actions) == np.flatnonzero(enc.mask(view)).tolist()


def test_masks_are_int8_and_the_vector_arrays_have_their_layouts_shapes():
    """A mask is int8 (what the spaces say, and what a policy's masking reads), from a view or from the game; the
    arrays of a vector of deals (``array_shapes``) are the table's own layout, or with ``universal`` the layout of
    the largest table: 693 inputs, 158 moves, six seats' rewards."""
    import numpy as np

    from durak_env import Game, ObservationEncoder
    from durak_env.observation import array_shapes

    game = Game(Rules(num_players=3), seed=3)
    enc = ObservationEncoder(game.rules)
    assert enc.mask(game.view(game.to_act)).dtype == np.int8 == enc.mask_game(game, game.to_act).dtype
    own, wide = array_shapes(game.rules, 4), array_shapes(game.rules, 4, universal=True)
    assert (own["obs"], own["mask"], own["rewards"]) == (((4, 351), np.float32), ((4, 110), np.int8),
                                                         ((4, 3), np.float32))
    assert (wide["obs"], wide["mask"], wide["rewards"]) == (((4, 693), np.float32), ((4, 158), np.int8),
                                                            ((4, 6), np.float32))
    assert own["seats"] == wide["seats"] == ((4,), np.int64) and own["ended"] == ((4,), np.bool_)


def _widened(obs, own, wide) -> list[float]:
    """A table's own observation laid out as the universal one up to its seats and rules slices (docs/rules.md):
    each card plane's slots by card id in a 52-card plane, and a seat past the table 0."""
    from durak_env.engine.actions import layout_for

    card_of, d, n = layout_for(own.rules.deck_size).card_of, own.rules.deck_size, own.rules.num_players

    def plane(values: list[float]) -> list[float]:
        wide_plane = [0.0] * 52
        for slot, card in enumerate(card_of):
            wide_plane[card] = values[slot]
        return wide_plane

    out: list[float] = []
    for name, place in own.slices.items():
        values, size = obs[place].tolist(), wide.slices[name].stop - wide.slices[name].start
        if name == "known":
            out += [x for k in range(5) for x in (plane(values[k * d:(k + 1) * d]) if k < n - 1 else [0.0] * 52)]
        elif len(values) == d:
            out += plane(values)
        else:
            out += values + [0.0] * (size - len(values))
    return out


def test_derived_seeds_are_stable_and_apart():
    """One rule derives every seed (durak_env.engine.seeds): the decks of an evaluation are the ones earlier
    versions dealt for the same seed (published figures can be rerun), and neighbouring parts do not collide as
    ``seed * 7919 + i`` did."""
    import random

    from durak_env.engine.seeds import derive_seed

    assert derive_seed("eval", 3, 0, 5) == random.Random("durak-eval/3/0/5").getrandbits(63)
    assert derive_seed("worker", 1, 7919) != derive_seed("worker", 2, 0)
    seeds = {derive_seed(purpose, seed, i) for purpose in ("eval", "worker") for seed in range(50) for i in range(50)}
    assert len(seeds) == 5000 and all(0 <= s < 2**63 for s in seeds)


def test_a_transfer_may_fill_the_cap_but_not_pass_it():
    """Seed 002's transfer adds a card to the attack, and the cap of attack cards holds for it too: a transfer
    that brings the table to the cap is legal, one that would pass it is refused ("the cap leaves no room")."""
    from helpers import act, legal, position

    from durak_env import encode_action

    for cap, allowed in ((2, True), (1, False)):
        rules = Rules(transfer=True, max_attacks=cap, max_attacks_early=cap)
        game = position(rules, ["7H 9C 10C", "7S 8D 9D"], "6C")
        act(game, "attack 7H")
        if game.to_act == 0:
            act(game, "done")
        assert game.to_act == 1 and ("transfer 7S" in legal(game)) == allowed
        why = game.why_not(encode_action("transfer 7S", rules))
        assert why == (None if allowed else "the cap leaves no room for the transferring card")


def test_a_seat_sees_how_many_cards_the_defender_held_when_the_bout_began():
    """Seed 000: never more attack cards "than the number of cards the defender held when the bout began"; every
    seat's view shows that number (``bout_limit``), which beating a card does not lower."""
    from helpers import act, position

    game = position(Rules(), ["7H 7D 9C", "8H 9S 10S"], "6C")
    act(game, "attack 7H")
    act(game, "done")
    act(game, "defend 8H")
    assert [game.view(s).bout_limit for s in (0, 1)] == [3, 3] and len(game.hand(1)) == 2


def test_a_universal_network_reads_each_move_as_the_same_move_of_the_52_card_layout():
    """A universal bot's network has the 52-card action layout at every table (docs/rules.md): the encoder's
    ``into`` takes each of the rules' moves to the network's move of the same kind and card, and a table's own
    layout to itself."""
    from durak_env import ObservationEncoder, decode_action

    for rules in (Rules(deck_size=24), Rules(), Rules(deck_size=52, transfer=True)):
        own, wide = ObservationEncoder(rules), ObservationEncoder(rules, universal=True)
        assert own.into == tuple(range(own.num_actions)) and len(wide.into) == own.num_actions
        wide_rules = rules.replace(deck_size=52)
        for action in range(own.num_actions):
            assert decode_action(wide.into[action], wide_rules) == decode_action(action, rules)
