// The page asks the server what is legal and sends back an action index: no rule of Durak is written here.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// Seed 004: "The opponent's pauses are fixed lengths between four tenths and seven tenths of a second".
const PACE = params.has("pace") ? Number(params.get("pace")) : null;
const DRAG_START = 8;               // pixels a pressed card moves before it is being dragged

let options = null;   // /api/options
let gameId = null;
let state = null;     // the last state the server sent (the person's view)
let busy = false;     // a request or the bots' moves are being shown
let focusIndex = 0;   // which playable card the arrow keys are on
let lastNewGame = null;
let lifted = null;    // the card lifted by a tap, waiting for a second tap or a target
let pointerType = "mouse";  // of the last press: a mouse click plays, a tap lifts (seed 001)
let drag = null;      // a card being dragged: {card, x, y, ghost, moved}
let handFocus = false;  // the person plays from the keyboard: focus comes back to the hand after a move

// Storage the browser may refuse: with site data blocked, or in a page inside another site's frame, merely
// reading localStorage throws.  The page then plays on without what it would have kept (the Best figure, and in a
// page that runs the engine itself, the journal that lets a reload resume the deal).
const stored = {
  get(area, key) {
    try { return window[area].getItem(key); } catch (err) { return null; }
  },
  set(area, key, value) {
    try { window[area].setItem(key, value); return true; } catch (err) { return false; }
  },
};

// The page talks to one of two back ends through the same calls: durak serve over HTTP (below), or the engine
// running in this page (site.js, present in a page built by `durak site`).  Either answers {status, data}.
const backend = window.durakBackend || {inPage: false, call: overHttp};

async function api(method, path, body) {
  if (backend.inPage && method === "POST" && path === "/api/games") body = withSeed(body);
  const {status, data} = await backend.call(method, path, body);
  if (status >= 400) {
    // A refusal's words and its stable code (the engine's Refusal for a move, else the request's kind): the page
    // shows the words and branches on the code, never on the HTTP status alone.
    const err = new Error(data.error || `the server answered ${status}`);
    err.status = status;
    err.code = data.code || "refused";
    throw err;
  }
  if (backend.inPage) journal(method, path, body, data);
  return data;
}

// ----- a game played inside the page (durak site) survives a reload ----------------------------------------
// The engine lives in this tab, so a reload starts it afresh: the page keeps a journal of the calls that made the
// game (sessionStorage), the deal's seed included, and plays them again.  Every bot plays the same moves from the
// same seed.  The seed is in the tab anyway: a page that runs the engine can be inspected (it says so).
const JOURNAL_KEY = "durak_env.journal";

function random64() {
  return crypto.getRandomValues(new BigUint64Array(1))[0].toString();
}

// The seed, and the source of the deal numbers shown (random, and unrelated to the seed): both drawn here, so that
// the journal replays the same deals under the same numbers.  ``seed_drawn`` says the page drew the seed itself
// (the Best figure counts only such deals, not a replayed one whose cards were seen).
function withSeed(body) {
  const given = typeof body === "string" ? JSON.parse(body) : {...(body || {})};
  if (given.seed === undefined) Object.assign(given, {seed: random64(), seed_drawn: true});
  if (given.deal_names === undefined) given.deal_names = random64();
  return given;
}

function journal(method, path, body, data) {
  if (method === "POST" && path === "/api/games") {
    stored.set("sessionStorage", JOURNAL_KEY, JSON.stringify({id: data.id, calls: [[path, body]]}));
    return;
  }
  const kept = JSON.parse(stored.get("sessionStorage", JOURNAL_KEY) || "null");
  if (method === "POST" && kept && path.startsWith(`/api/games/${kept.id}/`)) {
    kept.calls.push([path, body === undefined ? {} : body]);
    stored.set("sessionStorage", JOURNAL_KEY, JSON.stringify(kept));
  }
}

// The id the game of ``id`` has once its calls are played again in this tab's fresh engine; null without a journal.
async function replayJournal(id) {
  const kept = JSON.parse(stored.get("sessionStorage", JOURNAL_KEY) || "null");
  if (!kept || kept.id !== id) return null;
  let now = null;
  for (const [path, body] of kept.calls) {
    const answer = await backend.call("POST", now ? path.replace(`/api/games/${id}/`, `/api/games/${now}/`) : path,
                                      body);
    if (answer.status >= 400) return null;
    if (!now) now = answer.data.id;
  }
  kept.id = now;
  kept.calls = kept.calls.map(([path, body]) => [path.replace(`/api/games/${id}/`, `/api/games/${now}/`), body]);
  stored.set("sessionStorage", JOURNAL_KEY, JSON.stringify(kept));
  history.replaceState(null, "", `${location.pathname}${location.search}#game=${now}`);
  return now;
}

