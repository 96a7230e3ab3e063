// A player: ratings in every pool and the rating history drawn as an inline SVG chart.
import { api, apiAll, esc, when } from "./api.js";
import { _, fmt, word } from "./i18n.js";

const root = document.getElementById("player");
const id = Number(root.dataset.player);
const $ = (name) => document.getElementById(name);
const SVG = "http://www.w3.org/2000/svg";

// Runs of consecutive indexes where flags[i] is true, as [first, last] pairs.
function runs(flags) {
  const found = [];
  flags.forEach((flag, i) => {
    if (!flag) return;
    if (found.length && found[found.length - 1][1] === i - 1) found[found.length - 1][1] = i;
    else found.push([i, i]);
  });
  return found;
}

function chart(history) {
  const box = $("chart");
  if (!history.length) {
    box.innerHTML = `<p class="muted">${esc(_("No rated game yet."))}</p>`;
    return;
  }
  // A player is provisional before their first game; after each game the API says whether they still were.
  const points = [{ mu: history[0].mu_before, sigma: history[0].sigma_before, label: _("start"), provisional: Boolean(history[0].provisional) },
    ...history.map((h) => ({ mu: h.mu_after, sigma: h.sigma_after, label: when(h.played_at), game: h.game, provisional: Boolean(h.provisional) }))];
  const width = 720;
  const height = 280;
  const pad = { left: 48, right: 16, top: 16, bottom: 32 };
  const lows = points.map((p) => p.mu - p.sigma);
  const highs = points.map((p) => p.mu + p.sigma);
  let min = Math.floor(Math.min(...lows));
  let max = Math.ceil(Math.max(...highs));
  if (max - min < 2) { min -= 1; max += 1; }
  const step = points.length === 1 ? 0 : (width - pad.left - pad.right) / (points.length - 1);
  const x = (i) => pad.left + i * step;
  const y = (v) => pad.top + ((max - v) * (height - pad.top - pad.bottom)) / (max - min);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mu).toFixed(1)}`).join(" ");
  const band = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mu + p.sigma).toFixed(1)}`).join(" ")
    + " " + [...points].reverse().map((p, j) => `L${x(points.length - 1 - j).toFixed(1)},${y(p.mu - p.sigma).toFixed(1)}`).join(" ") + " Z";
  const ticks = [min, (min + max) / 2, max].map((v) => `<line class="axis" x1="${pad.left}" x2="${width - pad.right}" y1="${y(v)}" y2="${y(v)}" stroke-dasharray="3 4"/>
    <text x="${pad.left - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(1)}</text>`).join("");
  // The provisional stretch: shaded behind the line, from half a step before its first point to half a step after its last.
  const stretches = runs(points.map((p) => p.provisional)).map(([first, last], n) => {
    const left = Math.max(pad.left - 8, x(first) - step / 2);
    const right = Math.min(width - pad.right, x(last) + (last === points.length - 1 ? 0 : step / 2));
    return `<rect class="provisional" x="${left.toFixed(1)}" y="${pad.top}" width="${Math.max(4, right - left).toFixed(1)}" height="${height - pad.top - pad.bottom}" fill="#5b6670" fill-opacity="0.12"><title>${esc(_("Provisional: too few games, or too uncertain, to be ranked"))}</title></rect>`
      + (n === 0 ? `<text x="${(left + 4).toFixed(1)}" y="${pad.top + 14}">${esc(_("provisional"))}</text>` : "");
  }).join("");
  const provisionalGames = history.filter((h) => h.provisional).length;
  const last = points[points.length - 1];
  const first = points[0];
  box.innerHTML = `<svg xmlns="${SVG}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc">
    <title id="chart-title">${esc(_("Rating (μ) after each rated game, with ±σ shaded and the provisional stretch marked"))}</title>
    <desc id="chart-desc">${esc(fmt(_("%(games)s rated games: from %(first)s to %(last)s. Provisional after %(provisional)s of them."), {
    games: history.length, first: first.mu.toFixed(1), last: last.mu.toFixed(1), provisional: provisionalGames }))}</desc>
    ${stretches}${ticks}<path class="band" d="${band}"/><path class="line" d="${line}"/>
    ${points.map((p, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(p.mu).toFixed(1)}" r="3.5" fill="${p.provisional ? "#fff" : "#b3122e"}" stroke="#b3122e" stroke-width="1.5"${p.provisional ? ' data-provisional=""' : ""}><title>${esc(p.label)}: ${p.mu.toFixed(2)} ± ${p.sigma.toFixed(2)}${p.provisional ? ` (${esc(_("provisional"))})` : ""}</title></circle>`).join("")}
    <text x="${pad.left}" y="${height - 8}">${esc(_("first game"))}</text><text x="${width - pad.right}" y="${height - 8}" text-anchor="end">${esc(_("latest"))}</text>
  </svg>`;
}

async function start() {
  const player = await api(`/api/players/${id}/`);
  $("p-name").textContent = player.display_name;
  document.title = `${player.display_name} · Hearts League`;
  const ratings = await api(`/api/players/${id}/ratings?pool=global`);
  const history = [...ratings.results].reverse(); // the API lists newest first
  $("ratings").innerHTML = ratings.ratings.length
    ? `<div class="scroll"><table><thead><tr><th scope="col">${esc(_("Pool"))}</th><th scope="col">μ − 3σ</th><th scope="col">μ ± σ</th><th scope="col">${esc(_("Games"))}</th></tr></thead>
      <tbody>${ratings.ratings.map((r) => `<tr><th scope="row">${esc(r.league_name || _("Global"))}${r.provisional ? ` <span class="badge">${esc(_("provisional"))}</span>` : ""}</th>
      <td>${r.conservative.toFixed(1)}</td><td>${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}</td><td>${r.games}</td></tr>`).join("")}</tbody></table></div>`
    : `<p class="muted">${esc(_("Not rated yet: ratings come from ranked games."))}</p>`;
  chart(history);
  const games = (await apiAll(`/api/players/${id}/games`, 1)).slice(0, 20);
  $("games").innerHTML = games.length
    ? `<ul class="games">${games.map((g) => `<li class="game-row"><span>${esc(fmt(_("Game %(id)s"), { id: g.id }))} · ${esc(word(g.status))}${g.ranked ? ` <span class="badge">${esc(_("ranked"))}</span>` : ""}
      <br><span class="muted">${g.seats.map((s) => esc(s.name || _("open"))).join(", ")}</span></span>
      ${g.status === "finished" ? `<a class="button" href="/games/${g.id}/replay/">${esc(_("Replay"))}</a>` : `<a class="button" href="/tables/${g.id}/">${esc(_("Table"))}</a>`}</li>`).join("")}</ul>`
    : `<p class="muted">${esc(_("No games yet."))}</p>`;
}

start().catch((error) => {
  $("error").textContent = error.status === 404 ? _("There is no such player.") : error.message;
});
