// The live table. Loads the game over REST, then follows it over the WebSocket protocol
// (docs/websocket.md): update frames in (a change's events and the state after them),
// play / pass / moon_choice frames out. A dropped connection reconnects by itself with
// ?after=<last seq>, so nothing is missed.
import { api, deviceId, ensureSession, esc, me, seatLabel, seatNames, toast } from "./api.js";
import { cardBack, cardButton, cardFace, cardLabel, cardPoints, cardSpan, sortHand } from "./cards.js";
import { _, fmt, ngettext } from "./i18n.js";

const root = document.getElementById("table");
const gameId = Number(root.dataset.game);
const $ = (id) => document.getElementById(id);

const PASS_WORDS = { left: _("to the left"), right: _("to the right"), across: _("across"), none: "" };
// Seats sit round an ellipse, the viewer at the bottom and play going clockwise (to the left);
// each played card lies between the centre and its player, so it is plain who played what.
function around(offset, n) {
  const angle = Math.PI / 2 + (offset * 2 * Math.PI) / n;
  return { cx: Math.round(Math.cos(angle) * 1000) / 1000, cy: Math.round(Math.sin(angle) * 1000) / 1000 };
}

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
let showLast = false; // the last trick shown on demand, during the next one
let shownTrick = []; // the cards on the felt at the last render (to animate newcomers only)
let handFocus = null; // the card the keyboard is on in the hand (roving tabindex)
let tricksSeen = 0;
let shownLeader = null; // who led the trick on the felt (the current one, or the last on demand)

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
      setConnection("closed", _("Not signed in: reload the page."));
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
    case "update": // one change: its events, then the viewer's state after them
      for (const event of frame.events) describeEvent(event);
      lastSeq = Math.max(lastSeq, frame.seq);
      root.dataset.seq = String(lastSeq);
      if (frame.state) {
        state = frame.state;
        game.status = frame.status;
        deadline = frame.turn_deadline ? new Date(frame.turn_deadline) : null;
        pending = false;
        root.dataset.pending = "false";
        render();
      }
      if (frame.events.some((event) => REFRESH_ON.has(event.type))) refreshDetail();
      break;
    case "ack":
      pending = false;
      root.dataset.pending = "false";
      selected = new Set();
      break;
    case "rematch": // the players of this finished game are offered a new table
      refreshDetail().then(() => {
        const text = mySeat !== null ? _("A new table is offered: join it to play again.") : _("The players start a new table.");
        toast(text);
        announce(text);
      }).catch(() => {});
      break;
    case "spectators":
      renderSpectators(frame);
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

// Sounds are off until asked for (a short tick per card, a higher one when it is your turn).
const SOUND_KEY = "hearts.sound";
let audio = null;

function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

function beep(frequency) {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.05, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.08);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.09);
  } catch {
    // no audio here: stay silent
  }
}

function renderSoundButton() {
  const button = $("sound");
  button.setAttribute("aria-pressed", String(soundOn()));
  button.textContent = soundOn() ? _("Sound: on") : _("Sound: off");
}

$("sound").addEventListener("click", () => {
  localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
  renderSoundButton();
  beep(660);
});
renderSoundButton();

// Plays and tricks are read out (aria-live) as they happen.
function announce(text) {
  const box = $("announce");
  const line = document.createElement("p");
  line.textContent = text;
  box.appendChild(line);
  while (box.childElementCount > 4) box.firstElementChild.remove();
}

