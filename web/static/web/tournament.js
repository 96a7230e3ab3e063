// A tournament: standings, rounds and each round's tables, with links to every table's replay.
import { api, cpuName, esc, me, when } from "./api.js";
import { followBoard } from "./board.js";
import { _, fmt, word } from "./i18n.js";

const root = document.getElementById("tournament");
const id = Number(root.dataset.tournament);
const $ = (name) => document.getElementById(name);
const num = (x) => (x === null || x === undefined ? "–" : Number.isInteger(x) ? String(x) : x.toFixed(2));

function standingsTable(lines) {
  if (!lines.length) return `<p class="muted">${esc(_("No results yet."))}</p>`;
  const matchpoints = lines.some((l) => l.matchpoints !== null);
  return `<div class="scroll"><table id="standings-table"><caption class="visually-hidden">${esc(_("Standings"))}</caption><thead><tr>
    <th scope="col">${esc(_("Rank"))}</th><th scope="col">${esc(_("Player"))}</th><th scope="col">${esc(_("Table points"))}</th><th scope="col">${esc(_("Hearts points"))}</th>
    ${matchpoints ? `<th scope="col">${esc(_("Matchpoints"))}</th>` : ""}<th scope="col">${esc(_("Opponents"))}</th><th scope="col">${esc(_("Games"))}</th></tr></thead>
    <tbody>${lines.map((l) => `<tr${l.withdrawn ? ' class="current"' : ""}><td>${esc(l.rank_label)}</td>
      <th scope="row"><a href="/players/${l.player_id}/">${esc(l.name)}</a>${l.withdrawn ? ` <span class="badge">${esc(_("withdrawn"))}</span>` : ""}</th>
      <td>${num(l.table_points)}</td><td>${l.hearts_points}</td>${matchpoints ? `<td>${num(l.matchpoints)}</td>` : ""}
      <td>${num(l.opponents_strength)}</td><td>${l.games}</td></tr>`).join("")}</tbody></table></div>`;
}

function tablesList(tables) {
  if (!tables.length) return `<p class="muted">${esc(_("No tables."))}</p>`;
  return `<ul class="games">${tables.map((t) => {
    const results = new Map((t.results || []).map((r) => [r.seat, r]));
    const seats = t.seats.map((s) => {
      const r = results.get(s.seat);
      return `<a href="/players/${s.player_id}/">${esc(s.cpu_fill ? cpuName(s.name) : s.name)}</a>${r ? ` ${esc(fmt(_("%(points)s pts, %(table)s tp"), { points: r.hearts_points, table: num(r.table_points) }))}` : ""}`;
    }).join(" · ");
    const link = !t.game ? "" : t.status === "finished"
      ? `<a class="button" href="/games/${t.game}/replay/">${esc(fmt(_("Replay table %(number)s"), { number: t.number }))}</a>`
      : `<a class="button" href="/tables/${t.game}/">${esc(fmt(_("Watch table %(number)s"), { number: t.number }))}</a>`;
    const rules = t.game ? ` · <a href="/tables/${t.game}/rules/">${esc(_("Rules"))}</a>` : "";
    return `<li class="game-row"><span><strong>${esc(fmt(_("Table %(number)s"), { number: t.number }))}</strong> · ${esc(word(t.status))}${rules}<br><span class="muted">${seats}</span></span>${link}</li>`;
  }).join("")}</ul>`;
}

async function start() {
  const [tournament, standings, rounds] = await Promise.all([
    api(`/api/tournaments/${id}/`), api(`/api/tournaments/${id}/standings/`), api(`/api/tournaments/${id}/rounds/`),
  ]);
  document.title = `${tournament.name} · Hearts League`;
  $("t-name").textContent = tournament.name;
  $("t-meta").textContent = [word(tournament.format), word(tournament.status),
    tournament.players_count != null ? fmt(_("%(players)s players"), { players: tournament.players_count }) : "",
    fmt(_("%(played)s of %(planned)s rounds"), { played: rounds.length, planned: tournament.rounds_planned }),
    when(tournament.started_at)].filter(Boolean).join(" · ");
  $("standings").innerHTML = standingsTable(standings);
  if (!rounds.length) {
    $("rounds").innerHTML = `<p class="muted">${esc(_("No round has been drawn yet."))}</p>`;
    return;
  }
  const tables = await Promise.all(rounds.map((r) => api(`/api/tournaments/${id}/rounds/${r.number}/tables/`)));
  $("rounds").innerHTML = rounds.map((r, i) => `<section class="round" aria-labelledby="round-${r.number}">
      <h3 id="round-${r.number}">${esc(fmt(r.is_final ? _("Round %(number)s (final)") : _("Round %(number)s"), { number: r.number }))} · ${esc(word(r.status))}</h3>${tablesList(tables[i])}</section>`).join("");
}

start().catch((error) => {
  $("error").textContent = error.status === 404 ? _("There is no such tournament.") : error.message;
  $("standings").innerHTML = "";
  $("rounds").innerHTML = "";
});

// Where I sit: pushed over the tournament's socket when a round is seated or starts.
let shownRound = null;
followBoard(id, (board) => {
  const mine = me();
  const you = $("you");
  const key = board.round ? `${board.round.number}:${board.round.status}:${board.tables.map((t) => t.status).join()}` : "";
  if (shownRound !== null && key !== shownRound) start().catch(() => {});
  shownRound = key;
  const table = mine && board.round && board.round.status !== "finished"
    ? board.tables.find((t) => t.seats.some((s) => s.player_id === mine.player_id && !s.cpu_fill)) : null;
  if (!table) {
    you.hidden = true;
    return;
  }
  const seat = table.seats.find((s) => s.player_id === mine.player_id).seat;
  you.hidden = false;
  you.dataset.table = String(table.number);
  you.dataset.seat = String(seat + 1);
  const where = esc(fmt(_("You: table %(table)s, seat %(seat)s"), { table: table.number, seat: seat + 1 }));
  you.innerHTML = table.game && table.status === "playing"
    ? `<strong>${where}</strong> · <a class="button primary" href="/tables/${table.game}/">${esc(_("Go to your table"))}</a>`
    : `<strong>${where}</strong> · ${esc(table.status === "finished" ? _("your table has finished") : _("the round starts soon"))}`;
});
