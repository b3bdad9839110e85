"""The page wherever a player opens it (issue 46), in Chromium: with site data blocked, reloaded while the bots'
moves are still being shown, with the hand standing still under the finger and the mouse, reached in full from the
keyboard, at a phone's sizes, and checked by axe-core's accessibility rules at desktop and phone sizes.  The static
site's offline reload is in tests/test_site.py."""

from __future__ import annotations

import json

import pytest
from helpers import position
from test_web_controls import DESKTOP, PHONE, Page, card, defending_two_cards, may_transfer, played

from durak_env import Rules

class Tab(Page):
    """A tab on either back end: ``durak serve`` (the server's tables) or ``durak site`` (the engine in the tab)."""

    @property
    def in_page(self) -> bool:
        return not hasattr(self.app, "state")

    def server_log(self) -> list[str]:
        """The log as the back end holds it: every line told, those the page has not shown yet included."""
        game_id = self.page.evaluate("location.hash.split('game=')[1]")
        if self.in_page:
            return self.page.evaluate("id => window.durakBackend.call('GET', `/api/games/${id}`)"
                                      ".then((a) => a.data.log.map((line) => line[0]))", game_id)
        return [text for text, _ in self.app.state.tables.get(game_id).log]

    def shown_log(self) -> list[str]:
        """The log's lines as the page shows them, without their numbers."""
        return self.page.eval_on_selector_all("#log li", "els => els.map((e) => e.textContent.replace(/^\\d+\\. /, ''))")

    def move(self) -> None:
        first_move(self.page)


# ----- item 1: storage that throws -----------------------------------------------------------------------------

BLOCKED = """(() => {
  // As Chromium does with site data blocked, or in a frame of another site: reading the storage throws.
  for (const name of ["localStorage", "sessionStorage"]) {
    Object.defineProperty(window, name, {configurable: true, get() {
      throw new DOMException(`Failed to read the '${name}' property from 'Window': Access is denied for this document.`,
                             "SecurityError");
    }});
  }
})();"""


def test_with_site_data_blocked_the_page_deals_and_plays(browser, backend):
    tab = Tab(browser, backend, script=BLOCKED)
    page = tab.page
    # Six cards dealt, and more where the deal's first attack left the person only "take" (played for them).
    assert page.locator("#hand .card").count() >= 6 and page.is_visible("#table")
    for _ in range(4):
        if page.is_visible("#result"):
            break
        tab.move()
        tab.idle()
    assert len(tab.shown_log()) >= 4 and not page.is_visible("#error")
    page.reload()  # nothing kept in the browser: the server's game comes back, a page that runs the engine deals anew
    tab.idle()
    assert page.locator("#hand .card").count()
    if tab.in_page:
        assert "a new one is dealt" in page.inner_text("#error")
    else:
        assert not page.is_visible("#error")
    tab.close()


# ----- items 2 and 6: a reload while the bots' moves are shown, and the log's scroll ---------------------------

def test_a_reload_at_any_point_of_the_bots_answer_keeps_every_line_of_the_log(browser, backend):
    tab = Tab(browser, backend, pace=250)
    page = tab.page
    tab.deal("tournament", 4)
    reloads = 0
    for shown in range(6):  # reloaded after 0, 1, 2... of the answer's lines were shown
        if page.is_visible("#result"):
            break
        before = len(tab.shown_log())
        tab.move()
        page.wait_for_function(f"document.querySelectorAll('#log li').length >= {before + shown} "
                               "|| document.body.dataset.busy === '0'")
        page.reload()
        tab.idle()
        assert tab.shown_log() == tab.server_log()
        reloads += 1
    assert reloads >= 3
    tab.close()


def test_after_a_reload_the_log_shows_its_newest_line(browser, server):
    tab = Page(browser, server)
    tab.table.log[:0] = [("heuristic (player 2): attack 10♠", "move")] * 40  # a long deal
    tab.page.reload()
    tab.idle()
    assert tab.page.evaluate("(() => { const log = document.getElementById('log'); return log.scrollHeight > "
                             "log.clientHeight && log.scrollTop + log.clientHeight >= log.scrollHeight - 1; })()")
    tab.close()


# ----- items 3 and 4: the hand stays where it is -----------------------------------------------------------------

WATCH_HAND = """() => {
  // The hand's top, read at every change of the page and at every frame, until told to stop.
  window.tops = [];
  const hand = document.getElementById("hand");
  const read = () => window.tops.push(hand.getBoundingClientRect().top);
  window.watcher = new MutationObserver(read);
  window.watcher.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  (function frame() { read(); if (window.watcher) requestAnimationFrame(frame); })();
}"""


def leading():
    """Podkidnoy: seat 0 leads, holding 6♣; the bot beats it with 7♣ and the lead comes back to throw in or pass."""
    return position(Rules.preset("podkidnoy"), ["6C 9D 10S QD KS AS", "7C 8D JD 9C 10D JS"], "6H")