function describeEvent(event) {
  const p = event.payload || {};
  if (event.type === "CardPlayed" && p.card) {
    announce(fmt(_("%(name)s played the %(card)s."), { name: nameOf(p.seat), card: cardLabel(p.card) }));
    beep(440);
  } else if (event.type === "TrickTaken") {
    const values = { name: nameOf(p.winner), number: p.trick_number, points: p.points,
      kitty: (p.kitty || []).map(cardLabel).join(", ") };
    announce(fmt(p.kitty && p.kitty.length
      ? ngettext("%(name)s took trick %(number)s and the kitty, %(kitty)s: %(points)s point.",
        "%(name)s took trick %(number)s and the kitty, %(kitty)s: %(points)s points.", p.points)
      : ngettext("%(name)s took trick %(number)s: %(points)s point.", "%(name)s took trick %(number)s: %(points)s points.",
        p.points), values));
  }
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
      ? _("A CPU will play your seat until you come back to this table.")
      : _("Your seat opens for someone else.");
    if (!box.querySelector("#leave-yes")) {
      box.innerHTML = `<span id="leave-question">${esc(_("Leave this table?"))} ${esc(what)}</span>
        <button type="button" id="leave-yes" class="primary">${esc(_("Yes, leave"))}</button>
        <button type="button" id="leave-no">${esc(_("Stay"))}</button>`;
      $("leave-yes").focus();
    }
    return;
  }
  if (!box.querySelector("#leave-button")) box.innerHTML = `<button type="button" id="leave-button">${esc(_("Leave table"))}</button>`;
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
    $("status").textContent = game.status === "waiting" ? _("Waiting for players to sit down.") : "";
    return;
  }
  const phase = state.phase;
  root.dataset.phase = phase;
  root.dataset.hand = String(state.hand_number);
  const myTurn = mySeat !== null && state.to_act.includes(mySeat);
  const turnNow = phase === "playing" && myTurn;
  if (turnNow && root.dataset.myTurn !== "true") beep(880);
  root.dataset.myTurn = String(turnNow);
  root.dataset.canPass = String(phase === "passing" && myTurn && !state.passed);
  renderTrick(n);
  renderSeats(n);
  renderDealInfo();
  renderTrickLog();
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
  const mine = me();
  box.innerHTML = `<h2>${esc(_("Seats"))}</h2><ul class="games">${game.seats.map((s) => {
    const forMe = s.invited && mine && s.invited.player_id === mine.player_id;
    const what = s.name ? esc(seatLabel(s)) : s.invited ? `<em>${esc(fmt(_("held for %(name)s"), { name: s.invited.name }))}</em>`
      : `<em>${esc(_("open"))}</em>`;
    const sit = !s.name && !seated && (!s.invited || forMe);
    return `<li class="game-row"><span>${esc(fmt(_("Seat %(number)s"), { number: s.seat + 1 }))}: ${what}</span>
      ${sit ? `<button type="button" class="primary" data-seat="${s.seat}">${esc(forMe ? _("Take your seat") : _("Sit here"))}</button>` : ""}
    </li>`;
  }).join("")}</ul>`;
}

function renderSeats(n) {
  const reference = mySeat === null ? 0 : mySeat;
  const box = $("seats");
  box.className = `seats ring seats-${n}`;
  box.innerHTML = "";
  const leader = shownLeader;
  for (let seat = 0; seat < n; seat++) {
    const entry = game.seats.find((s) => s.seat === seat) || {};
    const div = document.createElement("div");
    const acting = state.to_act.includes(seat) && state.phase !== "game_over";
    const { cx, cy } = around((seat - reference + n) % n, n);
    div.className = `seat${acting ? " acting" : ""}${seat === reference ? " me" : ""}`;
    div.style.setProperty("--cx", cx);
    div.style.setProperty("--cy", cy);
    div.dataset.seat = String(seat);
    const badges = [
      entry.away ? `<span class="badge warn">${esc(_("away: a CPU plays"))}</span>` : "",
      seat === state.dealer ? `<span class="badge">${esc(_("dealer"))}</span>` : "",
      seat === leader ? `<span class="badge lead">${esc(_("led"))}</span>` : "",
    ].join(" ");
    div.innerHTML = `<div class="seat-name">${esc(nameOf(seat))} ${badges}</div>
      <div class="seat-info"><span>${esc(fmt(ngettext("%(count)s card", "%(count)s cards", state.hand_counts[seat]), { count: state.hand_counts[seat] }))}</span>
      <span>${esc(fmt(_("hand %(points)s"), { points: state.points_taken[seat] }))}</span><span>${esc(fmt(_("total %(points)s"), { points: state.totals[seat] }))}</span></div>
      ${acting ? `<div class="to-play">${esc(state.phase === "passing" ? _("choosing cards") : _("to play"))}</div>` : ""}`;
    div.setAttribute("aria-label", fmt(acting ? _("%(name)s: %(cards)s cards, %(hand)s points this hand, %(total)s in total, to play")
      : _("%(name)s: %(cards)s cards, %(hand)s points this hand, %(total)s in total"), {
      name: nameOf(seat), cards: state.hand_counts[seat], hand: state.points_taken[seat], total: state.totals[seat] })
      + (seat === leader ? `, ${_("led the trick shown")}` : ""));
    box.appendChild(div);
  }
}

