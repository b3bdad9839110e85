// The page asks the server what is legal and sends back an action index: no rule of Durak is written here.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// Seed 004: "The opponent's pauses are fixed lengths between four tenths and seven tenths of a second".
const PACE = params.has("pace") ? Number(params.get("pace")) : null;
const BEST_KEY = "durak_env.best";

let options = null;   // /api/options
let gameId = null;
let state = null;     // the last state the server sent (the person's view)
let busy = false;     // a request or the bots' moves are being shown
let focusIndex = 0;   // which playable card the arrow keys are on
let lastNewGame = null;

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: body === undefined ? {} : {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  setTimeout(() => { box.hidden = true; }, 4000);
}

function setBusy(flag) {
  busy = flag;
  document.body.dataset.busy = flag ? "1" : "0";  // for people who automate the page (and its tests)
}

function pause() {
  const ms = PACE !== null ? PACE : 400 + Math.random() * 300;
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ----- setting up a game -------------------------------------------------------------------

async function init() {
  setBusy(true);
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
  $("setup").addEventListener("submit", (e) => { e.preventDefault(); newGame(setupBody()); });
  $("take").addEventListener("click", () => state && state.take !== null && play(state.take));
  $("done").addEventListener("click", () => state && state.done !== null && play(state.done));
  $("again").addEventListener("click", () => newGame(setupBody()));
  $("replay-deal").addEventListener("click", () => state && newGame({...lastNewGame, seed: state.seed, match: false}));
  $("next-deal").addEventListener("click", nextDeal);
  $("hints").addEventListener("change", showHint);
  $("record-file").addEventListener("change", openRecord);
  $("prev").addEventListener("click", () => stepViewer(-1));
  $("next").addEventListener("click", () => stepViewer(1));
  $("close-viewer").addEventListener("click", () => { $("viewer").hidden = true; });
  document.addEventListener("keydown", onKey);
  showBest();
  const saved = location.hash.match(/game=([0-9a-f]+)/);
  if (saved) {
    try {
      const data = await api("GET", `/api/games/${saved[1]}`);
      gameId = data.id;
      showSetup(data.state);
      setBusy(false);
      render(data.state);
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
  if (presetInfo().trained.includes(n)) choices.unshift({name: "trained", label: "Trained (the shipped bot)"});
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
    $("log").innerHTML = "";
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
    $("log").innerHTML = "";
    await showEvents(data.events, data.state);
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
    render(state);
  }
}

// ----- playing ------------------------------------------------------------------------------

async function play(action) {
  if (busy || !state || !state.your_turn) return;
  setBusy(true);
  render(state);  // dims the cards while the move is on its way
  try {
    const data = await api("POST", `/api/games/${gameId}/moves`, {action});
    addLog(`you: ${describeAction(action)}`);
    await showEvents(data.events, data.state);
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
    render(state);
  }
}

function describeAction(action) {
  if (action === state.take) return "pick up";
  if (action === state.done) return "pass";
  for (const card of state.hand) {
    for (const a of card.actions) if (a.action === action) return `${a.kind} ${card.label}`;
  }
  return String(action);
}

// The bots' moves, one at a time with seed 004's short pause, then the position the person faces.
async function showEvents(events, finalState) {
  for (const event of events) {
    if (event.kind === "move") await pause();
    // Seed 003: "Beaten cards go out of play and only their number is shown": where the rules hide the
    // discard, the log forgets the bout's moves once it ends.
    if (event.kind === "bout" && event.state && event.state.discard.cards === null) $("log").innerHTML = "";
    addLog(event.text, event.kind);
    if (event.state) render(event.state);
  }
  render(finalState);
}

function addLog(text, kind) {
  const item = document.createElement("li");
  item.textContent = text;
  if (kind) item.className = kind;
  $("log").appendChild(item);
  $("log").scrollTop = $("log").scrollHeight;
}

// ----- drawing the table --------------------------------------------------------------------

function cardElement(card, tag = "span") {
  const el = document.createElement(tag);
  el.className = `card ${card.suit}${card.trump ? " trump" : ""}`;
  el.textContent = card.label;
  el.dataset.card = card.card;
  return el;
}

function render(s) {
  if (!s) return;
  state = s;
  $("game").hidden = false;
  const trump = s.trump.drawn ? `${s.trump.symbol} (the turned card ${s.trump.card.label} is drawn)`
                              : `${s.trump.symbol}, turned card ${s.trump.card.label}`;
  const discard = s.discard.cards ? `${s.discard.count}${s.discard.count ? ": " + s.discard.cards.map((c) => c.label).join(" ") : ""}`
                                  : `${s.discard.count} (only the count is shown)`;
  const deal = s.over ? `seed ${s.seed}` : `deal #${s.deal}`;
  const match = s.match ? ` · match: deal ${Math.min(s.match.played + (s.over ? 0 : 1), s.match.deals)} of ${s.match.deals}, points ${s.match.totals.join(" / ")}` : "";
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
    backs.setAttribute("aria-label", `${seat.cards} card${seat.cards === 1 ? "" : "s"} face down`);
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

  const table = $("table");
  table.innerHTML = "";
  for (const pair of s.table) {
    const box = document.createElement("div");
    box.className = "pair";
    box.appendChild(cardElement(pair.attack));
    if (pair.defence) {
      const d = cardElement(pair.defence);
      d.classList.add("defence");
      box.appendChild(d);
    }
    table.appendChild(box);
  }

  const hand = $("hand");
  hand.innerHTML = "";
  const mine = s.seats[s.you];
  hand.setAttribute("aria-label", `Your cards (${mine.role || "waiting"})`);
  for (const card of s.hand) {
    const slot = document.createElement("span");
    slot.className = "cardslot";
    const button = cardElement(card, "button");
    button.type = "button";
    const actions = card.actions;
    const playable = actions.length > 0 && s.your_turn && !busy;
    // Seed 004: "Cards you can legally play are highlighted ... Cards that cannot beat it are dimmed."
    button.disabled = !playable;
    if (playable) {
      button.classList.add("legal");
      button.title = `${actions[0].kind} ${card.label}`;
      button.addEventListener("click", () => play(actions[0].action));
    }
    slot.appendChild(button);
    for (const alt of actions.slice(1)) {  // a card that can also pass the attack on
      const other = document.createElement("button");
      other.type = "button";
      other.className = "alt";
      other.textContent = alt.kind === "transfer" ? "pass it on" : alt.kind;
      other.disabled = !playable;
      other.addEventListener("click", () => play(alt.action));
      slot.appendChild(other);
    }
    hand.appendChild(slot);
  }
  $("take").disabled = busy || s.take === null;
  $("done").disabled = busy || s.done === null;
  $("status").textContent = busy && !s.over ? "…" : s.status;

  const result = $("result");
  result.hidden = !s.over;
  if (s.over) showResult(s);
  showHint();
}

function showResult(s) {
  // The sentence only: the placings are in the table under it.
  const fool = s.result.fool;
  $("result-text").textContent = (fool === s.you ? "You are the durak, the fool."
    : fool === null ? "A draw: nobody is the fool." : `${s.seats[fool].name} is the fool.`)
    + (s.result.capped ? " The bout cap ended the deal." : "");
  const rows = s.seats.map((seat) => `<tr><td>${escapeHtml(seat.name)}</td><td>place ${seat.place}</td>` +
                                     `<td>${seat.points} point${seat.points === 1 ? "" : "s"}</td></tr>`);
  $("placings").innerHTML = `<tr><th>player</th><th>place</th><th>seed 003 points</th></tr>${rows.join("")}`;
  $("seed").textContent = `The deal's seed was ${s.seed}.`;
  $("download").href = `/api/games/${gameId}/record`;
  const matchLeft = s.match && !s.match.over;
  $("next-deal").hidden = !matchLeft;
  if (s.match && s.match.over) {
    $("seed").textContent += ` Match over: ${s.match.totals.join(" / ")} points.`;
  }
  recordBest(s);
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// ----- seed 004's Best figure ---------------------------------------------------------------
// "The Best figure is a card count, and a smaller count is treated as better. Win, and it stores the cards
// still in the opponent's hand. Lose, and it stores the cards still in yours. The rare draw, where both hands
// empty on the same round, stores zero, and nothing can beat zero. ... The number is only written when a game
// truly ends, and it lives in your own browser's storage".  Two-player deals only, as in seed 004.

const recorded = new Set();

function recordBest(s) {
  if (s.players !== 2 || recorded.has(`${gameId}/${s.seed}`)) return;
  recorded.add(`${gameId}/${s.seed}`);
  const sizes = s.result.hand_sizes;
  const figure = s.result.fool === null ? 0 : sizes[s.result.fool];
  const best = localStorage.getItem(BEST_KEY);
  if (best === null || figure < Number(best)) localStorage.setItem(BEST_KEY, String(figure));
  showBest();
}

function showBest() {
  const best = localStorage.getItem(BEST_KEY);
  $("best").textContent = `Best: ${best === null ? "–" : best}`;
}

// ----- hints ----------------------------------------------------------------------------------

async function showHint() {
  const box = $("hint");
  if (!$("hints").checked || !state || !state.your_turn || busy) {
    box.hidden = true;
    return;
  }
  try {
    const hint = await api("GET", `/api/games/${gameId}/hint`);
    const moves = hint.moves.slice(0, 5).map((m) => `${m.text} ${(100 * m.p).toFixed(0)}%`).join(", ");
    const value = hint.value === null ? "" : ` · its estimate of your outcome: ${hint.value.toFixed(2)} (−1 the fool, +1 first out)`;
    box.textContent = `${hint.bot} would play: ${moves}${value}`;
    box.hidden = false;
  } catch (err) {
    box.textContent = err.message;
    box.hidden = false;
  }
}

// ----- keyboard: seed 001's arrows, Enter, T and D ------------------------------------------

function onKey(event) {
  if (event.target.tagName === "SELECT" || event.target.tagName === "INPUT") return;
  if (!$("viewer").hidden) {
    if (event.key === "ArrowLeft") stepViewer(-1);
    if (event.key === "ArrowRight") stepViewer(1);
    return;
  }
  if (!state || busy) return;
  const cards = [...document.querySelectorAll("#hand .card.legal")];
  const key = event.key.toLowerCase();
  if (key === "t" && state.take !== null) { event.preventDefault(); play(state.take); }
  else if (key === "d" && state.done !== null) { event.preventDefault(); play(state.done); }
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
    let record;
    try { record = JSON.parse(text); } catch (err) { throw new Error("that file is not a game record (not JSON)"); }
    replay = await api("POST", "/api/replays", record);
    frameIndex = 0;
    $("viewer-title").textContent = `${replay.players.join(" · ")} · seed ${replay.seed}`;
    $("viewer").hidden = false;
    drawFrame();
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
  for (const pair of frame.table) {
    table.appendChild(cardElement(pair.attack));
    if (pair.defence) table.appendChild(cardElement(pair.defence));
  }
  $("viewer-info").textContent = `trump ${frame.trump.label} · stock ${frame.stock} · discard ${frame.discard}`;
  $("prev").disabled = frameIndex === 0;
  $("next").disabled = frameIndex === replay.frames.length - 1;
}

init().catch((err) => { setBusy(false); showError(err.message); });
