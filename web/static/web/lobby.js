import { api, deviceId, ensureSession, esc, me, seatLabel, toast, when } from "./api.js";

function seatsSummary(game) {
  return game.seats.map((s) => (s.name ? esc(seatLabel(s)) : "<em>open</em>")).join(", ");
}

function rulesSummary(rules) {
  const bits = [`${rules.players} players`, `to ${rules.end_score}`];
  if (rules.passing && rules.passing !== "cycle") bits.push(`passing ${rules.passing}`);
  if (rules.jack_of_diamonds) bits.push("J♦ −10");
  if (rules.black_maria) bits.push("Black Maria");
  return bits.join(" · ");
}

function gameRow(game, action) {
  const time = game.turn_seconds ? `${game.turn_seconds} s turns` : "no turn limit";
  return `<li class="game-row"><span><strong>Table ${game.id}</strong> · ${esc(rulesSummary(game.rules))} · ${time}
    ${game.ranked ? '<span class="badge">ranked</span>' : ""}<br><span class="muted">${seatsSummary(game)}</span></span>
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
        ? `<a class="button" href="/tables/${g.id}/">Go to your seat</a>`
        : `<button type="button" data-join="${g.id}" class="primary">Join table ${g.id}</button>`;
      return gameRow(g, action);
    }).join("")}</ul>`
    : '<p class="muted">No table is waiting for players. Create one above.</p>';
  document.getElementById("live-tables").innerHTML = live.results.length
    ? `<ul class="games">${live.results.slice(0, 20).map((g) => {
      const seated = mine && g.seats.some((s) => s.player_id === mine.player_id);
      if (!seated && !g.watchable) return gameRow(g, '<span class="muted">Round in play: watch it when it is over</span>');
      return gameRow(g, `<a class="button" href="/tables/${g.id}/">${seated ? "Back to your seat" : "Watch"}</a>`);
    }).join("")}</ul>`
    : '<p class="muted">No game in play.</p>';
  document.getElementById("finished-tables").innerHTML = finished.results.length
    ? `<ul class="games">${finished.results.slice(0, 20).map((g) =>
      gameRow(g, g.watchable
        ? `<a class="button" href="/games/${g.id}/replay/">Replay</a> <span class="muted">${when(g.finished_at)}</span>`
        : '<span class="muted">Replay once its round is over</span>'),
    ).join("")}</ul>`
    : '<p class="muted">No finished game yet.</p>';
}

async function loadInvitations() {
  const box = document.getElementById("invitations");
  if (!box || !me()) return;
  const { results } = await api("/api/invitations/");
  const pending = results.filter((i) => i.status === "pending");
  box.hidden = !pending.length;
  box.innerHTML = pending.length
    ? `<h2>Invitations</h2><ul class="games">${pending.map((i) => `<li class="game-row"><span><strong>Table ${i.game}</strong>,
      seat ${i.seat + 1} · invited by ${esc(i.invited_by || "?")} · until ${when(i.expires_at)}</span>
      <span><button type="button" class="primary" data-accept="${i.id}" data-game="${i.game}">Sit down</button>
      <button type="button" data-decline="${i.id}">Decline</button></span></li>`).join("")}</ul>`
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
  toast(`You left table ${left}. If its game goes on, a CPU plays your seat until you open the table again.`);
}