function renderTrick(n) {
  const box = $("trick");
  box.innerHTML = "";
  const reference = mySeat === null ? 0 : mySeat;
  let cards = state.trick;
  let leader = state.leader;
  let caption = state.phase === "playing" ? fmt(_("Trick %(number)s"), { number: state.trick_number }) : "";
  const last = state.tricks && state.tricks.length ? state.tricks[state.tricks.length - 1] : null;
  let justTaken = false;
  if ((state.tricks || []).length !== tricksSeen) {
    justTaken = (state.tricks || []).length === tricksSeen + 1;
    tricksSeen = (state.tricks || []).length;
    showLast = false; // a trick was just taken: it shows by itself until the next card
  }
  const previous = last && (!cards.length || showLast);
  if (previous) {
    cards = last.cards;
    leader = last.leader;
    caption = fmt(ngettext("Last trick (%(number)s): %(leader)s led, %(name)s took %(points)s point",
      "Last trick (%(number)s): %(leader)s led, %(name)s took %(points)s points", last.points),
    { number: state.tricks.length, leader: nameOf(last.leader), name: nameOf(last.winner), points: last.points });
  }
  box.classList.toggle("previous", Boolean(previous));
  shownLeader = cards.length ? leader : null;
  $("trick-caption").textContent = caption + (state.hearts_broken ? ` · ${_("hearts broken")}` : "");
  const button = $("last-trick");
  button.hidden = !last || !state.trick.length;
  button.setAttribute("aria-pressed", String(showLast && Boolean(last)));
  button.textContent = showLast ? _("Back to this trick") : _("Show the last trick");
  const before = new Set(shownTrick);
  shownTrick = cards.map((play) => play.card);
  for (const play of cards) {
    const { cx, cy } = around((play.seat - reference + n) % n, n);
    const span = cardSpan(play.card, `in-trick${play.seat === leader ? " led" : ""}`);
    span.style.setProperty("--cx", cx);
    span.style.setProperty("--cy", cy);
    span.dataset.seat = String(play.seat);
    if (!previous && !before.has(play.card)) span.classList.add("arrive");
    if (previous && justTaken && !state.trick.length) {
      // the trick slides a little toward whoever took it
      const to = around((last.winner - reference + n) % n, n);
      span.style.setProperty("--wx", to.cx);
      span.style.setProperty("--wy", to.cy);
      span.classList.add("to-winner");
    }
    const led = play.seat === leader ? ` (${_("led")})` : "";
    span.setAttribute("aria-label", `${nameOf(play.seat)}: ${cardLabel(play.card)}${led}`);
    span.title = nameOf(play.seat) + led;
    box.appendChild(span);
  }
}