// Every write carries a JSON body (the server refuses any other: a page of another site cannot send one without
// asking first).  A string is sent as it is: a game record's text, whose 64-bit seed JSON.parse would round.
async function overHttp(method, path, body) {
  const write = method !== "GET";
  const response = await fetch(path, {
    method, headers: write ? {"Content-Type": "application/json"} : {},
    body: !write ? undefined : typeof body === "string" ? body : JSON.stringify(body === undefined ? {} : body),
  });
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  return {status: response.status, data};
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 5000);
}

function setBusy(flag) {
  busy = flag;
  document.body.dataset.busy = flag ? "1" : "0";  // for people who automate the page (and its tests)
  // A new game cannot start while the bots' moves are being shown: the buttons say so by being disabled.
  for (const id of ["deal", "again", "replay-deal", "next-deal"]) $(id).disabled = flag;
}

function pause() {
  const ms = PACE !== null ? PACE : 400 + Math.random() * 300;
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ----- setting up a game -------------------------------------------------------------------

async function init() {
  setBusy(true);
  document.body.dataset.drops = "0";  // drops handled so far (a drop is played once the pointer's events are over)
  options = await api("GET", "/api/options");
  const preset = $("preset");
  for (const p of options.presets) {
    const option = new Option(p.name, p.name);
    option.title = p.about;
    preset.add(option);
  }
  preset.value = options.preset;
  preset.addEventListener("change", fillSeats);
  $("players").addEventListener("change", fillOpponents);
  fillSeats();
  $("players").value = String(options.players);
  fillOpponents();
  $("settings").open = window.innerWidth > 700;  // on a phone the settings fold away under their summary
  $("setup").addEventListener("submit", (e) => { e.preventDefault(); newGame(setupBody()); });
  $("take").addEventListener("click", (e) => state && state.take !== null && play(state.take, e.detail === 0));
  $("done").addEventListener("click", (e) => state && state.done !== null && play(state.done, e.detail === 0));
  $("transfer-zone").addEventListener("click", () => {
    const card = lifted && state.hand.find((c) => c.card === lifted);
    const transfer = card && actionOf(card, "transfer");
    if (transfer) play(transfer.action);
    else say("Lift a card of the attacking rank, then tap here to transfer the attack — or drag it here.");
  });
  $("again").addEventListener("click", () => newGame(setupBody()));
  $("replay-deal").addEventListener("click", () => state && newGame({...lastNewGame, seed: state.seed, match: false}));
  $("next-deal").addEventListener("click", nextDeal);
  $("hints").addEventListener("change", showHint);
  $("record-file").addEventListener("change", openRecord);
  $("prev").addEventListener("click", () => stepViewer(-1));
  $("next").addEventListener("click", () => stepViewer(1));
  $("close-viewer").addEventListener("click", () => { $("viewer").hidden = true; });
  document.addEventListener("keydown", onKey);
  document.addEventListener("pointerdown", (e) => { pointerType = e.pointerType || "mouse"; }, true);
  listenForTaps();
  document.addEventListener("pointermove", onDragMove);
  document.addEventListener("pointerup", onDragEnd);
  document.addEventListener("pointercancel", cancelDrag);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) catchUp(); });
  const saved = location.hash.match(/game=([0-9a-f]+)/);
  if (saved) {
    try {
      const id = backend.inPage ? await replayJournal(saved[1]) : saved[1];
      if (!id) throw new Error("that game was played in this page before it was closed: a new one is dealt");
      const data = await api("GET", `/api/games/${id}`);
      gameId = data.id;
      showSetup(data.state);
      setBusy(false);
      render(data.state);
      showLog(data.log);  // every line the server told, those still animating when the page was left included
      return;
    } catch (err) {
      showError(err.message);
    }
  }
  setBusy(false);
  await newGame(setupBody());
}

function presetInfo() {
  return options.presets.find((p) => p.name === $("preset").value);
}

function fillSeats() {
  const players = $("players");
  const keep = players.value;
  players.innerHTML = "";
  for (const n of presetInfo().seats) players.add(new Option(`${n} players`, String(n)));
  if ([...players.options].some((o) => o.value === keep)) players.value = keep;
  fillOpponents();
}

