"""Seed 001's controls and a table a person can read, in Chromium (issue 27, items 5-11): tap to lift and tap again
to play, drag to the table with a mouse or a finger, lift or drag a card onto the attack card it beats, a Transfer
control of its own, beaten attack cards that stay readable, one word for each thing, nothing lost on reload, and
contrast, names and sizes for people who need them.  Positions are set up on the server's table (the engine's
``position`` helper) and the page is reloaded onto them."""

from __future__ import annotations

import json
import random

import pytest
from helpers import act, position, legal

from durak_env import Rules, encode_action

PHONE = {"viewport": {"width": 412, "height": 915}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1100, "height": 900}}


class Page:
    """A browser tab on the page, at a table whose position a test sets."""

    def __init__(self, browser, server, context: dict = DESKTOP, pace: int = 0, script: str | None = None):
        self.url, self.app = server
        self.context = browser.new_context(**context)
        if script:  # run in the page before its own scripts
            self.context.add_init_script(script)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.goto(f"{self.url}?pace={pace}")
        self.idle()

    def idle(self) -> None:
        self.page.wait_for_function("document.body.dataset.busy === '0' && !document.getElementById('game').hidden")

    def deal(self, preset: str, players: int, match: bool = False) -> None:
        """A new game from the settings: ``preset`` at ``players`` seats (a match where asked)."""
        self.page.select_option("#preset", preset)
        self.page.select_option("#players", str(players))
        if match:
            self.page.check("#match")
        self.page.click("#deal")
        self.idle()

    @property
    def game_id(self) -> str:
        return self.page.evaluate("location.hash.split('game=')[1]")

    @property
    def table(self):
        return self.app.state.tables.get(self.game_id)

    def set_position(self, game) -> None:
        """Put the deal at ``game``'s position (the person at seat 0, to act) and reload the page onto it."""
        table = self.table
        table.game, table.rules, table.moves, table.log = game, game.rules, [], []
        self.page.reload()
        self.idle()

    def close(self) -> None:
        assert self.errors == []
        self.context.close()


def defending_two_cards():
    """Seat 0 defends 7♠ and 8♠ (trump hearts) holding 9♠ 10♠ 7♥: the earliest unbeaten card is 7♠."""
    game = position(Rules.preset("podkidnoy"), ["9S 10S 7H QD 6C 8C", "JH QH KH AH 9D 10D"], "6H",
                    table=[("7S", None), ("8S", None)], attacker=1, defender=0)
    act(game, "done")
    assert game.to_act == 0 and legal(game) == {"defend 9S", "defend 10S", "defend 7H", "take"}
    return game


def may_transfer():
    """Perevodnoy: seat 0 defends 7♠ holding 7♣ (may only transfer) and 7♥ (a trump: defends or transfers)."""
    game = position(Rules.preset("perevodnoy"), ["7C 10S 7H QD 6C 8C", "JH QH KH AH 6D 9D"], "6H",
                    table=[("7S", None)], attacker=1, defender=0)
    act(game, "done")
    assert game.to_act == 0 and {"transfer 7C", "transfer 7H", "defend 7H"} <= legal(game)
    return game


def played(tab: "Page", move: str) -> None:
    """Once the page is idle, the person's move at the set position was ``move`` (as the engine writes it)."""
    tab.idle()
    assert tab.table.moves[0] == (0, encode_action(move, tab.table.rules)), tab.table.moves[:1]


def card(page, name: str):
    return page.locator(f"#hand .card[data-card='{name}']")


