"""The page in a real browser: Debian's Chromium driven by Playwright, like a person with a mouse or a
keyboard.  Whole games at two and four seats against the heuristic and the shipped bot; only legal cards
react; the page's result is the engine's; no hidden card reaches the page; a reload keeps the game; no
console errors.  Screenshots of the start, a bout in play and the end go to $DURAK_SCREENSHOTS (or the
test's folder).

The README's test command installs Debian's chromium (tests/install-browser); nothing downloads a browser.
Without one these tests fail, saying so: they are never skipped.  The server and browser fixtures are in
conftest.py, shared with tests/test_web_controls.py."""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

import pytest
from web_helpers import card_tokens, hidden_cards

from baselines import SHIPPED_BOTS
from durak_env import Rules

@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("DURAK_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Player:
    """A person at the page: reads it, clicks or types, and checks it against the server's game."""

    def __init__(self, browser, server, pace: int = 0):
        self.url, self.app = server
        self.page = browser.new_page(viewport={"width": 1100, "height": 900})
        self.in_page = hasattr(self.app, "attach")  # durak site: the engine in the tab, mirrored by the test
        if self.in_page:
            self.app = self.app.attach(self.page)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{self.url}?pace={pace}")
        self.page.wait_for_selector("#game:not([hidden])")
        self.idle()

    def idle(self) -> None:
        self.page.wait_for_function("document.body.dataset.busy === '0' && !!document.querySelector('#status')")

    def new_game(self, preset: str, players: int, opponent: str) -> None:
        page = self.page
        page.select_option("#preset", preset)
        page.select_option("#players", str(players))
        for select in page.query_selector_all("select.opponent"):
            select.select_option(opponent)
        self.setup = (preset, str(players), opponent)
        old = page.evaluate("location.hash")
        page.click("#deal")
        page.wait_for_function("old => location.hash.includes('game=') && location.hash !== old", arg=old)
        self.idle()

    @property
    def table(self):
        game_id = self.page.evaluate("location.hash.split('game=')[1]")
        return self.app.state.tables.get(game_id)

    def playable(self) -> dict[str, object]:
        """What the page lets the person do: the highlighted cards and the two buttons."""
        cards = self.page.eval_on_selector_all("#hand .card", "els => els.map(e => [e.dataset.card, "
                                               "e.getAttribute('aria-disabled') !== 'true', e.classList.contains('legal')])")
        transfers = self.page.eval_on_selector_all("#hand button.transfer:enabled", "els => els.map(e => e.dataset.card)")
        plays = {c for c, _, legal in cards if legal}
        return {"cards": plays | set(transfers), "dimmed": {c for c, on, _ in cards if not on},
                "plays": plays, "transfers": set(transfers),
                "take": self.page.is_enabled("#take"), "done": self.page.is_enabled("#done")}

    def check(self) -> None:
        """Only the engine's legal moves react, and no card the seat cannot see is on the page."""
        table = self.table
        game = table.game
        if game.is_over:
            return
        legal = game.view(table.seat).legal_actions
        rules = game.rules
        from durak_env import decode_action

        moves = [decode_action(a, rules) for a in legal]
        shown = self.playable()
        assert shown["cards"] == {str(m.card) for m in moves if m.card is not None}
        assert shown["take"] == any(m.kind == "take" for m in moves)
        assert shown["done"] == any(m.kind == "done" for m in moves)
        text = self.page.inner_text("body") + " ".join(
            self.page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
        leaked = card_tokens(text) & hidden_cards(game, table.seat)
        assert not leaked, f"hidden cards on the page: {sorted(leaked)}"

    def dimmed_card_does_nothing(self) -> None:
        dimmed = self.playable()["dimmed"]
        if not dimmed:
            return
        before = self.table.game.to_dict()
        self.page.click(f"#hand .card[data-card='{sorted(dimmed)[0]}']", force=True)
        time.sleep(0.1)
        self.idle()
        assert self.table.game.to_dict() == before

    def move_by_mouse(self, rng: random.Random) -> None:
        shown = self.playable()
        options = [f"#hand .card[data-card='{c}']" for c in sorted(shown["plays"])]
        options += [f"#hand button.transfer[data-card='{c}']" for c in sorted(shown["transfers"])]
        options += [b for b in ("#take", "#done") if shown[b[1:]]]
        self.page.click(rng.choice(options))
        self.idle()

    def move_by_keyboard(self, rng: random.Random) -> None:
        shown = self.playable()
        choices = (["card"] if shown["plays"] else []) + [k for k in ("take", "done") if shown[k]]
        choice = rng.choice(choices)
        if choice == "card":
            for _ in range(rng.randrange(1, len(shown["cards"]) + 1)):
                self.page.keyboard.press("ArrowRight")  # seed 001: "use the arrow keys and Enter"
            focused = self.page.evaluate("document.activeElement.dataset.card")
            assert focused in shown["cards"]  # a card that plays, or a Transfer button
            self.page.keyboard.press("Enter")
        else:
            self.page.keyboard.press("T" if choice == "take" else "D")  # "T to take and D for Done"
        self.idle()


def play_whole_game(player: Player, how: str, shots: Path | None, name: str) -> None:
    rng = random.Random(name)
    page = player.page
    if shots:
        page.screenshot(path=str(shots / f"{name}-start.png"))
    reloaded = shot_mid = False
    for step in range(600):
        if page.is_visible("#result"):
            break
        player.check()
        if step == 3:
            player.dimmed_card_does_nothing()
        if not reloaded and step == 5:
            # The game survives a reload: the server keeps it; a page that runs the engine replays it, under the
            # same deal number.
            before = (page.inner_text("#info"), player.playable(), page.inner_text("#log"))
            page.reload()
            player.idle()
            assert (page.inner_text("#info"), player.playable(), page.inner_text("#log")) == before
            opponents = page.eval_on_selector_all("select.opponent", "els => els.map(e => e.value)")
            assert (page.input_value("#preset"), page.input_value("#players"), *set(opponents)) == player.setup
            reloaded = True
        if shots and not shot_mid and page.query_selector_all("#table .pair"):
            page.screenshot(path=str(shots / f"{name}-bout.png"))
            shot_mid = True
        (player.move_by_mouse if how == "mouse" else player.move_by_keyboard)(rng)
    else:
        pytest.fail("the game did not end in 600 moves")
    game = player.table.game
    assert game.is_over
    text = page.inner_text("#result-text")
    fool = game.result.fool
    if fool is None:
        assert text.startswith("A draw")
    elif fool == player.table.seat:
        assert text.startswith("You are the durak, the fool.")
    else:
        name = player.table.bot_names[fool]  # a sentence starts with a capital letter
        assert text.startswith(f"{name[0].upper()}{name[1:]} (player {fool + 1}) is the fool.")
    assert "places:" not in text  # the placings are the table under the sentence, not repeated
    log = page.inner_text("#log")
    assert not re.search(r"\b(10|[2-9JQKA])[CDHS]\b", log), log
    places = page.inner_text("#placings")
    assert all(f"place {p}" in places for p in game.result.placings)
    assert f"The deal's seed was {player.table.seed}" in page.inner_text("#seed")
    if shots:
        page.screenshot(path=str(shots / f"{name}-end.png"))
    assert player.errors == []


FOUR = "tournament"
TRAINED_FOUR = any(r == Rules.preset(FOUR, num_players=4) for _, r in SHIPPED_BOTS.values())


@pytest.mark.parametrize("preset, players, opponent, how", [
    ("podkidnoy", 2, "heuristic", "mouse"),
    ("perevodnoy", 2, "heuristic", "mouse"),  # transfers through their own control
    ("podkidnoy", 2, "trained", "keyboard"),
    (FOUR, 4, "heuristic", "keyboard"),
    (FOUR, 4, "trained" if TRAINED_FOUR else "search:fast", "mouse"),
])
def test_a_whole_game_in_the_browser(browser, backend, shots, preset, players, opponent, how):
    player = Player(browser, backend)
    player.new_game(preset, players, opponent)
    table = player.table
    assert table.rules == Rules.preset(preset, num_players=players)
    assert {table.bot_names[s] for s in range(players) if s != table.seat} == {opponent}
    play_whole_game(player, how, shots, f"{preset}-{players}-{opponent}-{how}-{'site' if player.in_page else 'serve'}")
    player.page.close()


def test_bots_move_one_at_a_time_with_a_short_pause(browser, backend):
    """Seed 004: "The opponent's pauses are fixed lengths between four tenths and seven tenths of a second".
    (The tests run the page at ?pace=250 to be quick; without it each pause is drawn from 0.4-0.7 s.)"""
    player = Player(browser, backend, pace=250)
    page = player.page
    player.new_game("tournament", 4, "heuristic")
    page.evaluate("""() => {
        window.moveTimes = [];
        new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach((n) => {
            if (n.classList && n.classList.contains("move")) window.moveTimes.push(performance.now());
        }))).observe(document.getElementById("log"), {childList: true});
    }""")
    rng = random.Random(3)
    while len(page.evaluate("window.moveTimes")) < 6 and not page.is_visible("#result"):
        player.move_by_mouse(rng)
    times = page.evaluate("window.moveTimes")
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) >= 3 and sum(g >= 240 for g in gaps) >= len(gaps) // 2  # one at a time, a pause apart
    assert player.errors == []
    page.close()


def test_best_figure_the_record_download_and_the_replay_viewer(browser, backend, tmp_path):
    player = Player(browser, backend)
    page = player.page
    player.new_game("podkidnoy", 2, "heuristic")
    rng = random.Random(7)
    while not page.is_visible("#result"):
        player.move_by_mouse(rng)
    game = player.table.game
    sizes = [game.hand_size(s) for s in range(2)]
    figure = 0 if game.result.fool is None else sizes[game.result.fool]
    # Seed 004's own key, for the game it describes: two players, its rules, against the computer.
    assert page.evaluate("localStorage.getItem('orchidlines-best-durak')") == str(figure)
    assert page.evaluate("localStorage.getItem('durak_env.best')") is None
    assert page.inner_text("#best") == f"Best: {figure}"
    with page.expect_download() as info:
        page.click("#download")
    path = tmp_path / "game.json"
    info.value.save_as(path)
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#viewer:not([hidden])")
    first = page.inner_text("#viewer-hands")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#viewer-pos").startswith("2 /")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#viewer-hands") == first
    rows = page.eval_on_selector_all("#viewer-hands > div", "rows => rows.map(r => [...r.querySelectorAll('.card')]"
                                     ".map(c => c.dataset.card).sort())")
    from durak_env import Game

    dealt = Game(game.rules, seed=player.table.seed)
    assert rows == [sorted(str(c) for c in dealt.hand(s)) for s in range(2)]  # both hands, every card
    old = player.table
    page.click("#replay-deal")
    player.idle()
    again = player.table
    assert again is not old and again.seed == old.seed  # "replay this deal": the same deck
    from durak_env import Game

    assert Game(again.rules, seed=again.seed).hands == Game(old.rules, seed=old.seed).hands
    assert player.errors == []
    page.close()
