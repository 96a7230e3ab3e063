import { api, deviceId, ensureSession, esc, me, seatLabel, toast, when } from "./api.js";
import { _, fmt } from "./i18n.js";

const OPEN = () => `<em>${esc(_("open"))}</em>`;
const muted = (text) => `<span class="muted">${esc(text)}</span>`;

function seatsSummary(game) {
  return game.seats.map((s) => (s.name ? esc(seatLabel(s)) : OPEN())).join(", ");
}

function rulesSummary(rules) {
  const passing = { left: _("always left"), off: _("no passing") };
  const bits = [fmt(_("%(players)s players"), { players: rules.players }), fmt(_("to %(score)s"), { score: rules.end_score })];
  if (rules.passing && rules.passing !== "cycle") bits.push(passing[rules.passing] || rules.passing);
  if (rules.jack_of_diamonds) bits.push("J♦ −10");
  if (rules.black_maria) bits.push("Black Maria");
  return bits.join(" · ");
}

function gameRow(game, action) {
  const time = game.turn_seconds ? fmt(_("%(seconds)s s turns"), { seconds: game.turn_seconds }) : _("no turn limit");
  return `<li class="game-row"><span><strong>${esc(fmt(_("Table %(id)s"), { id: game.id }))}</strong> · ${esc(rulesSummary(game.rules))} · ${esc(time)}
    · <a href="/tables/${game.id}/rules/">${esc(_("Rules"))}</a>
    ${game.ranked ? `<span class="badge">${esc(_("ranked"))}</span>` : ""}<br><span class="muted">${seatsSummary(game)}</span></span>
    ${action}</li>`;
}

async function loadLists() {
  const mine = me();
  const [open, live, finished] = await Promise.all([
    api("/api/games/?status=waiting"), api("/api/games/?status=active"), api("/api/games/?status=finished"),
  ]);
  const openBox = document.getElementById("open-tables");
  openBox.innerHTML = open.results.length
    ? `<ul class="games">${open.results.map((g) => {
      const seated = mine && g.seats.some((s) => s.player_id === mine.player_id);
      const action = seated
        ? `<a class="button" href="/tables/${g.id}/">${esc(_("Go to your seat"))}</a>`
        : `<button type="button" data-join="${g.id}" class="primary">${esc(fmt(_("Join table %(id)s"), { id: g.id }))}</button>`;
      return gameRow(g, action);
    }).join("")}</ul>`
    : `<p class="muted">${esc(_("No table is waiting for players. Create one above."))}</p>`;
  document.getElementById("live-tables").innerHTML = live.results.length
    ? `<ul class="games">${live.results.slice(0, 20).map((g) => {
      const seated = mine && g.seats.some((s) => s.player_id === mine.player_id);
      if (!seated && !g.watchable) return gameRow(g, muted(_("Round in play: watch it when it is over")));
      return gameRow(g, `<a class="button" href="/tables/${g.id}/">${esc(seated ? _("Back to your seat") : _("Watch"))}</a>`);
    }).join("")}</ul>`
    : `<p class="muted">${esc(_("No game in play."))}</p>`;
  document.getElementById("finished-tables").innerHTML = finished.results.length
    ? `<ul class="games">${finished.results.slice(0, 20).map((g) =>
      gameRow(g, g.watchable
        ? `<a class="button" href="/games/${g.id}/replay/">${esc(_("Replay"))}</a> <span class="muted">${when(g.finished_at)}</span>`
        : muted(_("Replay once its round is over"))),
    ).join("")}</ul>`
    : `<p class="muted">${esc(_("No finished game yet."))}</p>`;
}

