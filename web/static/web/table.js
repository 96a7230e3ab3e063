// The live table. Loads the game over REST, then follows it over the WebSocket protocol
// (docs/websocket.md): events and state frames in, play / pass / moon_choice frames out. A
// dropped connection reconnects by itself with ?after=<last seq>, so nothing is missed.
import { api, deviceId, ensureSession, esc, playerName, seatNames, toast } from "./api.js";
import { cardButton, cardFace, cardLabel, cardSpan, sortHand } from "./cards.js";
import { _, fmt, ngettext } from "./i18n.js";

const root = document.getElementById("table");
const gameId = Number(root.dataset.game);
const $ = (id) => document.getElementById(id);

const PASS_WORDS = { left: _("to the left"), right: _("to the right"), across: _("across"), none: "" };
const POSITIONS = {
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

let game = null; // the REST detail (seats, rules, status...)
let state = null; // the viewer's state from the latest state frame
let mySeat = null;
let lastSeq = 0;
let deadline = null;
let selected = new Set(); // cards chosen to pass
let pending = false;
let socket = null;
let retry = 0;
let reconnectTimer = null;
let pingTimer = null;
let commandCounter = 0;

function nameOf(seat) {
  if (seat === mySeat) return _("You");
  return game ? seatNames(game.seats, game.players)[seat] : fmt(_("Seat %(number)s"), { number: seat + 1 });
}

function setError(message) {
  $("error").textContent = message || "";
}

function setConnection(kind, text) {
  root.dataset.connection = kind;
  $("connection").textContent = text;
  $("connection").className = `conn ${kind}`;
}

// --- WebSocket --------------------------------------------------------------------------------

function connect() {
  clearTimeout(reconnectTimer);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const url = `${scheme}://${location.host}/ws/games/${gameId}/?after=${lastSeq}&device_id=${encodeURIComponent(deviceId())}`;
  const ws = new WebSocket(url);
  socket = ws;
  setConnection("connecting", retry ? _("Reconnecting…") : _("Connecting…"));
  ws.addEventListener("open", () => {
    retry = 0;
    setConnection("open", _("Connected"));
    clearInterval(pingTimer);
    pingTimer = setInterval(() => send({ type: "ping" }), 20000);
  });
  ws.addEventListener("message", (message) => onFrame(JSON.parse(message.data)));
  ws.addEventListener("close", (event) => {
    if (socket !== ws) return;
    clearInterval(pingTimer);
    pending = false;
    if (event.code === 4401) {
      setConnection("closed", _("Not signed in: reload the page to sit down as a guest."));
      return;
    }
    if (event.code === 4404) {
      setConnection("closed", _("There is no such game."));
      return;
    }
    if (event.code === 4403) {
      setConnection("closed", _("This table cannot be watched until its round is over."));
      return;
    }
    const wait = Math.min(5000, 500 * 2 ** retry);
    retry += 1;
    setConnection("closed", fmt(_("Connection lost, reconnecting in %(seconds)s s…"), { seconds: Math.round(wait / 100) / 10 }));
    reconnectTimer = setTimeout(connect, wait);
  });
}

function send(frame) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    setError(_("Not connected: your move was not sent. Reconnecting…"));
    return false;
  }
  socket.send(JSON.stringify(frame));
  return true;
}

function command(frame) {
  if (pending) return;
  setError("");
  commandCounter += 1;
  const sent = send({ ...frame, command_id: `${deviceId().slice(-8)}-${gameId}-${Date.now()}-${commandCounter}` });
  if (sent) {
    pending = true;
    root.dataset.pending = "true";
  }
}

// Exposed for the end-to-end tests: drop the connection as a network failure would.
window.heartsTable = { dropConnection: () => socket && socket.close(4000, "test") };

const REFRESH_ON = new Set(["PlayersSeated", "SeatVacated", "SeatReclaimed", "GameEnded"]);

function onFrame(frame) {
  switch (frame.type) {
    case "hello":
      mySeat = frame.seat;
      break;
    case "seat": // the seat this connection plays for changed (a join, a leave, a director's swap)
      mySeat = frame.seat;
      refreshDetail();
      break;
    case "event":
      lastSeq = Math.max(lastSeq, frame.seq);
      root.dataset.seq = String(lastSeq);
      describeEvent(frame.event);
      if (REFRESH_ON.has(frame.event.type)) refreshDetail();
      break;
    case "state":
      lastSeq = Math.max(lastSeq, frame.seq);
      state = frame.state;
      game.status = frame.status;
      deadline = frame.turn_deadline ? new Date(frame.turn_deadline) : null;
      pending = false;
      root.dataset.pending = "false";
      render();
      break;
    case "ack":
      pending = false;
      root.dataset.pending = "false";
      selected = new Set();
      break;
    case "error":
      pending = false;
      root.dataset.pending = "false";
      setError(frame.detail || frame.code);
      root.dataset.lastError = frame.code;
      break;
    default:
      break;
  }
}