function fillOpponents() {
  const n = Number($("players").value);
  const box = $("opponents");
  box.innerHTML = "";
  const choices = [...options.bots];
  if (presetInfo().trained.includes(n)) choices.unshift(...options.trained_bots);  // the shipped policy, and more
  for (let seat = 1; seat < n; seat++) {
    const label = document.createElement("label");
    label.textContent = `Player ${seat + 1} `;
    const select = document.createElement("select");
    select.className = "opponent";
    for (const c of choices) select.add(new Option(c.label, c.name));
    const wanted = options.opponents[Math.min(seat - 1, options.opponents.length - 1)];
    if (choices.some((c) => c.name === wanted)) select.value = wanted;
    label.appendChild(select);
    box.appendChild(label);
  }
}

function showSetup(s) {
  // After a reload the controls say what the game in play was started with.
  if (!options.presets.some((p) => p.name === s.preset)) return;
  $("preset").value = s.preset;
  fillSeats();
  $("players").value = String(s.players);
  fillOpponents();
  document.querySelectorAll("select.opponent").forEach((select, i) => {
    if ([...select.options].some((o) => o.value === s.opponents[i])) select.value = s.opponents[i];
  });
  $("match").checked = s.in_match;
  lastNewGame = setupBody();
}

function setupBody() {
  return {
    preset: $("preset").value, players: Number($("players").value), seat: 0, match: $("match").checked,
    opponents: [...document.querySelectorAll("select.opponent")].map((s) => s.value),
  };
}

async function newGame(body) {
  if (busy) return;
  setBusy(true);
  try {
    const data = await api("POST", "/api/games", body);
    lastNewGame = body;
    gameId = data.id;
    history.replaceState(null, "", `${location.pathname}${location.search}#game=${gameId}`);
    clearLog();
    lifted = null;
    $("viewer").hidden = true;
    await showEvents(data.events, data.state);
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
    render(state);
  }
}

async function nextDeal() {
  if (busy) return;
  setBusy(true);
  try {
    const data = await api("POST", `/api/games/${gameId}/next`);
    clearLog();
    await showEvents(data.events, data.state);
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
    render(state);
  }
}

// ----- playing ------------------------------------------------------------------------------

const STAYS = new Set(["not_an_action", "bad_request", "forbidden", "not_found", "method_not_allowed", "too_large",
                       "not_json", "invalid", "too_many_games"]);
// The refusal codes of a request the page got wrong (frontends/web/table.py: REQUEST_CODES but "conflict", and the
// engine's not_an_action), not of a position it may have missed (see play).

async function play(action, fromKeyboard = false) {
  if (busy || !state || !state.your_turn) return;
  // Focus comes back to the hand after a move made from it or from the buttons, by keyboard or mouse (the button
  // clicked is disabled while the bots move, and focus would fall to the page).
  handFocus = fromKeyboard || ["hand", "buttons"].some((id) => $(id).contains(document.activeElement));
  lifted = null;
  setBusy(true);
  render(state);  // dims the cards while the move is on its way
  try {
    const data = await api("POST", `/api/games/${gameId}/moves`, {action});
    await showEvents(data.events, data.state);  // the first event is your move
  } catch (err) {
    // Refused by the position (not your turn, the deal over, a rule): the page may be behind it, e.g. the game
    // moved on in another tab.  A move that is no move at all, or a network failure, leaves the position be.
    const behind = err.code && !STAYS.has(err.code) && await catchUp(false);
    showError(behind ? `${err.message}. ${MOVED_ON}` : err.message);
  } finally {
    setBusy(false);
    render(state);
  }
}

const MOVED_ON = "This game moved on in another tab or window: the table and the log now show where it stands.";

// Bring the table and the log up to what the server holds (the game may have moved on without this tab: another
// tab played it).  True where this tab was behind; it then says so unless told not to (the caller says it).
async function catchUp(tell = true) {
  if (!gameId || !state || (busy && tell)) return false;
  let data;
  try {
    data = await api("GET", `/api/games/${gameId}`);
  } catch (err) {
    return false;  // gone from the server, or the network: the next move will say
  }
  const shown = [...$("log").children].map((li) => li.dataset.text);
  const behind = JSON.stringify(shown) !== JSON.stringify(data.log.map(([text]) => text));
  if (!behind) return false;
  render(data.state);
  showLog(data.log);
  if (tell) showError(MOVED_ON);
  return true;
}

