// The live table. Loads the game over REST, then follows it over the WebSocket protocol
// (docs/websocket.md): events and state frames in, play / pass / moon_choice frames out. A
// dropped connection reconnects by itself with ?after=<last seq>, so nothing is missed.
import { api, deviceId, ensureSession, esc, me, seatLabel, seatNames, toast } from "./api.js";
import { cardButton, cardFace, cardLabel, cardSpan, sortHand } from "./cards.js";

const root = document.getElementById("table");
const gameId = Number(root.dataset.game);
const $ = (id) => document.getElementById(id);

const PASS_WORDS = { left: "to the left", right: "to the right", across: "across", none: "" };
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
  if (seat === mySeat) return "You";
  return game ? seatNames(game.seats, game.players)[seat] : `Seat ${seat + 1}`;
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
  setConnection("connecting", retry ? "Reconnecting…" : "Connecting…");
  ws.addEventListener("open", () => {
    retry = 0;
    setConnection("open", "Connected");
    clearInterval(pingTimer);
    pingTimer = setInterval(() => send({ type: "ping" }), 20000);
  });
  ws.addEventListener("message", (message) => onFrame(JSON.parse(message.data)));
  ws.addEventListener("close", (event) => {
    if (socket !== ws) return;
    clearInterval(pingTimer);
    pending = false;
    if (event.code === 4401) {
      setConnection("closed", "Not signed in: reload the page.");
      return;
    }
    if (event.code === 4404) {
      setConnection("closed", "There is no such game.");
      return;
    }
    if (event.code === 4403) {
      setConnection("closed", "This table cannot be watched until its round is over.");
      return;
    }
    const wait = Math.min(5000, 500 * 2 ** retry);
    retry += 1;
    setConnection("closed", `Connection lost, reconnecting in ${Math.round(wait / 100) / 10} s…`);
    reconnectTimer = setTimeout(connect, wait);
  });
}

function send(frame) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    setError("Not connected: your move was not sent. Reconnecting…");
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
    const mine = mySeat !== null ? ` You took ${p.points[mySeat]}.` : "";
    toast(`Hand ${p.hand_number} scored.${mine}`);
  } else if (event.type === "SeatVacated" && p.seat !== undefined) {
    toast(`${nameOf(p.seat)} left; a CPU plays that seat.`);
  } else if (event.type === "GameEnded") {
    toast("Game over.");
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
    const wasAnonymous = !me();
    await ensureSession(); // a watcher becomes a guest only now, when sitting down
    await api(`/api/games/${gameId}/join/`, { method: "POST", body: { seat, device_id: deviceId() } });
    if (wasAnonymous) reconnect(); // the socket was opened without a session: open it again as the player
    await refreshDetail(); // the socket plays for the seat from its next frame on (a "seat" frame says so)
  } catch (error) {
    setError(error.message);
  }
}

function reconnect() {
  const old = socket;
  socket = null;
  if (old) old.close(1000, "signed in");
  connect();
}

// Leaving asks first. Before the start the seat opens again; in a started game a CPU plays it
// until the player comes back (opening the table again from the same device takes it back).
function renderLeave() {
  const box = $("leave");
  const canLeave = mySeat !== null && game.status !== "finished";
  if (!canLeave) {
    box.innerHTML = "";
    return;
  }
  if (box.dataset.confirming === "true") {
    const what = game.status === "active"
      ? "A CPU will play your seat until you come back to this table."
      : "Your seat opens for someone else.";
    if (!box.querySelector("#leave-yes")) {
      box.innerHTML = `<span id="leave-question">Leave this table? ${what}</span>
        <button type="button" id="leave-yes" class="primary">Yes, leave</button>
        <button type="button" id="leave-no">Stay</button>`;
      $("leave-yes").focus();
    }
    return;
  }
  if (!box.querySelector("#leave-button")) box.innerHTML = '<button type="button" id="leave-button">Leave table</button>';
}