def test_with_hints_on_the_hand_does_not_move_across_a_whole_turn(browser, server):
    tab = Page(browser, server, pace=300)
    tab.set_position(leading())
    page = tab.page
    page.check("#hints")
    page.wait_for_function("document.getElementById('hint').textContent.includes('would play')")
    assert page.inner_text("#hint").startswith("The trained bot would play")  # not the bot's file name
    page.evaluate(WATCH_HAND)
    card(page, "6C").click()
    tab.idle()
    page.wait_for_function("document.getElementById('hint').textContent.includes('would play') "
                           "&& !document.getElementById('hint').classList.contains('waiting')")
    page.wait_for_timeout(200)
    tops = page.evaluate("window.watcher.disconnect(), window.watcher = null, window.tops")
    assert len(tops) > 10 and max(tops) - min(tops) <= 1, (min(tops), max(tops))
    assert len(tab.table.moves) >= 2  # the bot answered in the turn watched
    tab.close()


def test_on_a_phone_a_lift_moves_only_the_lifted_card_and_a_tap_on_its_lower_third_plays_it(browser, server):
    tab = Page(browser, server, PHONE)
    tab.set_position(defending_two_cards())
    page = tab.page
    slot = "(() => document.querySelector(\"#hand .card[data-card='9S']\").parentElement.getBoundingClientRect().top)()"
    card(page, "9S").scroll_into_view_if_needed()
    before = page.evaluate(slot), card(page, "9S").bounding_box()
    card(page, "9S").tap()
    page.wait_for_function("document.querySelector('#hand .card.lifted') !== null")
    page.wait_for_timeout(250)  # the lift's transition
    after = page.evaluate(slot), card(page, "9S").bounding_box()
    assert abs(after[0] - before[0]) <= 1, (before[0], after[0])  # the hand itself did not move
    assert 8 <= before[1]["y"] - after[1]["y"] <= 11  # the lift: 0.6 rem
    box = after[1]
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.85)
    played(tab, "defend 9S")
    tab.close()


def test_a_player_on_a_phone_finishes_a_perevodnoy_deal_by_taps_alone_without_a_miss(browser, server):
    """Issue 46's "done": every move by taps (lift and tap the lifted card anywhere on it, lift and tap the card it
    beats, a Transfer button, Pick up, Pass), and every tap plays its move."""
    import random

    from durak_env import Game

    tab = Page(browser, server, PHONE)
    page = tab.page
    page.click("#settings summary")
    page.select_option("#preset", "perevodnoy")
    page.click("#deal")
    tab.idle()
    tab.set_position(Game(Rules.preset("perevodnoy"), seed=12, first_seat=0))
    rng = random.Random(12)
    used = set()
    for _ in range(400):
        if page.is_visible("#result"):
            break
        before = len(tab.table.moves)
        plays = page.locator("#hand .card.legal").evaluate_all("els => els.map(e => e.dataset.card)")
        transfers = page.locator("#hand button.transfer:enabled").evaluate_all("els => els.map(e => e.dataset.card)")
        ways = [("lift", c) for c in plays] + [("transfer", c) for c in transfers]
        ways += [("onto", c) for c in plays if page.locator("#table .pair.answer").count()]
        ways += [(b, None) for b in ("#take", "#done") if page.is_enabled(b)]
        how, name = rng.choice(ways)
        if how in ("lift", "onto"):
            card(page, name).tap()
            page.wait_for_timeout(150)  # the lift's transition
            box = card(page, name).bounding_box() if how == "lift" else \
                page.locator("#table .pair.answer .attack").bounding_box()
            page.touchscreen.tap(box["x"] + box["width"] * rng.uniform(0.15, 0.85),
                                 box["y"] + box["height"] * rng.uniform(0.1, 0.95))
        elif how == "transfer":
            page.locator(f"#hand button.transfer[data-card='{name}']").tap()
        else:
            page.locator(how).tap()
        tab.idle()
        assert len(tab.table.moves) > before, (how, name, page.inner_text("#status"))  # no tap missed
        used.add(how)
    assert page.is_visible("#result") and tab.table.game.is_over
    assert {"lift", "onto", "#take"} <= used
    tab.close()


# ----- item 7: the keyboard reaches every move ---------------------------------------------------------------

def test_the_arrow_keys_reach_a_transfer_and_enter_plays_it(browser, server):
    tab = Page(browser, server)
    tab.set_position(may_transfer())
    page = tab.page
    seen = []
    for _ in range(8):
        page.keyboard.press("ArrowRight")
        seen.append(page.evaluate("document.activeElement.className + ' ' + document.activeElement.dataset.card"))
        if seen[-1] == "transfer 7C":
            break
    assert seen[-1] == "transfer 7C", seen
    page.keyboard.press("Enter")
    played(tab, "transfer 7C")
    tab.close()