function actionOf(card, kind) {
  return card.actions.find((a) => a.kind === kind);
}

// The move a card makes when it is clicked, tapped twice or dropped on the table: defend or attack (throw in).
// A transfer is never made this way: it has its own control (seed 001's Transfer is a choice of its own).
function primaryAction(card) {
  return card.actions.find((a) => a.kind !== "transfer");
}

function say(text) {
  $("status").textContent = text;
}

// A card of the hand was clicked, tapped or chosen with Enter.
function onCard(card, event) {
  if (busy || !state || !state.your_turn) return;
  const primary = primaryAction(card);
  if (!primary && !actionOf(card, "transfer")) {
    say(`${card.label} cannot be played now.`);
    return;
  }
  const keyboard = event.detail === 0;
  if (keyboard || pointerType === "mouse") {
    if (primary) play(primary.action, keyboard);
    else if (actionOf(card, "transfer")) say(`${card.label} cannot beat the attack: press Transfer under it to pass the attack on.`);
    return;
  }
  // A tap lifts the card; a second tap on it plays it (seed 001).
  if (lifted === card.card && primary) {
    play(primary.action);
    return;
  }
  lifted = card.card;
  render(state);
  const where = state.answer !== null ? "tap it again, or tap the card it should beat" : "tap it again to play it";
  say(primary ? `${card.label} lifted: ${where}.` : `${card.label} lifted: tap Transfer to pass the attack on.`);
}

// A card on the table was tapped (or a dragged card dropped on it) with ``card`` of the hand.
function onTarget(pairIndex, card) {
  if (!card || busy || !state.your_turn) return;
  const defend = actionOf(card, "defend");
  if (state.answer === null || !defend) {
    say(`${card.label} cannot beat a card on the table.`);
    return;
  }
  if (pairIndex !== state.answer) {
    const first = state.table[state.answer].attack.label;
    say(`Beat ${first} first: under these rules a defence answers the earliest unbeaten card, so only ${first} can be beaten now.`);
    return;
  }
  play(defend.action);
}

// ----- taps: a touch that lifts where it went down clicks what it touched, at once ------------------
// A browser makes a click of a tap late, or, after a drag on a card (touch-action: none), not at all: Chromium drops
// the first tap's click there.  So the page clicks a tapped button itself, and drops the browser's own click of the
// same tap if it comes.

function listenForTaps() {
  let tap = null;      // a touch that may be a tap: {el, x, y}
  let clicked = null;  // where and when the page clicked for a tap
  document.addEventListener("pointerdown", (e) => {
    tap = e.pointerType === "mouse" ? null : {el: e.target.closest("button, summary"), x: e.clientX, y: e.clientY};
  }, true);
  document.addEventListener("pointerup", (e) => {
    const down = tap;
    tap = null;
    if (!down || !down.el || e.pointerType === "mouse" || down.el.disabled) return;
    if (Math.hypot(e.clientX - down.x, e.clientY - down.y) >= DRAG_START) return;  // a drag, not a tap
    if (e.target.closest("button, summary") !== down.el) return;
    clicked = {x: e.clientX, y: e.clientY, at: performance.now()};
    down.el.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, detail: 1}));
  }, true);
  document.addEventListener("click", (e) => {  // the browser's own click of that tap (on whatever is there now)
    if (e.isTrusted && clicked && performance.now() - clicked.at < 1000
        && Math.hypot(e.clientX - clicked.x, e.clientY - clicked.y) < DRAG_START) {
      e.stopPropagation();
      e.preventDefault();
      clicked = null;
    }
  }, true);
}

// ----- dragging a card (mouse and touch, through pointer events) ------------------------------

function onCardDown(card, event) {
  if (busy || !state || !state.your_turn || event.button !== 0) return;
  drag = {card, x: event.clientX, y: event.clientY, ghost: null, moved: false};
}

function onDragMove(event) {
  if (!drag) return;
  if (!drag.moved) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_START) return;
    drag.moved = true;
    drag.ghost = cardElement(drag.card, "div");
    drag.ghost.classList.add("ghost");
    drag.ghost.setAttribute("aria-hidden", "true");
    document.body.appendChild(drag.ghost);
    document.body.classList.add("dragging");
  }
  drag.ghost.style.left = `${event.clientX}px`;
  drag.ghost.style.top = `${event.clientY}px`;
}