def center(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def dropped(tab: Page, drops: str | None) -> None:
    """Wait until the page has handled the drop that follows ``drops`` (the page plays a drop once the pointer's
    events are over), then until it is idle."""
    tab.page.wait_for_function("d => document.body.dataset.drops !== d", arg=drops)
    tab.idle()


def ends(tab: Page, start: str, end: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The centres of two elements, both scrolled into the viewport (a drag starts and ends on screen)."""
    tab.page.locator(start).evaluate("el => el.scrollIntoView({block: 'center'})")
    points = center(tab.page, start), center(tab.page, end)
    height = tab.page.viewport_size["height"]
    assert all(0 <= y <= height for _, y in points), f"{start} and {end} do not fit on one screen"
    return points


def mouse_drag(tab: Page, start: str, end: str) -> None:
    """A card dragged with the mouse from the element ``start`` to the element ``end``."""
    start, end = ends(tab, start, end)
    drops = tab.page.evaluate("document.body.dataset.drops")
    tab.page.mouse.move(*start)
    tab.page.mouse.down()
    tab.page.mouse.move(*end, steps=8)
    tab.page.mouse.up()
    dropped(tab, drops)


def touch_drag(tab: Page, start: str, end: str) -> None:
    """A finger pressed on the element ``start``, moved to the element ``end`` and lifted, as the touch screen
    reports it."""
    start, end = ends(tab, start, end)
    drops = tab.page.evaluate("document.body.dataset.drops")
    cdp = tab.context.new_cdp_session(tab.page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for i in range(1, 9):
        x = start[0] + (end[0] - start[0]) * i / 8
        y = start[1] + (end[1] - start[1]) * i / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    dropped(tab, drops)


# ----- item 5: lift and play, drag, defend onto the card to beat -----------------------------------------------

def test_on_a_touch_screen_a_tap_lifts_a_card_and_a_second_tap_plays_it(browser, server):
    tab = Page(browser, server, PHONE)
    tab.set_position(defending_two_cards())
    page, before = tab.page, tab.table.game.to_dict()
    card(page, "9S").tap()
    assert "lifted" in card(page, "9S").get_attribute("class") and card(page, "9S").get_attribute("aria-pressed") == "true"
    assert tab.table.game.to_dict() == before  # lifted, not played
    assert "9♠ lifted" in page.inner_text("#status")
    card(page, "9S").tap()
    played(tab, "defend 9S")
    tab.close()


def test_a_mouse_click_plays_at_once(browser, server):
    tab = Page(browser, server)
    tab.set_position(defending_two_cards())
    card(tab.page, "10S").click()
    played(tab, "defend 10S")
    tab.close()


@pytest.mark.parametrize("how", ["mouse", "touch"])
def test_a_card_dragged_to_the_table_is_played(browser, server, how):
    tab = Page(browser, server, PHONE if how == "touch" else DESKTOP)
    tab.set_position(defending_two_cards())
    page = tab.page
    (mouse_drag if how == "mouse" else touch_drag)(tab, "#hand .card[data-card='10S']", "#table .pair[data-pair='0']")
    played(tab, "defend 10S")
    tab.close()


def test_defending_onto_a_card_the_rules_do_not_let_it_answer_says_why_and_plays_nothing(browser, server):
    """The engine answers the earliest unbeaten card (7♠); the page lets the person drop or tap on it, and says
    plainly why 8♠ is not a target now, without changing the rule to make the control work."""
    tab = Page(browser, server, PHONE)
    tab.set_position(defending_two_cards())
    page, before = tab.page, tab.table.game.to_dict()
    assert "answer" in page.get_attribute("#table .pair[data-pair='0']", "class")
    assert "not beaten: the card to beat" in page.get_attribute("#table .pair[data-pair='0'] .attack", "aria-label")
    card(page, "10S").tap()
    page.locator("#table .pair[data-pair='1'] .attack").tap()
    assert "Beat 7♠ first" in page.inner_text("#status") and "earliest unbeaten card" in page.inner_text("#status")
    assert tab.table.game.to_dict() == before
    touch_drag(tab, "#hand .card[data-card='9S']", "#table .pair[data-pair='1'] .attack")
    assert tab.table.game.to_dict() == before and "Beat 7♠ first" in page.inner_text("#status")
    card(page, "10S").tap()
    page.locator("#table .pair[data-pair='0'] .attack").tap()
    played(tab, "defend 10S")
    tab.close()


# ----- item 6: transfer is a control of its own ---------------------------------------------------------------

def test_transfer_is_its_own_labelled_control_at_a_touch_size(browser, server):
    tab = Page(browser, server, PHONE)
    tab.set_position(may_transfer())
    page, before = tab.page, tab.table.game.to_dict()
    assert "Transfer the attack to heuristic (player 2)" in page.inner_text("#status")
    buttons = page.locator("#hand button.transfer")
    assert sorted(buttons.evaluate_all("els => els.map(e => e.dataset.card)")) == ["7C", "7H"]
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, box
    label = page.get_attribute("#hand button.transfer[data-card='7C']", "aria-label")
    assert label == "Transfer the attack with 7♣ to heuristic (player 2)"
    card(page, "7C").tap()  # the card that can only transfer: a tap lifts it, it does not transfer
    card(page, "7C").tap()
    assert tab.table.game.to_dict() == before
    page.locator("#hand button.transfer[data-card='7C']").tap()
    played(tab, "transfer 7C")
    tab.close()


def test_a_card_dragged_onto_the_transfer_zone_transfers_and_a_trump_clicked_defends(browser, server):
    tab = Page(browser, server, PHONE)
    tab.set_position(may_transfer())
    page = tab.page
    assert page.inner_text("#transfer-zone") == "Transfer to heuristic (player 2)"
    box = page.locator("#transfer-zone").bounding_box()
    assert box["height"] >= 44
    touch_drag(tab, "#hand .card[data-card='7H']", "#transfer-zone")
    played(tab, "transfer 7H")
    tab.close()
    tab = Page(browser, server)
    tab.set_position(may_transfer())
    card(tab.page, "7H").click()  # its main move is the defence; the transfer has its own control
    played(tab, "defend 7H")
    tab.close()


# ----- item 7: a beaten attack card stays readable -------------------------------------------------------------

def test_a_beaten_attack_card_shows_its_rank_and_suit(browser, server):
    game = defending_two_cards()
    act(game, "defend 9S")  # 7♠ beaten by 9♠; 8♠ still to answer: seat 0 defends again
    tab = Page(browser, server)
    tab.set_position(game)
    page = tab.page
    covered = page.evaluate("""() => {
        const pair = document.querySelector('#table .pair');
        const label = pair.querySelector('.attack .label').getBoundingClientRect();
        const hits = [[label.left + 2, label.top + 2], [label.right - 2, label.bottom - 2],
                      [(label.left + label.right) / 2, (label.top + label.bottom) / 2]];
        return hits.map(([x, y]) => document.elementFromPoint(x, y).closest('.card').classList.contains('attack'));
    }""")
    assert covered == [True, True, True]  # every corner of 7♠'s label is the attack card's, not the defence's
    assert page.get_attribute("#table .pair .attack", "aria-label") == "7♠, attack, beaten by 9♠"
    assert page.get_attribute("#table .pair .defence", "aria-label") == "9♠, defence, beats 7♠"
    assert page.get_attribute("#table .pair[data-pair='1'] .attack", "aria-label") == \
        "8♠, attack, not beaten: the card to beat"
    tab.close()


# ----- item 8: one word for each thing -------------------------------------------------------------------------

def test_one_word_for_each_thing(browser, server):
    tab = Page(browser, server)
    page = tab.page
    rng = random.Random(4)
    seen = []
    while not page.is_visible("#result"):
        seen.append(page.inner_text("#status"))
        options = page.locator("#hand .card.legal").all() + [page.locator(b) for b in ("#take", "#done")
                                                              if page.is_enabled(b)]
        rng.choice(options).click()
        tab.idle()
    text = " ".join(seen) + page.inner_text("#log")
    assert "Done" not in text and " take" not in text and "Pass" in page.inner_text("#done")
    assert "placing points" not in page.inner_text("#placings")  # a podkidnoy deal scores no points
    tab.close()


def test_a_refusal_speaks_to_you_in_the_pages_words():
    """Errors said "player 0 is defending" where the page says "you", and named cards "6C" not "6♣"."""
    from frontends.web.table import Refused, Table

    table = Table(Rules.preset("podkidnoy"), "podkidnoy", 0, [None, None], ["you", "x"], seed=1)
    table.game = defending_two_cards()
    with pytest.raises(Refused, match="you are defending") as err:
        table.move(encode_action("attack 6C", table.rules))
    assert "player 0" not in str(err.value)
    with pytest.raises(Refused, match="6♣ does not beat 7♠"):
        table.move(encode_action("defend 6C", table.rules))


def test_the_end_of_a_match_names_the_winner_and_its_points(browser, server):
    tab = Page(browser, server)
    page = tab.page
    tab.deal("tournament", 3, match=True)
    rng = random.Random(5)
    for _ in range(2000):
        if page.is_visible("#next-deal"):
            page.click("#next-deal")
            tab.idle()
            continue
        if page.is_visible("#result") and tab.table.match.over:
            break
        options = page.locator("#hand .card.legal").all() + [page.locator(b) for b in ("#take", "#done")
                                                              if page.is_enabled(b)]
        rng.choice(options).click()
        tab.idle()
    match = tab.table.match
    assert match.over
    text = page.inner_text("#match-result")
    names = tab.table.names()
    assert text.startswith("Match over: ") and names[match.winners[0]] in text.split(" with ")[0]
    assert "placing points" in page.inner_text("#placings")
    tab.close()


# ----- item 9: nothing lost ----------------------------------------------------------------------------------

def test_a_reload_keeps_the_log_and_focus_stays_on_the_hand(browser, server):
    tab = Page(browser, server)
    page = tab.page
    for _ in range(6):
        if page.is_visible("#result"):
            break
        if page.locator("#hand .card.legal").count():
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            tab.idle()
            assert page.evaluate("document.getElementById('hand').contains(document.activeElement)")
        else:
            page.keyboard.press("T" if page.is_enabled("#take") else "D")
            tab.idle()
    lines = page.inner_text("#log")
    assert lines.count("\n") >= 3
    page.reload()
    tab.idle()
    assert page.inner_text("#log") == lines
    tab.close()


def test_a_second_tab_that_falls_behind_catches_up(browser, server):
    one = Page(browser, server)
    one.set_position(defending_two_cards())
    two = one.context.new_page()
    two.goto(one.page.url)
    two.wait_for_function("document.body.dataset.busy === '0' && !document.getElementById('game').hidden")
    card(one.page, "9S").click()
    one.idle()
    two.locator("#hand .card[data-card='9S']").click()  # stale: 9♠ is already on the table
    two.wait_for_function("document.body.dataset.busy === '0'")
    error = two.inner_text("#error")
    assert "you do not hold 9♠" in error and "moved on in another tab" in error  # a sentence says what happened
    two.wait_for_function("([a]) => document.getElementById('info').textContent === a", arg=[one.page.inner_text("#info")])
    assert two.inner_text("#hand") == one.page.inner_text("#hand")
    assert two.inner_text("#log") == one.page.inner_text("#log")  # the whole log, the other tab's moves included
    assert one.table.log == [("you: defend 9♠", "mine")]
    one.close()


def test_new_game_is_disabled_while_the_bots_move_and_long_logs_keep_their_numbers(browser, server):
    tab = Page(browser, server, pace=400)
    page = tab.page
    tab.deal("tournament", 4)
    options = page.locator("#hand .card.legal").all() + [page.locator(b) for b in ("#take", "#done")
                                                          if page.is_enabled(b)]
    # Read when the page turns busy, whatever the machine's load: while the bots move, New game and Again are
    # visibly disabled, not silently ignored.  (Read after the click instead, a loaded machine could let the
    # bots' few moves end first.)
    page.evaluate("""() => { window.seenBusy = null; new MutationObserver(() => {
        if (document.body.dataset.busy === '1' && window.seenBusy === null)
            window.seenBusy = [document.body.dataset.busy, ...['deal', 'again'].map((id) => document.getElementById(id).disabled)];
    }).observe(document.body, {attributes: true, attributeFilter: ['data-busy']}); }""")
    options[0].click()  # the bots answer, 0.4 s a move
    page.wait_for_function("window.seenBusy !== null")
    seen = page.evaluate("window.seenBusy")
    assert seen == ["1", True, True], seen
    tab.idle()
    assert page.is_enabled("#deal")
    page.evaluate("() => { for (let i = 0; i < 130; i++) appendLog('heuristic (player 2): attack 10♠', 'move'); }")
    inside = page.evaluate("""() => {
        const log = document.getElementById('log').getBoundingClientRect();
        const n = [...document.querySelectorAll('#log .n')].find((e) => e.textContent === '120.');
        const r = n.getBoundingClientRect();
        return r.left >= log.left && r.right <= log.right && n.scrollWidth <= n.clientWidth + 1;
    }""")
    assert inside
    tab.close()


def test_the_replay_viewer_opens_in_view_with_the_table_in_pairs(browser, server, tmp_path):
    from durak_env import Game
    from durak_env.engine.record import make_record

    game, moves = Game(Rules.preset("podkidnoy"), seed=5), []
    while not any(d is not None for _, d in game.table):  # a real deal up to its first beaten card
        seat, action = game.to_act, game.legal_actions()[0]
        game.step(action)
        moves.append((seat, action))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(make_record(game.rules, 5, 0, moves).to_dict()))
    tab = Page(browser, server, {"viewport": {"width": 1100, "height": 500}})
    page = tab.page
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("(() => { const top = document.getElementById('viewer').getBoundingClientRect().top;"
                           " return top > -2 && top < window.innerHeight / 2; })()")  # scrolled into view
    for _ in moves:
        page.keyboard.press("ArrowRight")
    assert page.locator("#viewer-table .pair .defence").count() == 1
    assert page.get_attribute("#viewer-table .pair .defence", "aria-label").endswith(
        f"beats {page.locator('#viewer-table .pair .attack').first.inner_text()}")
    tab.close()


# ----- item 10: seed 004's Best figure under its own key ------------------------------------------------------

@pytest.mark.parametrize("preset, players, key", [
    ("podkidnoy", 2, "orchidlines-best-durak"), ("podkidnoy", 2, "orchidlines-best-durak"),
    ("perevodnoy", 2, "durak_env.best.perevodnoy"), ("tournament", 4, None)])
def test_the_best_figure_has_seed_004s_key_for_its_game_and_a_named_key_elsewhere(preset, players, key):
    from frontends.web.table import Table, view_state

    rules = Rules.preset(preset, num_players=players)
    table = Table(rules, preset, 0, [None] * players, ["you"] * players, seed=1)
    best = view_state(table.game.view(0), table)["best"]
    assert (best and best["key"]) == key
    if key and key != "orchidlines-best-durak":
        assert best["label"] == f"Best ({preset})"  # the page names the rule set the figure is for


def test_a_perevodnoy_deal_writes_its_own_best(browser, server):
    tab = Page(browser, server)
    page = tab.page
    page.select_option("#preset", "perevodnoy")
    page.click("#deal")
    tab.idle()
    rng = random.Random(9)
    while not page.is_visible("#result"):
        options = page.locator("#hand .card.legal").all() + page.locator("#hand button.transfer:enabled").all() + \
            [page.locator(b) for b in ("#take", "#done") if page.is_enabled(b)]
        rng.choice(options).click()
        tab.idle()
    assert page.evaluate("localStorage.getItem('orchidlines-best-durak')") is None
    assert page.evaluate("localStorage.getItem('durak_env.best.perevodnoy')") is not None
    assert page.inner_text("#best").startswith("Best (perevodnoy): ")
    tab.close()


# ----- item 11: accessibility --------------------------------------------------------------------------------

CONTRAST = """(el) => {
    const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const page = rgb(getComputedStyle(document.body).backgroundColor);
    const style = getComputedStyle(el);
    const alpha = Number(style.opacity);
    const over = (c) => c.slice(0, 3).map((v, i) => alpha * v + (1 - alpha) * page[i]);  // what opacity leaves
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    return {text: ratio(over(rgb(style.color)), over(rgb(style.backgroundColor))),
            outline: ratio(rgb(style.outlineColor), page)};
}"""


def contrast(page, selector: str) -> dict:
    return page.locator(selector).first.evaluate(CONTRAST)


def test_dimmed_cards_and_the_focus_outline_reach_3_to_1(browser, server):
    tab = Page(browser, server)
    tab.set_position(defending_two_cards())
    page = tab.page
    for name in ("QD", "6C"):  # a red and a black card that cannot beat 7♠: dimmed
        assert page.locator(f"#hand .card[data-card='{name}']").is_disabled()
        assert contrast(page, f"#hand .card[data-card='{name}']")["text"] >= 3
    page.keyboard.press("ArrowRight")
    assert contrast(page, "#hand .card.legal:focus")["outline"] >= 3
    tab.close()


def test_screen_readers_hear_card_counts_not_card_backs(browser, server):
    tab = Page(browser, server)
    page = tab.page
    assert page.get_attribute("#others .backs", "aria-hidden") == "true"
    assert page.inner_text("#others .count").endswith(" cards")
    tab.close()


def test_the_header_fits_a_320_pixel_phone_in_a_quarter_of_its_height(browser, server):
    tab = Page(browser, server, {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True})
    page = tab.page
    height = page.evaluate("document.querySelector('header').getBoundingClientRect().height")
    assert height <= 640 / 4, height
    page.click("#settings summary")  # the settings unfold on demand
    assert page.is_visible("#preset")
    tab.close()



def test_a_whole_game_on_a_phone_with_taps_drags_and_transfers(browser, server):
    """Issue 27's "done": a whole perevodnoy deal on a phone-sized touch screen, every move made by lifting and
    tapping, dragging to the table or the Transfer zone, or the Transfer control."""
    tab = Page(browser, server, PHONE)
    page = tab.page
    page.click("#settings summary")
    page.select_option("#preset", "perevodnoy")
    page.click("#deal")
    tab.idle()
    from durak_env import Game

    tab.set_position(Game(Rules.preset("perevodnoy"), seed=11, first_seat=0))  # the same deal every run
    rng = random.Random(11)
    used = set()
    for _ in range(400):
        if page.is_visible("#result"):
            break
        before = len(tab.table.moves)
        plays = page.locator("#hand .card.legal").evaluate_all("els => els.map(e => e.dataset.card)")
        transfers = page.locator("#hand button.transfer:enabled").evaluate_all("els => els.map(e => e.dataset.card)")
        ways = [("lift", c) for c in plays] + [("drag", c) for c in plays] + [("transfer", c) for c in transfers]
        ways += [("drop-transfer", c) for c in transfers] + [(b, None) for b in ("#take", "#done") if page.is_enabled(b)]
        how, name = rng.choice(ways)
        if how == "lift":
            card(page, name).tap()
            card(page, name).tap()
        elif how == "drag":
            where = "#table .pair.answer" if page.locator("#table .pair.answer").count() else "#table"
            touch_drag(tab, f"#hand .card[data-card='{name}']", where)  # a defence onto the card it beats
        elif how == "transfer":
            page.locator(f"#hand button.transfer[data-card='{name}']").tap()
        elif how == "drop-transfer":
            touch_drag(tab, f"#hand .card[data-card='{name}']", "#transfer-zone")
        else:
            page.locator(how).tap()
        tab.idle()
        assert len(tab.table.moves) > before, (how, name, page.inner_text("#status"), page.is_visible("#error") and page.inner_text("#error"), page.evaluate("[document.body.dataset.busy, !!state, state && state.your_turn, state && state.take]"))
        used.add(how)
    assert page.is_visible("#result") and tab.table.game.is_over
    assert {"lift", "drag"} <= used
    tab.close()
