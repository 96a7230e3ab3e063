// A tournament: standings, rounds and each round's tables, with links to every table's replay.
import { api, cpuName, esc, when } from "./api.js";

const root = document.getElementById("tournament");
const id = Number(root.dataset.tournament);
const $ = (name) => document.getElementById(name);
const num = (x) => (x === null || x === undefined ? "–" : Number.isInteger(x) ? String(x) : x.toFixed(2));

function standingsTable(lines) {
  if (!lines.length) return '<p class="muted">No results yet.</p>';
  const matchpoints = lines.some((l) => l.matchpoints !== null);
  return `<div class="scroll"><table id="standings-table"><caption class="visually-hidden">Standings</caption><thead><tr>
    <th scope="col">Rank</th><th scope="col">Player</th><th scope="col">Table points</th><th scope="col">Hearts points</th>
    ${matchpoints ? '<th scope="col">Matchpoints</th>' : ""}<th scope="col">Opponents</th><th scope="col">Games</th></tr></thead>
    <tbody>${lines.map((l) => `<tr${l.withdrawn ? ' class="current"' : ""}><td>${esc(l.rank_label)}</td>
      <th scope="row"><a href="/players/${l.player_id}/">${esc(l.name)}</a>${l.withdrawn ? ' <span class="badge">withdrawn</span>' : ""}</th>
      <td>${num(l.table_points)}</td><td>${l.hearts_points}</td>${matchpoints ? `<td>${num(l.matchpoints)}</td>` : ""}
      <td>${num(l.opponents_strength)}</td><td>${l.games}</td></tr>`).join("")}</tbody></table></div>`;
}

function tablesList(tables) {
  if (!tables.length) return '<p class="muted">No tables.</p>';
  return `<ul class="games">${tables.map((t) => {
    const results = new Map((t.results || []).map((r) => [r.seat, r]));
    const seats = t.seats.map((s) => {
      const r = results.get(s.seat);
      return `<a href="/players/${s.player_id}/">${esc(s.cpu_fill ? cpuName(s.name) : s.name)}</a>${r ? ` ${r.hearts_points} pts, ${num(r.table_points)} tp` : ""}`;
    }).join(" · ");
    const link = !t.game ? "" : t.status === "finished"
      ? `<a class="button" href="/games/${t.game}/replay/">Replay table ${t.number}</a>`
      : `<a class="button" href="/tables/${t.game}/">Watch table ${t.number}</a>`;
    return `<li class="game-row"><span><strong>Table ${t.number}</strong> · ${esc(t.status)}<br><span class="muted">${seats}</span></span>${link}</li>`;
  }).join("")}</ul>`;
}

async function start() {
  const [tournament, standings, rounds] = await Promise.all([
    api(`/api/tournaments/${id}/`), api(`/api/tournaments/${id}/standings/`), api(`/api/tournaments/${id}/rounds/`),
  ]);
  document.title = `${tournament.name} · Hearts League`;
  $("t-name").textContent = tournament.name;
  $("t-meta").textContent = [tournament.format, tournament.status, tournament.players_count != null ? `${tournament.players_count} players` : "",
    `${rounds.length} of ${tournament.rounds_planned} rounds`, when(tournament.started_at)].filter(Boolean).join(" · ");
  $("standings").innerHTML = standingsTable(standings);
  if (!rounds.length) {
    $("rounds").innerHTML = '<p class="muted">No round has been drawn yet.</p>';
    return;
  }
  const tables = await Promise.all(rounds.map((r) => api(`/api/tournaments/${id}/rounds/${r.number}/tables/`)));
  $("rounds").innerHTML = rounds.map((r, i) => `<section class="round" aria-labelledby="round-${r.number}">
      <h3 id="round-${r.number}">Round ${r.number}${r.is_final ? " (final)" : ""} · ${esc(r.status)}</h3>${tablesList(tables[i])}</section>`).join("");
}

start().catch((error) => {
  $("error").textContent = error.status === 404 ? "There is no such tournament." : error.message;
  $("standings").innerHTML = "";
  $("rounds").innerHTML = "";
});
