import { api, apiAll, esc, when } from "./api.js";
import { _, fmt } from "./i18n.js";

const pool = document.getElementById("pool");
const box = document.getElementById("leaderboard");

// "3–9": the ranks the player could hold given everyone's σ (the API's rank_range); "3" when it is one rank.
function rankRange(r) {
  if (!r.rank_range) return "–";
  const [best, worst] = r.rank_range;
  return best === worst ? String(best) : `${best}–${worst}`;
}

function rows(list, ranked) {
  return list.map((r) => `<tr><td>${ranked ? r.rank : "–"}</td><td>${ranked ? rankRange(r) : "–"}</td><th scope="row"><a href="/players/${r.player_id}/">${esc(r.name)}</a></th>
    <td>${r.conservative.toFixed(1)}</td><td>${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}</td><td>${r.games}</td>
    <td>${when(r.last_played_at)}</td></tr>`).join("");
}

function tableOf(list, ranked, caption) {
  return `<div class="scroll"><table><caption>${esc(caption)}</caption><thead><tr><th scope="col">${esc(_("Rank"))}</th>
    <th scope="col"><abbr title="${esc(_("The ranks this player could hold given everyone's uncertainty (σ): their μ ± 1.39σ against everyone else's"))}">${esc(_("Rank range"))}</abbr></th><th scope="col">${esc(_("Player"))}</th>
    <th scope="col">${esc(_("Rating (μ − 3σ)"))}</th><th scope="col">μ ± σ</th><th scope="col">${esc(_("Games"))}</th><th scope="col">${esc(_("Last played"))}</th></tr></thead>
    <tbody>${rows(list, ranked)}</tbody></table></div>`;
}

async function load() {
  const league = pool.value;
  const url = league ? `/api/leagues/${league}/leaderboard` : "/api/leaderboard";
  const params = new URL(location.href);
  if (league) params.searchParams.set("league", league);
  else params.searchParams.delete("league");
  history.replaceState(null, "", params);
  try {
    const board = await api(url);
    box.innerHTML = (board.ranked.length ? tableOf(board.ranked, true, _("Ranked players")) : `<p class="muted">${esc(_("Nobody is ranked yet."))}</p>`)
      + (board.provisional.length ? tableOf(board.provisional, false, fmt(_("Provisional (fewer than %(games)s games, or too uncertain)"), { games: board.provisional_games })) : "");
  } catch (error) {
    box.innerHTML = "";
    document.getElementById("error").textContent = error.message;
  }
}

async function start() {
  const leagues = await apiAll("/api/leagues/").catch(() => []);
  pool.insertAdjacentHTML("beforeend", leagues.map((l) => `<option value="${l.id}">${esc(l.name)}</option>`).join(""));
  pool.value = new URL(location.href).searchParams.get("league") || "";
  pool.addEventListener("change", load);
  await load();
}

start();
