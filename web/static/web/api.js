// The public REST API, same-origin: the session cookie authenticates, the csrftoken cookie
// goes back in X-CSRFToken on every write. A visitor without an account becomes a guest bound
// to this device (POST /api/auth/guest), then /web/session logs the browser's session in.

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
export async function ensureSession() {
  const current = me();
  if (current) return current;
  const guest = await api("/api/auth/guest", { method: "POST", body: { device_id: deviceId() } });
  const session = await api("/web/session", { method: "POST", body: { token: guest.token } });
  document.body.dataset.playerId = session.player_id;
  document.body.dataset.playerName = session.display_name;
  const who = document.getElementById("who");
  if (who) who.innerHTML = `<a href="/players/${session.player_id}/">${esc(session.display_name)}</a> <span class="badge">${esc(_("guest"))}</span>`;
  return { player_id: session.player_id, display_name: session.display_name };
}

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

// Several seats may hold the same CPU player: number them so they can be told apart.
export function seatNames(seats, count) {
  const names = Array.from({ length: count }, (_unused, seat) => {
    const entry = seats.find((s) => s.seat === seat);
    return playerName(entry) || fmt(_("Seat %(number)s"), { number: seat + 1 });
  });
  return names.map((name, seat) => (names.filter((n) => n === name).length > 1 ? `${name} #${seat + 1}` : name));
}