async function leave() {
  try {
    await api(`/api/games/${gameId}/leave/`, { method: "POST", body: {} });
  } catch (error) {
    setError(error.message);
    return;
  }
  const old = socket;
  socket = null; // no reconnect: reopening this page from this device would take the seat back
  if (old) old.close(1000, "left");
  window.location.assign("/?left=" + gameId);
}

$("leave").addEventListener("click", (event) => {
  const box = $("leave");
  if (event.target.closest("#leave-button")) {
    box.dataset.confirming = "true";
    renderLeave();
  } else if (event.target.closest("#leave-no")) {
    box.dataset.confirming = "false";
    renderLeave();
    $("leave-button").focus();
  } else if (event.target.closest("#leave-yes")) {
    leave();
  }
});

document.addEventListener("hearts:renamed", () => refreshDetail().catch(() => {}));

// --- rendering -----------------------------------------------------------------------------------

function render() {
  if (!game) return;
  const n = game.players;
  root.dataset.status = game.status;
  root.dataset.seq = String(lastSeq);
  root.dataset.seat = mySeat === null ? "" : String(mySeat);
  renderSeating();
  renderLeave();
  if (!state) {
    $("status").textContent = game.status === "waiting" ? "Waiting for players to sit down." : "";
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
  box.innerHTML = `<h2>Seats</h2><ul class="games">${game.seats.map((s) => `<li class="game-row">
      <span>Seat ${s.seat + 1}: ${s.name ? esc(seatLabel(s)) : "<em>open</em>"}</span>
      ${!s.name && !seated ? `<button type="button" class="primary" data-seat="${s.seat}">Sit here</button>` : ""}
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
      entry.away ? '<span class="badge warn">away</span>' : "",
      seat === state.dealer ? '<span class="badge">dealer</span>' : "",
    ].join(" ");
    div.innerHTML = `<div class="seat-name">${esc(nameOf(seat))} ${badges}</div>
      <div class="seat-info"><span>${state.hand_counts[seat]} cards</span>
      <span>hand ${state.points_taken[seat]}</span><span>total ${state.totals[seat]}</span></div>
      ${acting ? `<div class="to-play">${state.phase === "passing" ? "choosing cards" : "to play"}</div>` : ""}`;
    div.setAttribute("aria-label", `${nameOf(seat)}: ${state.hand_counts[seat]} cards, ${state.points_taken[seat]} points this hand, ${state.totals[seat]} in total${acting ? ", to play" : ""}`);
    box.appendChild(div);
  }
}

function renderTrick(n) {
  const box = $("trick");
  box.innerHTML = "";
  const reference = mySeat === null ? 0 : mySeat;
  let cards = state.trick;
  let caption = state.phase === "playing" ? `Trick ${state.trick_number}` : "";
  if (!cards.length && state.tricks && state.tricks.length) {
    const last = state.tricks[state.tricks.length - 1];
    cards = last.cards;
    caption = `Last trick: ${nameOf(last.winner)} took ${last.points} point${last.points === 1 ? "" : "s"}`;
    box.classList.add("previous");
  } else {
    box.classList.remove("previous");
  }
  $("trick-caption").textContent = caption + (state.hearts_broken ? " · hearts broken" : "");
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
    box.innerHTML = '<p class="muted">You are watching this table.</p>';
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
      if (!ok) button.setAttribute("aria-label", `${cardLabel(card)} (not playable now)`);
      button.addEventListener("click", () => command({ type: "play", card }));
    } else {
      button.classList.add("idle");
      button.addEventListener("click", () => setError(phase === "playing" ? "It is not your turn yet." : "Not now."));
    }
    if (received.has(card)) {
      button.classList.add("received");
      button.setAttribute("aria-label", `${button.getAttribute("aria-label")}, received`);
    }
    box.appendChild(button);
  }
}