function describeEvent(event) {
  const p = event.payload || {};
  if (event.type === "HandScored") {
    const mine = mySeat !== null ? " " + fmt(_("You took %(points)s."), { points: p.points[mySeat] }) : "";
    toast(fmt(_("Hand %(hand)s scored."), { hand: p.hand_number }) + mine);
  } else if (event.type === "SeatVacated" && p.seat !== undefined) {
    toast(fmt(_("%(name)s left; a CPU plays that seat."), { name: nameOf(p.seat) }));
  } else if (event.type === "GameEnded") {
    toast(_("Game over."));
  }
}

// --- REST ---------------------------------------------------------------------------------------

async function refreshDetail() {
  const detail = await api(`/api/games/${gameId}/`);
  game = detail;
  mySeat = detail.your_seat;
  if (detail.state && (!state || detail.seq >= lastSeq)) {
    state = detail.state;
    lastSeq = Math.max(lastSeq, detail.seq);
    deadline = detail.turn_deadline ? new Date(detail.turn_deadline) : null;
  }
  render();
  return detail;
}

async function join(seat) {
  try {
    await api(`/api/games/${gameId}/join/`, { method: "POST", body: { seat, device_id: deviceId() } });
    await refreshDetail(); // the socket plays for the seat from its next frame on (a "seat" frame says so)
  } catch (error) {
    setError(error.message);
  }
}

// --- rendering -----------------------------------------------------------------------------------

function render() {
  if (!game) return;
  const n = game.players;
  root.dataset.status = game.status;
  root.dataset.seq = String(lastSeq);
  root.dataset.seat = mySeat === null ? "" : String(mySeat);
  renderSeating();
  if (!state) {
    $("status").textContent = game.status === "waiting" ? _("Waiting for players to sit down.") : "";
    return;
  }
  const phase = state.phase;
  root.dataset.phase = phase;
  root.dataset.hand = String(state.hand_number);
  const myTurn = mySeat !== null && state.to_act.includes(mySeat);
  root.dataset.myTurn = String(phase === "playing" && myTurn);
  root.dataset.canPass = String(phase === "passing" && myTurn && !state.passed);
  renderSeats(n);
  renderTrick(n);
  renderHand(phase, myTurn);
  renderActions(phase, myTurn);
  renderStatus(phase, myTurn);
  renderScores(n);
  renderAfterGame();
}

function renderSeating() {
  const box = $("seating");
  if (game.status !== "waiting") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const seated = mySeat !== null;
  box.innerHTML = `<h2>${esc(_("Seats"))}</h2><ul class="games">${game.seats.map((s) => `<li class="game-row">
      <span>${esc(fmt(_("Seat %(number)s"), { number: s.seat + 1 }))}: ${s.name ? esc(playerName(s)) + (s.cpu && !s.bot ? " (CPU)" : "") : `<em>${esc(_("open"))}</em>`}</span>
      ${!s.name && !seated ? `<button type="button" class="primary" data-seat="${s.seat}">${esc(_("Sit here"))}</button>` : ""}
    </li>`).join("")}</ul>`;
}

function renderSeats(n) {
  const reference = mySeat === null ? 0 : mySeat;
  const positions = POSITIONS[n];
  const box = $("seats");
  box.className = `seats seats-${n}`;
  box.innerHTML = "";
  for (let seat = 0; seat < n; seat++) {
    const entry = game.seats.find((s) => s.seat === seat) || {};
    const div = document.createElement("div");
    const acting = state.to_act.includes(seat) && state.phase !== "game_over";
    div.className = `seat pos-${positions[(seat - reference + n) % n]}${acting ? " acting" : ""}`;
    div.dataset.seat = String(seat);
    const badges = [
      entry.cpu ? '<span class="badge">CPU</span>' : "",
      entry.away ? `<span class="badge warn">${esc(_("away"))}</span>` : "",
      seat === state.dealer ? `<span class="badge">${esc(_("dealer"))}</span>` : "",
    ].join(" ");
    div.innerHTML = `<div class="seat-name">${esc(nameOf(seat))} ${badges}</div>
      <div class="seat-info"><span>${esc(fmt(ngettext("%(count)s card", "%(count)s cards", state.hand_counts[seat]), { count: state.hand_counts[seat] }))}</span>
      <span>${esc(fmt(_("hand %(points)s"), { points: state.points_taken[seat] }))}</span><span>${esc(fmt(_("total %(points)s"), { points: state.totals[seat] }))}</span></div>
      ${acting ? `<div class="to-play">${esc(state.phase === "passing" ? _("choosing cards") : _("to play"))}</div>` : ""}`;
    div.setAttribute("aria-label", fmt(acting ? _("%(name)s: %(cards)s cards, %(hand)s points this hand, %(total)s in total, to play")
      : _("%(name)s: %(cards)s cards, %(hand)s points this hand, %(total)s in total"), {
      name: nameOf(seat), cards: state.hand_counts[seat], hand: state.points_taken[seat], total: state.totals[seat] }));
    box.appendChild(div);
  }
}

