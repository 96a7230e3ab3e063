// The replay viewer: GET /api/games/{id}/replay/?at=N for each step (every hand shown once the
// game is over), the event list for trick and hand boundaries, and ?at=N in the page's own URL
// so that every step has a link of its own.
import { api, esc, seatNames } from "./api.js";
import { cardFace, cardLabel, cardSpan, sortHand } from "./cards.js";
import { _, fmt, ngettext } from "./i18n.js";

const DIRECTIONS = { left: _("to the left"), right: _("to the right"), across: _("across") };

const root = document.getElementById("replay");
const gameId = Number(root.dataset.game);
const $ = (id) => document.getElementById(id);
const POSITIONS = {
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

let game = null;
let events = [];
let at = 1;
const cache = new Map();
let loading = 0;

const nameOf = (seat) => seatNames(game.seats, game.players)[seat];

function describe(event) {
  if (!event) return "";
  const p = event.payload || {};
  switch (event.type) {
    case "GameStarted": return _("The game starts.");
    case "PlayersSeated": return _("The players sit down.");
    case "HandDealt": return p.pass_direction && p.pass_direction !== "none"
      ? fmt(_("Hand %(hand)s is dealt; pass %(direction)s."), { hand: p.hand_number, direction: DIRECTIONS[p.pass_direction] || p.pass_direction })
      : fmt(_("Hand %(hand)s is dealt."), { hand: p.hand_number });
    case "DealCommitted": return _("The deal is committed (its hash is published).");
    case "CardsPassed": return fmt(_("%(name)s passes %(cards)s."), { name: nameOf(p.seat), cards: (p.cards || []).map(cardFace).join(" ") });
    case "PassCompleted": return _("Everyone has passed; the cards change hands.");
    case "CardPlayed": return fmt(_("%(name)s plays the %(card)s."), { name: nameOf(p.seat), card: cardLabel(p.card) });
    case "TrickTaken": return fmt(ngettext("%(name)s takes trick %(trick)s (%(points)s point).", "%(name)s takes trick %(trick)s (%(points)s points).", p.points),
      { name: nameOf(p.winner), trick: p.trick_number, points: p.points });
    case "MoonChoiceRequested": return fmt(_("%(name)s shot the moon and chooses how to score it."), { name: nameOf(p.seat) });
    case "MoonChosen": return fmt(p.choice === "add_to_others" ? _("%(name)s chooses +26 for the others.") : _("%(name)s chooses −26 for themself."),
      { name: nameOf(p.seat) });
    case "HandScored": return fmt(_("Hand %(hand)s is scored: %(points)s."), { hand: p.hand_number, points: p.points.map((pt, s) => `${nameOf(s)} ${pt}`).join(", ") });
    case "GameEnded": return fmt(_("The game ends: %(name)s wins."), { name: nameOf(p.winner) });
    case "DealSaltRevealed": return _("The deal salts are revealed: anyone can check the deals.");
    case "SeatVacated": return fmt(_("%(name)s left; a CPU plays the seat."), { name: nameOf(p.seat) });
    case "SeatReclaimed": return fmt(_("%(name)s is back."), { name: nameOf(p.seat) });
    default: return event.type;
  }
}

async function fetchStep(n) {
  if (!cache.has(n)) cache.set(n, api(`/api/games/${gameId}/replay/?at=${n}`));
  try {
    return await cache.get(n);
  } catch (error) {
    cache.delete(n);
    throw error;
  }
}

async function go(n, { push = false } = {}) {
  n = Math.max(1, Math.min(game.seq, n));
  const ticket = ++loading;
  let step;
  try {
    step = await fetchStep(n);
  } catch (error) {
    $("error").textContent = error.message;
    return;
  }
  if (ticket !== loading) return; // a later click won
  at = n;
  $("error").textContent = "";
  const url = new URL(location.href);
  url.searchParams.set("at", String(at));
  history[push ? "pushState" : "replaceState"]({ at }, "", url);
  render(step);
  fetchStep(Math.min(game.seq, at + 1)).catch(() => {}); // the next step is likely next
}

function handOf(seq) {
  let current = null;
  for (const event of events) {
    if (event.seq > seq) break;
    if (event.type === "HandDealt") current = event;
  }
  return current;
}

function render(step) {
  const view = step.view;
  const n = game.players;
  root.dataset.at = String(at);
  root.dataset.last = String(game.seq);
  $("slider").max = String(game.seq);
  $("slider").value = String(at);
  $("position").textContent = fmt(_("Step %(at)s of %(last)s, hand %(hand)s: %(what)s"), {
    at, last: game.seq, hand: view.hand_number || 1, what: describe(step.event) });
  $("share").href = location.href;
  $("share").textContent = location.href;
  const hand = handOf(at);
  $("hand-select").value = hand ? String(hand.seq) : "";
  for (const button of root.querySelectorAll("[data-go]")) {
    const back = ["start", "prev", "prev-trick"].includes(button.dataset.go);
    button.disabled = back ? at <= 1 : at >= game.seq;
  }

  const seats = $("seats");
  seats.className = `seats seats-${n}`;
  seats.innerHTML = "";
  const played = new Set(view.trick.map((t) => t.card));
  for (let seat = 0; seat < n; seat++) {
    const div = document.createElement("div");
    const acting = view.to_act.includes(seat) && view.phase !== "game_over";
    div.className = `seat pos-${POSITIONS[n][seat]}${acting ? " acting" : ""}`;
    div.dataset.seat = String(seat);
    div.innerHTML = `<div class="seat-name">${esc(nameOf(seat))}</div>
      <div class="seat-info"><span>${esc(fmt(_("hand %(points)s"), { points: view.points_taken[seat] }))}</span><span>${esc(fmt(_("total %(points)s"), { points: view.totals[seat] }))}</span></div>`;
    const cards = document.createElement("div");
    cards.className = "cards";
    cards.setAttribute("aria-label", fmt(_("%(name)s's cards"), { name: nameOf(seat) }));
    const held = step.hands ? sortHand(step.hands[seat]) : [];
    for (const card of held) cards.appendChild(cardSpan(card, played.has(card) ? "played" : ""));
    if (!step.hands) cards.textContent = fmt(_("%(count)s cards (hidden until the game is over)"), { count: view.hand_counts[seat] });
    div.appendChild(cards);
    seats.appendChild(div);
  }

  const trick = $("trick");
  trick.innerHTML = "";
  let cards = view.trick;
  let caption = view.phase === "playing" && cards.length ? fmt(_("Trick %(number)s"), { number: view.trick_number }) : "";
  if (!cards.length && view.tricks.length && ["TrickTaken", "HandScored", "MoonChoiceRequested"].includes(step.event.type)) {
    const last = view.tricks[view.tricks.length - 1];
    cards = last.cards;
    caption = fmt(ngettext("%(name)s took trick %(trick)s (%(points)s point)", "%(name)s took trick %(trick)s (%(points)s points)", last.points),
      { name: nameOf(last.winner), trick: view.tricks.length, points: last.points });
  }
  $("trick-caption").textContent = caption;
  for (const play of cards) {
    const span = cardSpan(play.card, `at-${POSITIONS[n][play.seat]}`);
    span.setAttribute("aria-label", `${nameOf(play.seat)}: ${cardLabel(play.card)}`);
    trick.appendChild(span);
  }

  const names = Array.from({ length: n }, (_unused, s) => nameOf(s));
  const rows = view.hand_scores.map((h) => `<tr><th scope="row">${esc(fmt(_("Hand %(hand)s"), { hand: h.hand_number }))}</th>${h.points.map((p, s) =>
    `<td>${p}${h.shooter === s ? ` <span class="badge">${esc(_("moon"))}</span>` : ""}</td>`).join("")}</tr>`).join("");
  $("scores").innerHTML = `<div class="scroll"><table class="scores"><thead><tr><th scope="col">${esc(_("Hand"))}</th>
    ${names.map((name) => `<th scope="col">${esc(name)}</th>`).join("")}</tr></thead><tbody>${rows}</tbody>
    <tfoot><tr><th scope="row">${esc(_("Total"))}</th>${view.totals.map((t) => `<td>${t}</td>`).join("")}</tr></tfoot></table></div>`;
}

function target(kind) {
  const tricks = events.filter((e) => e.type === "TrickTaken").map((e) => e.seq);
  switch (kind) {
    case "start": return 1;
    case "end": return game.seq;
    case "prev": return at - 1;
    case "next": return at + 1;
    case "next-trick": return tricks.find((s) => s > at) ?? game.seq;
    case "prev-trick": return [...tricks].reverse().find((s) => s < at) ?? 1;
    default: return at;
  }
}

root.addEventListener("click", (event) => {
  const button = event.target.closest("[data-go]");
  if (button) go(target(button.dataset.go));
});
$("hand-select").addEventListener("change", (event) => go(Number(event.target.value)));
$("slider").addEventListener("change", (event) => go(Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === "ArrowRight") go(target(event.shiftKey ? "next-trick" : "next"));
  else if (event.key === "ArrowLeft") go(target(event.shiftKey ? "prev-trick" : "prev"));
});
window.addEventListener("popstate", () => go(Number(new URL(location.href).searchParams.get("at")) || 1));

async function start() {
  try {
    game = await api(`/api/games/${gameId}/`);
    if (!game.seq) {
      $("error").textContent = _("This game has not started yet.");
      return;
    }
    events = (await api(`/api/games/${gameId}/events/?after=0`)).events;
  } catch (error) {
    $("error").textContent = error.status === 404 ? _("There is no such game.") : error.message;
    return;
  }
  if (game.status !== "finished") {
    $("position").insertAdjacentHTML("beforebegin",
      `<p class="muted">${fmt(esc(_("This game is still being played: %(link)s. Hands are shown once it is over.")), {
        link: `<a href="/tables/${gameId}/">${esc(_("watch it live"))}</a>` })}</p>`);
  }
  $("hand-select").innerHTML = events.filter((e) => e.type === "HandDealt")
    .map((e) => `<option value="${e.seq}">${esc(fmt(_("Hand %(hand)s"), { hand: e.payload.hand_number }))}</option>`).join("");
  const requested = Number(new URL(location.href).searchParams.get("at"));
  const firstDeal = events.find((e) => e.type === "HandDealt");
  await go(requested || (firstDeal ? firstDeal.seq : 1));
}

start();