function onDragEnd(event) {
  if (!drag) return;
  const {card, moved} = drag;
  cancelDrag();
  if (!moved) return;
  onDragEnd.suppressClick = true;  // the click that follows a drop is not a tap
  const target = document.elementFromPoint(event.clientX, event.clientY);
  // The drop is played once the touch has ended: redrawing the hand now would take the touched card away
  // before the browser has finished with it.
  setTimeout(() => {
    onDragEnd.suppressClick = false;
    drop(card, target);
    document.body.dataset.drops = String(Number(document.body.dataset.drops) + 1);  // for automation
  }, 0);
}

function drop(card, target) {
  if (!target) return;
  const pair = target.closest("[data-pair]");
  if (target.closest("#transfer-zone")) {
    const transfer = actionOf(card, "transfer");
    if (transfer) play(transfer.action);
    else say(`${card.label} cannot transfer the attack.`);
  } else if (pair && state.answer !== null) {
    onTarget(Number(pair.dataset.pair), card);
  } else if (target.closest("#table")) {
    const primary = primaryAction(card);
    if (primary) play(primary.action);
    else say(`${card.label} cannot beat the attack: drop it on Transfer to pass the attack on.`);
  }
}

function cancelDrag() {
  if (drag && drag.ghost) drag.ghost.remove();
  document.body.classList.remove("dragging");
  drag = null;
}

// The bots' moves, one at a time with seed 004's short pause, then the position the person faces.
async function showEvents(events, finalState) {
  for (const event of events) {
    if (event.kind === "move") await pause();
    if (event.clears_log) clearLog();  // seed 003's hidden discard: the server's log forgot the bout's moves
    appendLog(event.text, event.kind);
    if (event.state) render(event.state);
  }
  render(finalState);
}

// ----- the move log: the server's (each event's line as it is shown; the whole log after a reload) ----------

function clearLog() {
  $("log").innerHTML = "";
}

// The whole log as the server holds it (a reload, or a tab that fell behind), scrolled to the newest line.
function showLog(lines) {
  clearLog();
  for (const [text, kind] of lines) appendLog(text, kind);
}

function appendLog(text, kind) {
  const item = document.createElement("li");
  const number = document.createElement("span");
  number.className = "n";
  number.textContent = `${$("log").children.length + 1}.`;
  item.append(number, document.createTextNode(` ${text}`));
  item.dataset.text = text;
  if (kind) item.className = kind;
  $("log").appendChild(item);
  $("log").scrollTop = $("log").scrollHeight;
}

// ----- drawing the table --------------------------------------------------------------------

function cardElement(card, tag = "span") {
  const el = document.createElement(tag);
  el.className = `card ${card.suit}${card.trump ? " trump" : ""}`;
  const label = document.createElement("span");
  label.className = "label";
  label.textContent = card.label;
  el.appendChild(label);
  el.dataset.card = card.card;
  return el;
}

// An attack card and the card that beat it, offset so that both ranks and suits stay readable; each is named
// for screen readers with its part in the bout.
function pairElement(pair, index, answer) {
  const box = document.createElement("div");
  box.className = `pair${index === answer ? " answer" : ""}`;
  box.dataset.pair = String(index);
  const attack = cardElement(pair.attack, answer === null ? "span" : "button");
  attack.classList.add("attack");
  attack.setAttribute("aria-label", `${pair.attack.label}, attack, ` +
    (pair.defence ? `beaten by ${pair.defence.label}` : index === answer ? "not beaten: the card to beat" : "not beaten"));
  if (answer !== null) {
    attack.type = "button";
    attack.tabIndex = -1;  // the keyboard plays from the hand; the table card is a target for taps and drops
    attack.addEventListener("click", () => {
      const card = lifted && state.hand.find((c) => c.card === lifted);
      if (card) onTarget(index, card);
      else if (index !== answer) say(`Beat ${state.table[answer].attack.label} first: a defence answers the earliest unbeaten card.`);
    });
  }
  if (!attack.getAttribute("role") && attack.tagName === "SPAN") attack.setAttribute("role", "img");
  box.appendChild(attack);
  if (pair.defence) {
    const d = cardElement(pair.defence);
    d.classList.add("defence");
    d.setAttribute("role", "img");
    d.setAttribute("aria-label", `${pair.defence.label}, defence, beats ${pair.attack.label}`);
    box.appendChild(d);
  }
  return box;
}