function renderTrick(n) {
  const box = $("trick");
  box.innerHTML = "";
  const reference = mySeat === null ? 0 : mySeat;
  let cards = state.trick;
  let caption = state.phase === "playing" ? fmt(_("Trick %(number)s"), { number: state.trick_number }) : "";
  if (!cards.length && state.tricks && state.tricks.length) {
    const last = state.tricks[state.tricks.length - 1];
    cards = last.cards;
    caption = fmt(ngettext("Last trick: %(name)s took %(points)s point", "Last trick: %(name)s took %(points)s points",
      last.points), { name: nameOf(last.winner), points: last.points });
    box.classList.add("previous");
  } else {
    box.classList.remove("previous");
  }
  $("trick-caption").textContent = caption + (state.hearts_broken ? ` · ${_("hearts broken")}` : "");
  for (const play of cards) {
    const span = cardSpan(play.card, `at-${POSITIONS[n][(play.seat - reference + n) % n]}`);
    span.setAttribute("aria-label", `${nameOf(play.seat)}: ${cardLabel(play.card)}`);
    span.title = nameOf(play.seat);
    box.appendChild(span);
  }
}

function renderHand(phase, myTurn) {
  const box = $("hand");
  box.innerHTML = "";
  if (mySeat === null) {
    box.innerHTML = `<p class="muted">${esc(_("You are watching this table."))}</p>`;
    return;
  }
  const passed = new Set(phase === "passing" && state.passed ? state.passed : []);
  const received = new Set(state.received && state.trick_number <= 1 && !state.tricks.length ? state.received : []);
  const legal = new Set(state.legal_plays);
  const choosing = phase === "passing" && myTurn && !state.passed;
  for (const card of sortHand(state.hand.filter((c) => !passed.has(c)))) {
    const button = cardButton(card);
    if (choosing) {
      button.setAttribute("aria-pressed", String(selected.has(card)));
      button.classList.toggle("selected", selected.has(card));
      button.addEventListener("click", () => togglePass(card));
    } else if (phase === "playing" && myTurn) {
      const ok = legal.has(card);
      button.classList.add(ok ? "legal" : "illegal");
      if (!ok) button.setAttribute("aria-label", fmt(_("%(card)s (not playable now)"), { card: cardLabel(card) }));
      button.addEventListener("click", () => command({ type: "play", card }));
    } else {
      button.classList.add("idle");
      button.addEventListener("click", () => setError(phase === "playing" ? _("It is not your turn yet.") : _("Not now.")));
    }
    if (received.has(card)) {
      button.classList.add("received");
      button.setAttribute("aria-label", fmt(_("%(card)s, received"), { card: button.getAttribute("aria-label") }));
    }
    box.appendChild(button);
  }
}

function togglePass(card) {
  if (selected.has(card)) selected.delete(card);
  else if (selected.size < 3) selected.add(card);
  else {
    setError(_("You pass exactly three cards: unselect one first."));
    return;
  }
  setError("");
  render();
}

function renderActions(phase, myTurn) {
  const box = $("actions");
  box.innerHTML = "";
  if (phase === "passing" && myTurn && !state.passed) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.id = "pass-button";
    button.disabled = selected.size !== 3;
    button.textContent = fmt(_("Pass %(cards)s to %(name)s"), {
      cards: [...selected].map(cardFace).join(" ") || _("3 cards"), name: nameOf(state.passed_to) });
    button.addEventListener("click", () => command({ type: "pass", cards: [...selected] }));
    box.appendChild(button);
  }
  if (phase === "moon_choice" && state.moon && state.moon.shooter === mySeat) {
    for (const [choice, text] of [["add_to_others", _("Add 26 to everyone else")], ["subtract_from_self", _("Take 26 off my score")]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "primary";
      button.textContent = text;
      button.addEventListener("click", () => command({ type: "moon_choice", choice }));
      box.appendChild(button);
    }
  }
}

