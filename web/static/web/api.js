// The public REST API, same-origin: the session cookie authenticates, the csrftoken cookie
// goes back in X-CSRFToken on every write. A visitor without an account becomes a guest bound
// to this device (POST /api/auth/guest) when it first sits down, then /web/session logs the
// browser's session in.

import { _, fmt, lang } from "./i18n.js";

const DEVICE_KEY = "hearts.device_id";

export function deviceId() {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!id) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    id = "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

function cookie(name) {
  const found = document.cookie.split("; ").find((part) => part.startsWith(name + "="));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.message)) || fmt(_("Request failed (%(status)s)"), { status }));
    this.status = status;
    this.body = body || {};
    this.code = this.body.code || this.body.error || String(status);
  }
}

export async function api(path, { method = "GET", body, headers = {} } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
  if (method !== "GET" && method !== "HEAD") {
    init.headers["X-CSRFToken"] = cookie("csrftoken");
  }
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new ApiError(response.status, typeof data === "object" ? data : { detail: data });
  return data;
}

// Everything of a paginated list (follows `next`; a plain list is returned as it is).
export async function apiAll(path, maxPages = 20) {
  let data = await api(path);
  if (Array.isArray(data)) return data;
  const rows = [...(data.results || [])];
  for (let page = 1; data.next && page < maxPages; page++) {
    data = await api(data.next);
    rows.push(...(data.results || []));
  }
  return rows;
}

export function me() {
  const id = document.body.dataset.playerId;
  return id ? { player_id: Number(id), display_name: document.body.dataset.playerName } : null;
}

// Make sure the browser's session belongs to a player: a guest for this device if need be.
// Only an action that needs a player (sitting down, creating a table) calls it: watching a
// table or a replay creates nothing.
export async function ensureSession() {
  const current = me();
  if (current) return current;
  const guest = await api("/api/auth/guest", { method: "POST", body: { device_id: deviceId() } });
  const session = await api("/web/session", { method: "POST", body: { token: guest.token } });
  document.body.dataset.playerId = session.player_id;
  document.body.dataset.playerName = session.display_name;
  document.body.dataset.guest = String(session.is_guest);
  showWho();
  askName(); // first visit: offer to pick the name the tables show (never blocks the action)
  return { player_id: session.player_id, display_name: session.display_name };
}

const NAMED_KEY = "hearts.name_asked";

function showWho() {
  const who = document.getElementById("who");
  const current = me();
  if (!who || !current) return;
  const guest = document.body.dataset.guest === "true";
  who.querySelector(".sign-in")?.remove();
  let box = who.querySelector(".who-name");
  if (!box) {
    box = document.createElement("span");
    box.className = "who-name";
    who.prepend(box);
  }
  box.innerHTML = `<a href="/players/${current.player_id}/">${esc(current.display_name)}</a>${guest
    ? ` <span class="badge">${esc(_("guest"))}</span> <button type="button" class="link" data-rename>${esc(_("Change name"))}</button>` : ""}`;
}

// The name panel (base.html): shown once to a new guest, and whenever "Change name" is pressed.
export function askName({ focus = false } = {}) {
  const panel = document.getElementById("name-panel");
  if (!panel || !me()) return;
  panel.hidden = false;
  const input = panel.querySelector("input");
  input.value = document.body.dataset.guest === "true" && /^Guest /.test(me().display_name) ? "" : me().display_name;
  panel.querySelector(".error").textContent = "";
  if (focus) input.focus(); // asked for; on a first visit the panel waits without taking the focus
}

async function saveName(event) {
  event.preventDefault();
  const panel = document.getElementById("name-panel");
  const name = panel.querySelector("input").value;
  try {
    const player = await api("/api/players/me/", { method: "PATCH", body: { display_name: name } });
    document.body.dataset.playerName = player.display_name;
    localStorage.setItem(NAMED_KEY, "1");
    panel.hidden = true;
    showWho();
    toast(fmt(_("The tables now call you %(name)s."), { name: player.display_name }));
    document.dispatchEvent(new CustomEvent("hearts:renamed", { detail: player }));
  } catch (error) {
    const field = error.body && error.body.errors && error.body.errors.display_name;
    panel.querySelector(".error").textContent = field ? [].concat(field).join(" ") : error.message;
  }
}

function setUpNamePanel() {
  const panel = document.getElementById("name-panel");
  if (!panel) return;
  panel.querySelector("form").addEventListener("submit", saveName);
  panel.querySelector("[data-name-later]").addEventListener("click", () => {
    localStorage.setItem(NAMED_KEY, "1");
    panel.hidden = true;
  });
  document.getElementById("who")?.addEventListener("click", (event) => {
    if (event.target.closest("[data-rename]")) askName({ focus: true });
  });
  // A guest made on an earlier page (e.g. the lobby's "Play against the CPU") is asked here.
  if (me() && document.body.dataset.guest === "true" && !localStorage.getItem(NAMED_KEY)) askName();
}

setUpNamePanel();

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function toast(message) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
}

export function when(iso) {
  if (!iso) return "";
  return new Date(iso).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

const BOTS = { random: _("random"), rule: _("rule"), montecarlo: _("montecarlo") };

// A seat's player's name; a CPU with its default name ("CPU (rule)") is named in the page's language.
export function playerName(entry) {
  if (entry && entry.cpu && entry.bot && entry.name === `CPU (${entry.bot})`) {
    return fmt(_("CPU (%(kind)s)"), { kind: BOTS[entry.bot] || entry.bot });
  }
  return entry ? entry.name : "";
}

// CPU players are called by strength (their seats carry ``bot``).
export const BOT_NAMES = { random: _("Easy CPU"), rule: _("Medium CPU"), montecarlo: _("Hard CPU") };

export function seatLabel(entry) {
  if (!entry || !entry.name) return "";
  return entry.cpu ? BOT_NAMES[entry.bot] || playerName(entry) : entry.name;
}

// A CPU player's stored name ("CPU (rule)") as the pages say it ("Medium CPU").
export function cpuName(name) {
  const found = /^CPU \((\w+)\)$/.exec(name || "");
  return found && BOT_NAMES[found[1]] ? BOT_NAMES[found[1]] : name;
}

// Several seats may hold the same CPU player: number them so they can be told apart.
export function seatNames(seats, count) {
  const names = Array.from({ length: count }, (_unused, seat) => {
    const entry = seats.find((s) => s.seat === seat);
    return seatLabel(entry) || fmt(_("Seat %(number)s"), { number: seat + 1 });
  });
  return names.map((name, seat) => (names.filter((n) => n === name).length > 1 ? `${name} #${seat + 1}` : name));
}
