// The projector screen: the standings and the round's tables, pushed over the tournament's
// socket. No controls; pages turn by themselves (40 standings lines, 10 tables a page).
import { esc } from "./api.js";
import { followBoard } from "./board.js";
import { _, fmt, word } from "./i18n.js";

const root = document.getElementById("screen");
const id = Number(root.dataset.tournament);
const $ = (name) => document.getElementById(name);
const LINES_PER_COLUMN = 20;
const LINES_PER_PAGE = 2 * LINES_PER_COLUMN;
const TABLES_PER_PAGE = 10;
const PAGE_SECONDS = Math.max(2, Number(new URLSearchParams(location.search).get("every")) || 12);  // ?every=20
const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

let board = null;
let page = 0;

function pages() {
  const out = [];
  const lines = board.standings;
  for (let i = 0; i < Math.max(lines.length, 1); i += LINES_PER_PAGE) out.push({ kind: "standings", from: i });
  const live = board.round && board.round.status !== "finished" ? board.tables : [];
  for (let i = 0; i < live.length; i += TABLES_PER_PAGE) out.push({ kind: "tables", from: i });
  return out;
}

function standingsColumn(lines) {
  return `<table><thead><tr><th class="num">#</th><th>${esc(_("Player"))}</th><th class="num">${esc(_("Pts"))}</th><th class="num">${esc(_("Hearts"))}</th><th class="num">${esc(_("Games"))}</th></tr></thead>
    <tbody>${lines.map((l) => `<tr><td class="num">${esc(l.rank_label)}</td><td class="name">${esc(l.name)}${l.withdrawn ? ` <span class="muted">${esc(_("(withdrawn)"))}</span>` : ""}</td>
      <td class="num">${num(l.table_points)}</td><td class="num">${l.hearts_points}</td><td class="num">${l.games}</td></tr>`).join("")}</tbody></table>`;
}

function render() {
  if (!board) return;
  $("s-name").textContent = board.tournament.name;
  document.title = fmt(_("%(name)s · screen"), { name: board.tournament.name });
  $("s-round").textContent = board.round
    ? `${fmt(_("Round %(n)s of %(planned)s"), { n: board.round.number, planned: board.tournament.rounds_planned })} · ${word(board.round.status)}` : _("Registration");
  const all = pages();
  const current = all[page % all.length];
  $("s-page").textContent = all.length > 1 ? `${(page % all.length) + 1} / ${all.length}` : "";
  root.dataset.page = current.kind;
  if (current.kind === "standings") {
    const lines = board.standings.slice(current.from, current.from + LINES_PER_PAGE);
    $("s-body").innerHTML = `<div class="standings" id="s-standings">${standingsColumn(lines.slice(0, LINES_PER_COLUMN))}
      ${lines.length > LINES_PER_COLUMN ? standingsColumn(lines.slice(LINES_PER_COLUMN)) : "<div></div>"}</div>`;
  } else {
    const tables = board.tables.slice(current.from, current.from + TABLES_PER_PAGE);
    $("s-body").innerHTML = `<div class="tables" id="s-tables">${tables.map((t) => {
      const acting = new Set(t.to_act || []);  // null at a sealed table: nothing of its play shown
      return `<article class="${t.status}${(t.waiting_on_absent || []).length ? " waiting" : ""}"><h2>${esc(fmt(_("Table %(n)s"), { n: t.number }))}
        <span class="muted">${esc(t.status === "finished" ? _("done") : t.status === "seated" || t.hand_number == null ? "" : fmt(_("hand %(n)s"), { n: t.hand_number }))}</span></h2>
        <ol>${t.seats.map((s) => `<li class="${acting.has(s.seat) ? "acting" : ""}"><span class="n">${esc(s.name)}${s.cpu_fill ? ` ${esc(_("(CPU)"))}` : ""}${s.away ? ` <span class="tag">${esc(_("away"))}</span>` : ""}</span>
          <span>${t.totals ? t.totals[s.seat] : ""}</span></li>`).join("")}</ol></article>`;
    }).join("")}</div>`;
  }
}

followBoard(id, (frame) => { board = frame; render(); }, (status) => {
  if (status === "missing") $("s-body").innerHTML = `<p class="muted">${esc(_("There is no such tournament."))}</p>`;
});
setInterval(() => { page += 1; render(); }, PAGE_SECONDS * 1000);