function renderStatus(phase, myTurn) {
  const text = (() => {
    if (phase === "game_over") {
      return state.winner !== null ? fmt(_("Game over: %(name)s won."), { name: nameOf(state.winner) }) : _("Game over.");
    }
    if (phase === "passing") {
      const hand = state.hand_number;
      if (mySeat === null) return fmt(_("Hand %(hand)s: the players are passing cards."), { hand });
      if (state.passed) {
        return fmt(_("You passed %(cards)s to %(name)s. Waiting for the others."), {
          cards: state.passed.map(cardFace).join(" "), name: nameOf(state.passed_to) });
      }
      return fmt(_("Hand %(hand)s: choose three cards to pass %(direction)s to %(name)s."), {
        hand, direction: PASS_WORDS[state.pass_direction] || "", name: nameOf(state.passed_to) });
    }
    if (phase === "moon_choice") {
      return state.moon.shooter === mySeat ? _("You shot the moon! Choose how to score it.")
        : fmt(_("%(name)s shot the moon and is choosing."), { name: nameOf(state.moon.shooter) });
    }
    const received = state.received && !state.tricks.length
      ? " " + fmt(_("You received %(cards)s from %(name)s."), {
        cards: state.received.map(cardFace).join(" "), name: nameOf(state.received_from) }) : "";
    if (myTurn) return _("Your turn: play a highlighted card.") + received;
    return fmt(_("%(name)s to play."), { name: nameOf(state.to_act[0]) }) + received;
  })();
  $("status").textContent = text;
}

function renderScores(n) {
  const names = Array.from({ length: n }, (_unused, seat) => nameOf(seat));
  const rows = state.hand_scores.map((h) => `<tr><th scope="row">${esc(fmt(_("Hand %(hand)s"), { hand: h.hand_number }))}</th>${h.points.map((p, seat) =>
    `<td>${p}${h.shooter === seat ? ` <span class="badge">${esc(_("moon"))}</span>` : ""}</td>`).join("")}</tr>`).join("");
  const current = state.phase === "playing" || state.phase === "passing"
    ? `<tr class="current"><th scope="row">${esc(fmt(_("Hand %(hand)s so far"), { hand: state.hand_number }))}</th>${state.points_taken.map((p) => `<td>${p}</td>`).join("")}</tr>` : "";
  $("scores").innerHTML = `<div class="scroll"><table class="scores"><caption class="visually-hidden">${esc(_("Points per hand and totals"))}</caption>
    <thead><tr><th scope="col">${esc(_("Hand"))}</th>${names.map((name, seat) => `<th scope="col"${seat === state.winner ? ' class="winner"' : ""}>${esc(name)}</th>`).join("")}</tr></thead>
    <tbody>${rows}${current}</tbody>
    <tfoot><tr><th scope="row">${esc(fmt(_("Total (to %(score)s)"), { score: state.rules.end_score }))}</th>${state.totals.map((t) => `<td>${t}</td>`).join("")}</tr></tfoot></table></div>`;
}

function renderAfterGame() {
  $("after-game").innerHTML = game.status === "finished"
    ? `<a class="button primary" href="/games/${gameId}/replay/">${esc(_("Watch the replay"))}</a> <a class="button" href="/">${esc(_("Back to the tables"))}</a>` : "";
}

function tick() {
  const box = $("countdown");
  if (!deadline || !game || game.status !== "active") {
    box.hidden = true;
    return;
  }
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  box.hidden = false;
  const single = state && state.to_act.length === 1;
  box.textContent = single && state.to_act[0] === mySeat ? fmt(_("You have %(seconds)s s"), { seconds })
    : single ? fmt(_("%(name)s has %(seconds)s s"), { name: nameOf(state.to_act[0]), seconds })
      : fmt(_("Everyone has %(seconds)s s"), { seconds });
  box.classList.toggle("urgent", seconds <= 10);
}

$("seating").addEventListener("click", (event) => {
  const button = event.target.closest("[data-seat]");
  if (button) join(Number(button.dataset.seat));
});

async function start() {
  try {
    await ensureSession();
    await refreshDetail();
  } catch (error) {
    setError(error.status === 404 ? _("There is no such table.") : error.message);
    setConnection("closed", "");
    return;
  }
  connect();
  setInterval(tick, 250);
  setInterval(() => {
    if (game && game.status === "waiting") refreshDetail().catch(() => {});
  }, 3000);
  window.addEventListener("online", () => {
    if (!socket || socket.readyState === WebSocket.CLOSED) connect();
  });
}

start();