// The cards out of this deal (removed) and the kitty: face down until the first trick's
// winner takes it, then face up with what it carried (the engine's view says when).
function renderDealInfo() {
  const box = $("deal-info");
  box.innerHTML = "";
  const removed = state.removed_cards || [];
  if (removed.length) {
    const line = document.createElement("div");
    line.className = "deal-line removed";
    line.innerHTML = `<span>${esc(_("Out of the deck:"))} </span>`;
    for (const card of removed) line.appendChild(cardSpan(card, "mini"));
    box.appendChild(line);
  }
  if (state.kitty_size) {
    const line = document.createElement("div");
    line.className = "deal-line kitty";
    line.id = "kitty";
    if (state.kitty) {
      const points = state.kitty.reduce((sum, card) => sum + cardPoints(card, state.rules), 0);
      line.dataset.revealed = "true";
      line.innerHTML = `<span>${esc(fmt(ngettext("Kitty, taken by %(name)s with the first trick (%(points)s point):",
        "Kitty, taken by %(name)s with the first trick (%(points)s points):", points),
      { name: nameOf(state.kitty_taken_by), points }))} </span>`;
      for (const card of state.kitty) line.appendChild(cardSpan(card, "mini"));
    } else {
      line.dataset.revealed = "false";
      line.innerHTML = `<span>${esc(fmt(ngettext("Kitty (%(count)s card, face down: the first trick's winner takes it):",
        "Kitty (%(count)s cards, face down: the first trick's winner takes it):", state.kitty_size),
      { count: state.kitty_size }))} </span>`;
      for (let i = 0; i < state.kitty_size; i++) line.appendChild(cardBack("mini"));
    }
    box.appendChild(line);
  }
}

function renderTrickLog() {
  const list = $("trick-log-list");
  const tricks = state.tricks || [];
  $("trick-log-count").textContent = String(tricks.length);
  list.innerHTML = tricks.map((trick, index) => {
    const plays = trick.cards.map((play) => `${esc(nameOf(play.seat))} ${cardFace(play.card)}`).join(", ");
    let kitty = "";
    if (index === 0 && state.kitty) {
      const points = state.kitty.reduce((sum, card) => sum + cardPoints(card, state.rules), 0);
      kitty = ` <span class="kitty-note">${esc(fmt(ngettext("With the kitty: %(cards)s (%(points)s point).",
        "With the kitty: %(cards)s (%(points)s points).", points), { cards: state.kitty.map(cardFace).join(" "), points }))}</span>`;
    }
    return `<li data-trick="${index + 1}">${esc(fmt(_("Trick %(number)s, led by %(name)s:"), { number: index + 1, name: nameOf(trick.leader) }))}
      ${plays}. ${esc(fmt(ngettext("%(name)s took %(points)s point.", "%(name)s took %(points)s points.", trick.points),
    { name: nameOf(trick.winner), points: trick.points }))}${kitty}</li>`;
  }).join("");
}

function renderHand(phase, myTurn) {
  const box = $("hand");
  const hadFocus = box.contains(document.activeElement);
  box.innerHTML = "";
  if (mySeat === null) {
    box.innerHTML = `<li class="muted">${esc(_("You are watching this table."))}</li>`;
    return;
  }
  const passed = new Set(phase === "passing" && state.passed ? state.passed : []);
  const received = new Set(state.received && state.trick_number <= 1 && !state.tricks.length ? state.received : []);
  const legal = new Set(state.legal_plays);
  const choosing = phase === "passing" && myTurn && !state.passed;
  const cards = sortHand(state.hand.filter((c) => !passed.has(c)));
  if (!cards.includes(handFocus)) handFocus = cards.find((c) => legal.has(c)) || cards[0] || null;
  for (const card of cards) {
    const button = cardButton(card);
    let label = cardLabel(card);
    if (choosing) {
      button.setAttribute("aria-pressed", String(selected.has(card)));
      button.classList.toggle("selected", selected.has(card));
      button.addEventListener("click", () => togglePass(card));
    } else if (phase === "playing" && myTurn) {
      const ok = legal.has(card);
      button.classList.add(ok ? "legal" : "illegal");
      if (!ok) label = fmt(_("%(card)s (not playable now)"), { card: label });
      button.addEventListener("click", () => command({ type: "play", card }));
    } else {
      button.classList.add("idle");
      button.addEventListener("click", () => setError(phase === "playing" ? _("It is not your turn yet.") : _("Not now.")));
    }
    if (received.has(card)) {
      button.classList.add("received");
      button.insertAdjacentHTML("beforeend", `<span class="tag" aria-hidden="true">${esc(_("received"))}</span>`);
      label = fmt(_("%(card)s, received"), { card: label });
    }
    button.setAttribute("aria-label", label);
    button.tabIndex = card === handFocus ? 0 : -1;
    button.addEventListener("focus", () => { handFocus = card; });
    const item = document.createElement("li");
    item.appendChild(button);
    box.appendChild(item);
  }
  if (hadFocus) {
    const target = box.querySelector(`button[data-card="${handFocus}"]`);
    if (target) target.focus();
  }
}