function render(s) {
  if (!s) return;
  if (s !== state) lifted = null;
  state = s;
  $("game").hidden = false;
  const trump = s.trump.drawn ? `${s.trump.symbol} (the turned card ${s.trump.card.label} is drawn)`
                              : `${s.trump.symbol}, turned card ${s.trump.card.label}`;
  const discard = s.discard.cards ? `${s.discard.count}${s.discard.count ? ": " + s.discard.cards.map((c) => c.label).join(" ") : ""}`
                                  : `${s.discard.count} (only the count is shown)`;
  const deal = s.over ? `seed ${s.seed}` : `deal #${s.deal}`;
  const match = s.match ? ` · match: deal ${Math.min(s.match.played + (s.over ? 0 : 1), s.match.deals)} of ${s.match.deals}, points ${s.match.totals.join(" / ")}` : "";
  showBest(s.best);
  $("info").textContent = `${s.preset} · trump ${trump} · stock ${s.stock} · discard ${discard} · bout ${s.bout} · ${deal}${match}`;

  const others = $("others");
  others.innerHTML = "";
  for (const seat of s.seats) {
    if (seat.seat === s.you) continue;
    const box = document.createElement("div");
    box.className = `seat${seat.to_act ? " acting" : ""}${seat.out ? " out" : ""}`;
    box.dataset.seat = seat.seat;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = seat.name;
    const backs = document.createElement("div");
    backs.className = "backs";
    backs.textContent = "🂠".repeat(seat.cards);
    backs.setAttribute("aria-hidden", "true");  // the count below says it: "6 cards", not six card backs
    const count = document.createElement("div");
    count.className = "count";
    count.textContent = `${seat.cards} card${seat.cards === 1 ? "" : "s"}`;
    const role = document.createElement("div");
    role.className = "role";
    role.textContent = [seat.role, seat.to_act ? "to move" : "", seat.place ? `place ${seat.place}` : ""].filter(Boolean).join(" · ");
    box.append(name, backs, count, role);
    if (seat.picked_up.length || seat.drew_trump_card) {
      const picked = document.createElement("div");
      picked.className = "picked";
      const parts = [];
      if (seat.picked_up.length) parts.push("seen picking up " + seat.picked_up.map((c) => c.label).join(" "));
      if (seat.drew_trump_card) parts.push(`drew the turned card ${s.trump.card.label}`);
      picked.textContent = parts.join("; ");
      box.appendChild(picked);
    }
    others.appendChild(box);
  }

  const answer = s.your_turn && !busy ? s.answer : null;
  const table = $("table");
  table.innerHTML = "";
  s.table.forEach((pair, i) => table.appendChild(pairElement(pair, i, answer)));

  const zone = $("transfer-zone");
  zone.hidden = !(s.transfer_to && s.your_turn && !busy);
  zone.textContent = s.transfer_to ? `Transfer to ${s.transfer_to}` : "Transfer";

  const hand = $("hand");
  hand.innerHTML = "";
  const mine = s.seats[s.you];
  hand.setAttribute("aria-label", `Your cards (${mine.role || "waiting"})`);
  for (const card of s.hand) {
    const slot = document.createElement("span");
    slot.className = "cardslot";
    const button = cardElement(card, "button");
    button.type = "button";
    const primary = primaryAction(card);
    const transfer = actionOf(card, "transfer");
    const open = s.your_turn && !busy;
    // Seed 004: "Cards you can legally play are highlighted ... Cards that cannot beat it are dimmed."  Dimmed, not
    // disabled: a screen reader still steps through the whole hand (a card that can only transfer is lifted or
    // dragged, and its Transfer button plays it).
    button.setAttribute("aria-disabled", String(!(open && (primary || transfer))));
    if (open && primary) {
      button.classList.add("legal");
      button.setAttribute("aria-label", `${card.label}, ${primary.kind}`);
      button.title = `${primary.kind} ${card.label}`;
    } else {
      button.setAttribute("aria-label", card.label);
    }
    if (lifted === card.card) {
      button.classList.add("lifted");
      button.setAttribute("aria-pressed", "true");
    }
    button.addEventListener("click", (e) => { if (!onDragEnd.suppressClick) onCard(card, e); });
    button.addEventListener("pointerdown", (e) => onCardDown(card, e));
    slot.appendChild(button);
    if (transfer) {  // a control of its own, named with its card, at a touch size (44 px at least)
      const other = document.createElement("button");
      other.type = "button";
      other.className = "transfer";
      other.textContent = "Transfer";
      other.dataset.card = card.card;
      other.setAttribute("aria-label", `Transfer the attack with ${card.label} to ${s.transfer_to}`);
      other.disabled = !open;
      other.addEventListener("click", () => play(transfer.action));
      other.addEventListener("pointerdown", (e) => onCardDown(card, e));
      if (!primary && open) button.classList.add("can-transfer");
      slot.appendChild(other);
    }
    hand.appendChild(slot);
  }
  $("take").disabled = busy || s.take === null;
  $("done").disabled = busy || s.done === null;
  if (!lifted) say(busy && !s.over ? "…" : s.status);

  const result = $("result");
  result.hidden = !s.over;
  if (s.over) showResult(s);
  if (!busy && handFocus) refocusHand();
  showHint();
}