async function loadInvitations() {
  const box = document.getElementById("invitations");
  if (!box || !me()) return;
  const { results } = await api("/api/invitations/");
  const pending = results.filter((i) => i.status === "pending");
  box.hidden = !pending.length;
  box.innerHTML = pending.length
    ? `<h2>${esc(_("Invitations"))}</h2><ul class="games">${pending.map((i) => `<li class="game-row"><span><strong>${esc(fmt(_("Table %(id)s"), { id: i.game }))}</strong>,
      ${esc(fmt(_("seat %(number)s · invited by %(name)s · until %(when)s"), { number: i.seat + 1, name: i.invited_by || "?", when: when(i.expires_at) }))}</span>
      <span><button type="button" class="primary" data-accept="${i.id}" data-game="${i.game}">${esc(_("Sit down"))}</button>
      <button type="button" data-decline="${i.id}">${esc(_("Decline"))}</button></span></li>`).join("")}</ul>`
    : "";
}

async function answerInvitation(id, accept, game) {
  try {
    await api(`/api/invitations/${id}/${accept ? "accept" : "decline"}/`,
      { method: "POST", body: accept ? { device_id: deviceId() } : {} });
    if (accept) window.location.assign(`/tables/${game}/`);
    else await loadInvitations();
  } catch (error) {
    toast(error.message);
  }
}

async function createTable(body) {
  await ensureSession();
  const game = await api("/api/games/", { method: "POST", body: { ...body, device_id: deviceId() } });
  window.location.assign(`/tables/${game.id}/`);
}

function formBody(form) {
  const data = new FormData(form);
  const players = Number(data.get("players"));
  const cpus = Math.min(Number(data.get("cpus")), players);
  const rules = {
    players, end_score: Number(data.get("end_score")) || 100, passing: data.get("passing"),
    moon: data.get("moon"), leftover: players === 4 ? "remove" : data.get("leftover"),
  };
  for (const flag of ["jack_of_diamonds", "black_maria", "hearts_any_time", "queen_breaks_hearts", "no_points_first_trick"]) {
    rules[flag] = data.get(flag) === "on";
  }
  const seats = [];
  if (cpus < players) seats.push({ kind: "me" });
  while (seats.length < players - cpus) seats.push({ kind: "open" });
  while (seats.length < players) seats.push({ kind: "cpu", bot: data.get("bot") });
  const turn = data.get("turn_seconds");
  return { rules, seats, turn_seconds: turn ? Number(turn) : null };
}

function showError(error) {
  const detail = error.body && error.body.errors ? ` ${JSON.stringify(error.body.errors)}` : "";
  toast(`${error.message}${detail}`);
}

document.getElementById("play-cpu").addEventListener("click", async (event) => {
  event.currentTarget.disabled = true;
  try {
    await createTable({ rules: { players: 4 }, seats: [{ kind: "me" }, ...Array(3).fill({ kind: "cpu", bot: "rule" })] });
  } catch (error) {
    showError(error);
    event.target.disabled = false;
  }
});

document.getElementById("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await createTable(formBody(event.currentTarget));
  } catch (error) {
    showError(error);
  }
});

document.getElementById("open-tables").addEventListener("click", async (event) => {
  const button = event.target.closest("[data-join]");
  if (!button) return;
  try {
    await ensureSession();
    await api(`/api/games/${button.dataset.join}/join/`, { method: "POST", body: { device_id: deviceId() } });
    window.location.assign(`/tables/${button.dataset.join}/`);
  } catch (error) {
    showError(error);
  }
});

document.getElementById("invitations").addEventListener("click", (event) => {
  const accept = event.target.closest("[data-accept]");
  const decline = event.target.closest("[data-decline]");
  if (accept) answerInvitation(accept.dataset.accept, true, accept.dataset.game);
  else if (decline) answerInvitation(decline.dataset.decline, false);
});

loadLists().catch(showError);
loadInvitations().catch(() => {});
setInterval(() => {
  loadLists().catch(() => {});
  loadInvitations().catch(() => {});
}, 10000);

const left = new URLSearchParams(location.search).get("left");
if (left && /^\d+$/.test(left)) {
  toast(fmt(_("You left table %(number)s. If its game goes on, a CPU plays your seat until you open the table again."),
    { number: left }));
}