// The hand is one tab stop: arrows (and Home/End) move along it, Enter or Space plays or picks.
$("hand").addEventListener("keydown", (event) => {
  const buttons = [...$("hand").querySelectorAll("button.card")];
  const index = buttons.indexOf(document.activeElement);
  if (index < 0) return;
  const moves = { ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1,
    Home: 0, End: buttons.length - 1 };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = buttons[Math.max(0, Math.min(buttons.length - 1, moves[event.key]))];
  for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
  next.focus();
});

$("last-trick").addEventListener("click", () => {
  showLast = !showLast;
  render();
});

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
      // a seat taken over after it passed: the pass was its previous player's, not shown
      if (state.passed_seats.includes(mySeat)) return _("This seat has passed its cards. Waiting for the others.");
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
  const box = $("after-game");
  if (game.status !== "finished") {
    box.innerHTML = "";
    return;
  }
  let again = "";
  if (game.rematch && mySeat === null) {
    again = `<a class="button" href="/tables/${game.rematch}/">${esc(_("Watch the new table"))}</a>`;
  } else if (mySeat !== null && !game.ranked && game.watchable) {
    again = `<button type="button" id="play-again" class="primary">${esc(game.rematch ? _("Join the new table") : _("Play again"))}</button>`;
  }
  const key = `${again}|${game.rematch}`;
  if (box.dataset.key === key) return; // keep focus on the button across renders
  box.dataset.key = key;
  box.innerHTML = `${again} <a class="button${again ? "" : " primary"}" href="/games/${gameId}/replay/">${esc(_("Watch the replay"))}</a>
    <a class="button" href="/">${esc(_("Back to the tables"))}</a>
    ${game.rematch && mySeat !== null ? `<span class="muted">${esc(_("The same players are invited to a new table."))}</span>` : ""}`;
}

// Play again: the first to ask makes the new table (the others are invited); the others join it.
async function playAgain(button) {
  button.disabled = true;
  try {
    await ensureSession();
    const next = await api(`/api/games/${gameId}/rematch/`, { method: "POST", body: { device_id: deviceId() } });
    window.location.assign(`/tables/${next.id}/`);
  } catch (error) {
    setError(error.message);
    button.disabled = false;
  }
}

$("after-game").addEventListener("click", (event) => {
  const button = event.target.closest("#play-again");
  if (button) playAgain(button);
});

// Who watches without a seat: names only, and a count of those without an account.
function renderSpectators(list) {
  const box = $("spectators");
  const names = list.names || [];
  const anonymous = list.anonymous || 0;
  const parts = [...names.map(esc)];
  if (anonymous) parts.push(esc(fmt(_("%(count)s without an account"), { count: anonymous })));
  box.hidden = !parts.length;
  box.innerHTML = parts.length ? `${esc(_("Watching:"))} ${parts.join(", ")}` : "";
  box.dataset.count = String(names.length + anonymous);
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
    await refreshDetail(); // watching needs no account: nothing is created until one sits down
  } catch (error) {
    setError(error.status === 404 ? _("There is no such table.") : error.message);
    setConnection("closed", "");
    return;
  }
  connect();
  api(`/api/games/${gameId}/spectators/`).then(renderSpectators).catch(() => {});
  setInterval(tick, 250);
  setInterval(() => {
    if (game && game.status === "waiting") refreshDetail().catch(() => {});
  }, 3000);
  window.addEventListener("online", () => {
    if (!socket || socket.readyState === WebSocket.CLOSED) connect();
  });
}

start();