def test_dimmed_cards_can_be_stepped_through_and_say_why_they_do_not_play(browser, server):
    tab = Page(browser, server)
    tab.set_position(defending_two_cards())
    page = tab.page
    dimmed = card(page, "QD")
    assert dimmed.get_attribute("aria-disabled") == "true" and dimmed.get_attribute("disabled") is None
    dimmed.focus()
    assert page.evaluate("document.activeElement.dataset.card") == "QD"
    page.keyboard.press("Enter")
    assert "Q♦ cannot be played now" in page.inner_text("#status")
    assert tab.table.moves == []
    tab.close()


def test_focus_stays_in_the_hand_after_a_mouse_click_on_pick_up_and_letters_work_after_a_checkbox(browser, server):
    tab = Page(browser, server)
    tab.set_position(defending_two_cards())
    page = tab.page
    page.click("#take")
    played(tab, "take")
    assert page.evaluate("['hand', 'buttons'].some((id) => document.getElementById(id).contains(document.activeElement))")
    tab.set_position(defending_two_cards())
    page.click("#hints")  # a checkbox has the focus: T still picks up
    page.keyboard.press("T")
    played(tab, "take")
    tab.close()


def first_move(page) -> None:
    """The first move the page offers: a highlighted card, else Pick up or Pass."""
    cards = page.locator("#hand .card.legal")
    if cards.count():
        cards.first.click()
    else:
        page.click("#take" if page.is_enabled("#take") else "#done")


def finish(tab) -> None:
    """Play the deal to its end with the first move the page offers each time."""
    for _ in range(600):
        if tab.page.is_visible("#result"):
            return
        first_move(tab.page)
        tab.idle()
    pytest.fail("the deal did not end in 600 moves")


# ----- item 8: a finger's sizes, and the page's words --------------------------------------------------------

def test_every_control_of_the_settings_is_a_fingers_size_on_a_phone(browser, server):
    tab = Page(browser, server, PHONE)
    page = tab.page
    page.click("#settings summary")
    for selector in ("#preset", "#players", "select.opponent", "#deal", "label:has(#match)", "label:has(#hints)",
                     "#settings summary"):
        height = page.locator(selector).first.bounding_box()["height"]
        assert height >= 44, (selector, height)
    assert page.locator("#match").bounding_box()["height"] >= 24
    tab.close()


def test_best_shows_only_where_it_applies_and_a_replayed_deal_does_not_set_it(browser, server):
    tab = Page(browser, server)
    page = tab.page
    assert page.is_visible("#best")  # podkidnoy, two players: seed 004's Best
    tab.deal("tournament", 4)
    assert not page.is_visible("#best")  # no Best names one opponent at four seats
    tab.deal("podkidnoy", 2)
    finish(tab)
    figure = page.evaluate("localStorage.getItem('orchidlines-best-durak')")
    assert figure is not None
    page.evaluate("localStorage.setItem('orchidlines-best-durak', '99')")
    page.click("#replay-deal")  # the same cards, seen already: whatever the figure, it is not a Best
    tab.idle()
    finish(tab)
    assert page.evaluate("localStorage.getItem('orchidlines-best-durak')") == "99"
    assert page.inner_text("#best") == "Best: 99"
    tab.close()


# ----- item 9: axe-core ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, from the npm registry at the version tests/npm/package-lock.json pins."""
    from pathlib import Path

    from frontends.web.site import npm_packages

    return (npm_packages(Path(__file__).with_name("npm"), ("axe-core/axe.min.js",)) / "axe-core" / "axe.min.js").read_text()


def violations(page, axe: str) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe)
    found = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations"
                          ".filter((v) => ['serious', 'critical'].includes(v.impact))"
                          ".map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`))")
    return found


@pytest.mark.parametrize("context", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_axe_finds_nothing_serious_on_the_table_the_result_the_settings_and_the_replay_viewer(
        browser, server, axe, context, tmp_path):
    tab = Page(browser, server, context)
    page = tab.page
    tab.set_position(defending_two_cards())
    assert violations(page, axe) == [], "the table"
    if not page.evaluate("document.getElementById('settings').open"):
        page.click("#settings summary")
    page.check("#hints")
    page.wait_for_function("document.getElementById('hint').textContent.includes('would play')")
    assert violations(page, axe) == [], "the settings and a hint"
    tab.deal("tournament", 4)
    finish(tab)
    assert violations(page, axe) == [], "the result"
    record = json.dumps(tab.table.record())
    path = tmp_path / "deal.json"
    path.write_text(record)
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#viewer:not([hidden])")
    page.click("#next")
    assert violations(page, axe) == [], "the replay viewer"
    tab.close()