// After a move made from the keyboard, focus goes back to the hand (a card that can be played, or the hand).
function refocusHand() {
  handFocus = false;
  const cards = moveControls();
  if (cards.length) {
    focusIndex = Math.min(focusIndex, cards.length - 1);
    cards[focusIndex].focus();
  } else if (state && state.over) {
    $(state.match && !state.match.over ? "next-deal" : "again").focus();  // the next thing to do
  } else {
    $("hand").focus();
  }
}

function showResult(s) {
  // The sentence only: the placings are in the table under it.
  const fool = s.result.fool;
  $("result-text").textContent = (fool === s.you ? "You are the durak, the fool."
    : fool === null ? "A draw: nobody is the fool." : `${capitalized(s.seats[fool].name)} is the fool.`)
    + (s.result.capped ? " The bout cap ended the deal." : "");
  // Seed 003's placing points only where they count: in its deals and in matches.  First place first.
  const rows = [...s.seats].sort((a, b) => a.place - b.place).map((seat) => `<tr><td>${escapeHtml(seat.name)}</td><td>place ${seat.place}</td>` +
    (s.points_shown ? `<td>${seat.points} point${seat.points === 1 ? "" : "s"}</td>` : "") + "</tr>");
  $("placings").innerHTML = `<tr><th>player</th><th>place</th>${s.points_shown ? "<th>placing points</th>" : ""}</tr>${rows.join("")}`;
  $("seed").textContent = `The deal's seed was ${s.seed}.`;
  setDownload(gameId).catch((err) => showError(err.message));
  const matchLeft = s.match && !s.match.over;
  $("next-deal").hidden = !matchLeft;
  $("match-result").hidden = !(s.match && s.match.over);
  if (s.match && s.match.over) $("match-result").textContent = s.match.text;
  recordBest(s);
}

// Over HTTP the record is a file the server sends; in a page that runs the engine itself, a file made here.
async function setDownload(id) {
  const link = $("download");
  if (!backend.inPage) {
    link.href = `/api/games/${id}/record`;
    return;
  }
  link.removeAttribute("href");
  const data = await api("GET", `/api/games/${id}/record`);
  if (id !== gameId) return;
  if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
  link.dataset.url = URL.createObjectURL(new Blob([JSON.stringify(data.record, null, 1)], {type: "application/json"}));
  link.href = link.dataset.url;
  link.download = data.file;
}

function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// ----- seed 004's Best figure ---------------------------------------------------------------
// "The Best figure is a card count, and a smaller count is treated as better. Win, and it stores the cards
// still in the opponent's hand. Lose, and it stores the cards still in yours. The rare draw, where both hands
// empty on the same round, stores zero, and nothing can beat zero. ... The number is only written when a game
// truly ends, and it lives in your own browser's storage".  Under seed 004's own key for the game it describes
// (two players, its rules); other two-player rule sets keep a figure of their own, under a key the page names.
// Larger tables have no Best (the figure names one opponent), and a deal dealt again from its seed, whose cards
// the player has seen, does not count (``best.counts``: the server says which deals do).

function recordBest(s) {
  if (!s.best || !s.best.counts) return;
  const sizes = s.result.hand_sizes;
  const figure = s.result.fool === null ? 0 : sizes[s.result.fool];
  const best = stored.get("localStorage", s.best.key);
  if (best === null || figure < Number(best)) stored.set("localStorage", s.best.key, String(figure));
  showBest(s.best);
}

function showBest(where) {
  const box = $("best");
  box.hidden = !where;
  if (!where) return;
  const best = stored.get("localStorage", where.key);
  box.textContent = `${where.label}: ${best === null ? "–" : best}`;
  box.dataset.key = where.key;
}

// ----- hints ----------------------------------------------------------------------------------