function togglePass(card) {
  if (selected.has(card)) selected.delete(card);
  else if (selected.size < 3) selected.add(card);
  else {
    setError("You pass exactly three cards: unselect one first.");
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
    button.textContent = `Pass ${[...selected].map(cardFace).join(" ") || "3 cards"} to ${nameOf(state.passed_to)}`;
    button.addEventListener("click", () => command({ type: "pass", cards: [...selected] }));
    box.appendChild(button);
  }
  if (phase === "moon_choice" && state.moon && state.moon.shooter === mySeat) {
    for (const [choice, text] of [["add_to_others", "Add 26 to everyone else"], ["subtract_from_self", "Take 26 off my score"]]) {
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
    if (phase === "game_over") return state.winner !== null ? `Game over: ${nameOf(state.winner)} won.` : "Game over.";
    if (phase === "passing") {
      if (mySeat === null) return `Hand ${state.hand_number}: the players are passing cards.`;
      if (state.passed) return `You passed ${state.passed.map(cardFace).join(" ")} to ${nameOf(state.passed_to)}. Waiting for the others.`;
      return `Hand ${state.hand_number}: choose three cards to pass ${PASS_WORDS[state.pass_direction] || ""} to ${nameOf(state.passed_to)}.`;
    }
    if (phase === "moon_choice") {
      return state.moon.shooter === mySeat ? "You shot the moon! Choose how to score it." : `${nameOf(state.moon.shooter)} shot the moon and is choosing.`;
    }
    const received = state.received && !state.tricks.length
      ? ` You received ${state.received.map(cardFace).join(" ")} from ${nameOf(state.received_from)}.` : "";
    if (myTurn) return `Your turn: play a highlighted card.${received}`;
    return `${nameOf(state.to_act[0])} to play.${received}`;
  })();
  $("status").textContent = text;
}

function renderScores(n) {
  const names = Array.from({ length: n }, (_, seat) => nameOf(seat));
  const rows = state.hand_scores.map((h) => `<tr><th scope="row">Hand ${h.hand_number}</th>${h.points.map((p, seat) =>
    `<td>${p}${h.shooter === seat ? ' <span class="badge">moon</span>' : ""}</td>`).join("")}</tr>`).join("");
  const current = state.phase === "playing" || state.phase === "passing"
    ? `<tr class="current"><th scope="row">Hand ${state.hand_number} so far</th>${state.points_taken.map((p) => `<td>${p}</td>`).join("")}</tr>` : "";
  $("scores").innerHTML = `<div class="scroll"><table class="scores"><caption class="visually-hidden">Points per hand and totals</caption>
    <thead><tr><th scope="col">Hand</th>${names.map((name, seat) => `<th scope="col"${seat === state.winner ? ' class="winner"' : ""}>${esc(name)}</th>`).join("")}</tr></thead>
    <tbody>${rows}${current}</tbody>
    <tfoot><tr><th scope="row">Total (to ${state.rules.end_score})</th>${state.totals.map((t) => `<td>${t}</td>`).join("")}</tr></tfoot></table></div>`;
}

function renderAfterGame() {
  $("after-game").innerHTML = game.status === "finished"
    ? `<a class="button primary" href="/games/${gameId}/replay/">Watch the replay</a> <a class="button" href="/">Back to the tables</a>` : "";
}

function tick() {
  const box = $("countdown");
  if (!deadline || !game || game.status !== "active") {
    box.hidden = true;
    return;
  }
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  box.hidden = false;
  const who = state && state.to_act.length === 1 ? nameOf(state.to_act[0]) : "Everyone";
  box.textContent = `${who === "You" ? "You have" : `${who} has`} ${seconds} s`;
  box.classList.toggle("urgent", seconds <= 10);
}

$("seating").addEventListener("click", (event) => {
  const button = event.target.closest("[data-seat]");
  if (button) join(Number(button.dataset.seat));
});

async function start() {
  try {
    await refreshDetail(); // watching needs no account: nothing is created until one sits down
  } catch (error) {
    setError(error.status === 404 ? "There is no such table." : error.message);
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
