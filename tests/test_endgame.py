"""The 2-player endgame learned from its solution (training/endgame.py): the unseen cards are the other hand and
nothing more, the bot file's two parts each play where they should, the targets keep the start policy's choices
among the best moves, and a run writes a bot file that plays and resumes from its parts."""

import numpy as np
import pytest
import torch
from helpers import positions_met

from baselines import SHIPPED_BOTS, make_bot
from baselines.evaluate import evaluate
from baselines.policy_file import load_bot
from durak_env.engine.actions import layout_for
from durak_env.engine.game import Game
from durak_env.native import available
from durak_env.observation import ObservationEncoder, observation_slices
from training.endgame import (LOST, EndgameConfig, GatedPolicy, best_moves, endgame_part, main, run, solved_deals,
                              targets, unseen_cards)
from training.export import policy_from_bot_file

BOT = str(SHIPPED_BOTS["podkidnoy-0.3"][0])
pytestmark = pytest.mark.skipif(not available(), reason="the endgame's labels come from the native solver")


def positions(stock_empty: bool, count: int = 12, seed: int = 5) -> list[Game]:
    """Positions of 2-player podkidnoy with a choice of moves, the stock empty or not."""
    return positions_met(load_bot(BOT).rules, lambda game: (not game.stock) == stock_empty, count, seed, share=0.2)


def encoded(games: list[Game]) -> tuple[torch.Tensor, torch.Tensor]:
    enc = ObservationEncoder(games[0].rules)
    obs = np.zeros((len(games), enc.size), dtype=np.float32)
    mask = np.zeros((len(games), enc.num_actions), dtype=np.int8)
    for row, game in enumerate(games):
        enc.encode_game(game, game.to_act, obs[row])
        mask[row, list(game.legal_actions())] = 1
    return torch.from_numpy(obs), torch.from_numpy(mask)


def test_the_unseen_cards_are_the_other_hand_once_the_stock_is_empty():
    """Worked out from the seat's own planes alone; a card plane left out (the discard, the beaten cards) would
    count a card out of play as the other seat's."""
    games = positions(stock_empty=True)
    obs, _ = encoded(games)
    unseen = unseen_cards(obs, observation_slices(games[0].rules))
    slot_of = layout_for(36).slot_of
    for row, game in enumerate(games):
        other = game.hands[1 - game.to_act]
        want = sorted(slot_of[card] for card in range(52) if other >> card & 1)
        assert [i for i in range(unseen.shape[1]) if unseen[row, i]] == want and want


def test_the_bot_files_parts_play_each_where_they_should():
    """The start policy while the stock holds cards, the endgame part once it is empty, row by row in one call."""
    main_net = policy_from_bot_file(BOT)
    rules = load_bot(BOT).rules
    slices = observation_slices(rules)
    endgame = endgame_part(main_net, rules.deck_size, [160, 160], seed=0)
    with torch.no_grad():
        for p in endgame.parameters():
            p.add_(0.5 * torch.randn_like(p))  # so the two parts differ
        gated = GatedPolicy(main_net, endgame, slices)
        games = positions(stock_empty=False, count=6) + positions(stock_empty=True, count=6)
        obs, mask = encoded(games)
        probs, value = gated(obs, mask)
        main_logits, main_value = main_net(obs, mask)
        end_logits, end_value = endgame(torch.cat([obs, unseen_cards(obs, slices)], -1), mask)
    torch.testing.assert_close(probs[:6], torch.softmax(main_logits[:6], -1))
    torch.testing.assert_close(probs[6:], torch.softmax(end_logits[6:], -1))
    torch.testing.assert_close(value, torch.cat([main_value[:6], end_value[6:]]))
    assert not torch.allclose(probs[6:], torch.softmax(main_logits[6:], -1))


def test_the_endgame_part_starts_as_the_policy_it_starts_from():
    """The unseen cards come in with weights 0 and the widening keeps the function (up to its small noise)."""
    main_net = policy_from_bot_file(BOT)
    endgame = endgame_part(main_net, 36, [256, 256], seed=1)
    obs, mask = encoded(positions(stock_empty=True))
    slices = observation_slices(load_bot(BOT).rules)
    with torch.no_grad():
        want, _ = main_net(obs, mask)
        got, _ = endgame(torch.cat([obs, unseen_cards(obs, slices)], -1), mask)
    assert (got.argmax(-1) == want.argmax(-1)).all()
    torch.testing.assert_close(torch.softmax(got, -1), torch.softmax(want, -1), atol=0.05, rtol=0)


def test_the_targets_keep_the_start_policys_choice_among_the_best_moves():
    """Where every move is as good the target is the start policy itself; where some are worse, they get nothing
    and the rest keep their proportions."""
    values = torch.tensor([[1.0, -1.0, 1.0, LOST], [0.0, 0.0, 0.0, LOST]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 0]], dtype=torch.int8)
    best = best_moves(values.masked_fill(mask == 0, LOST))
    assert best.tolist() == [[True, False, True, False], [True, True, True, False]]

    class Fixed(torch.nn.Module):
        def forward(self, obs, mask):
            logits = torch.log(torch.tensor([[0.2, 0.6, 0.2, 1e-9], [0.5, 0.3, 0.2, 1e-9]]))
            return logits.masked_fill(mask == 0, -1e9), torch.zeros(2)

    got = targets(Fixed(), torch.zeros(2, 1), mask, best)
    torch.testing.assert_close(got, torch.tensor([[0.5, 0.0, 0.5, 0.0], [0.5, 0.3, 0.2, 0.0]]))


def test_the_solved_deals_hold_endings_with_a_choice_and_each_moves_value():
    part = solved_deals((BOT, 6, 11, 0.1, 200_000))
    n = len(part["obs"])
    assert n > 10 and part["mask"].shape == part["values"].shape == (n, 110)
    stock = observation_slices(load_bot(BOT).rules)["stock_size"].start
    assert (part["obs"][:, stock] == 0).all() and (part["mask"].sum(1) > 1).all()
    legal = part["mask"] > 0
    assert np.isin(part["values"][legal], (-1, 0, 1)).all() and (part["values"][~legal] == LOST).all()
    assert part["unsolved"].shape == (1,)


def test_a_run_writes_a_bot_that_plays_and_resumes_from_its_parts(tmp_path):
    cfg = EndgameConfig(BOT, str(tmp_path / "run"), games=4, epochs=1, hidden_sizes=(128, 128), workers=1)
    bot = run(cfg, say=lambda line: None)
    part = tmp_path / "run" / "part-0000.npz"
    kept = part.stat().st_mtime_ns
    assert load_bot(bot).metadata["endgame"]["start"] == "podkidnoy-0.3.onnx"
    report = evaluate([str(bot), "heuristic"], load_bot(BOT).rules, games=4, seed=1, workers=1)
    assert report.games == 4
    run(cfg, say=lambda line: None)
    assert part.stat().st_mtime_ns == kept  # the deals were not played again
    with pytest.raises(ValueError, match="two networks"):
        policy_from_bot_file(bot)
    assert make_bot(str(bot)).act is not None


def test_the_command_refuses_a_bot_for_more_seats_in_one_line(tmp_path, capsys):
    assert main([str(SHIPPED_BOTS["tournament"][0]), str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2-player" in err[0]