// The hint box keeps its place while Hints are on (its last hint, greyed, while the others move), so that the
// hand under it never moves.
async function showHint() {
  const box = $("hint");
  box.hidden = !$("hints").checked;
  if (box.hidden) return;
  if (!state || !state.your_turn || busy) {
    box.classList.add("waiting");
    if (!box.textContent) box.textContent = "Hints come on your turn.";
    return;
  }
  box.classList.remove("waiting");
  if (showHint.asked === state) return;  // asked already for this position
  const asked = showHint.asked = state;
  try {
    const hint = await api("GET", `/api/games/${gameId}/hint`);
    if (asked !== state) return;  // the game moved on while the bot thought
    const moves = hint.moves.slice(0, 5).map((m) => `${m.text} ${(100 * m.p).toFixed(0)}%`).join(", ");
    const value = hint.value === null ? "" : ` · its estimate of your outcome: ${hint.value.toFixed(2)} (−1 the fool, +1 first out)`;
    box.textContent = `${hint.bot} would play: ${moves}${value}`;
  } catch (err) {
    box.textContent = err.message;
  }
}

// ----- keyboard: seed 001's arrows, Enter, T and D ------------------------------------------

// The controls the arrow keys move between: every card that plays a move and every Transfer button, in the hand's
// order.
function moveControls() {
  return [...document.querySelectorAll("#hand .card.legal, #hand button.transfer:enabled")];
}

function onKey(event) {
  // Keys that type or choose belong to the field that has them; a checkbox or a file button takes no letters.
  if (event.target.matches("select, textarea, input:not([type=checkbox]):not([type=file])")) return;
  if (!$("viewer").hidden) {
    if (event.key === "ArrowLeft") stepViewer(-1);
    if (event.key === "ArrowRight") stepViewer(1);
    return;
  }
  if (!state || busy) return;
  const cards = moveControls();
  const key = event.key.toLowerCase();
  if (key === "t" && state.take !== null) { event.preventDefault(); play(state.take, true); }
  else if (key === "d" && state.done !== null) { event.preventDefault(); play(state.done, true); }
  else if ((event.key === "ArrowRight" || event.key === "ArrowLeft") && cards.length) {
    event.preventDefault();
    const current = cards.indexOf(document.activeElement);
    const start = current >= 0 ? current : focusIndex;
    focusIndex = (start + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    if (current < 0 && event.key === "ArrowRight") focusIndex = 0;
    cards[focusIndex].focus();
  }
  // Enter on a focused card button is the button's own click.
}

// ----- the replay viewer --------------------------------------------------------------------

let replay = null;
let frameIndex = 0;

async function openRecord(event) {
  const file = event.target.files[0];
  if (!file) return;
  try {
    const text = await file.text();
    try { JSON.parse(text); } catch (err) { throw new Error("that file is not a game record (not JSON)"); }
    replay = await api("POST", "/api/replays", text);  // the text itself: its seed must not pass through a double
    frameIndex = 0;
    $("viewer-title").textContent = `${replay.players.join(" · ")} · seed ${replay.seed}`;
    $("viewer").hidden = false;
    drawFrame();
    $("viewer").scrollIntoView({block: "start"});
  } catch (err) {
    showError(err.message);
  } finally {
    event.target.value = "";
  }
}

function stepViewer(delta) {
  if (!replay) return;
  frameIndex = Math.max(0, Math.min(replay.frames.length - 1, frameIndex + delta));
  drawFrame();
}

function drawFrame() {
  const frame = replay.frames[frameIndex];
  $("viewer-text").textContent = frame.text;
  $("viewer-pos").textContent = `${frameIndex} / ${replay.frames.length - 1}`;
  const hands = $("viewer-hands");
  hands.innerHTML = "";
  frame.hands.forEach((cards, seat) => {
    const row = document.createElement("div");
    row.textContent = `${replay.players[seat]}${frame.to_act === seat ? " (to move)" : ""}: `;
    for (const c of cards) row.appendChild(cardElement(c));
    hands.appendChild(row);
  });
  const table = $("viewer-table");
  table.innerHTML = "";
  frame.table.forEach((pair, i) => table.appendChild(pairElement(pair, i, null)));
  $("viewer-info").textContent = `trump ${frame.trump.label} · stock ${frame.stock} · discard ${frame.discard}`;
  $("prev").disabled = frameIndex === 0;
  $("next").disabled = frameIndex === replay.frames.length - 1;
}

init().catch((err) => { setBusy(false); showError(err.message); });
