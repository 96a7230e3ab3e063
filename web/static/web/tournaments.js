import { apiAll, esc, when } from "./api.js";
import { _, fmt, word } from "./i18n.js";

const box = document.getElementById("tournaments");

async function start() {
  const rows = await apiAll("/api/tournaments/");
  box.innerHTML = rows.length
    ? `<ul class="games">${rows.map((t) => `<li class="game-row"><span><a href="/tournaments/${t.id}/"><strong>${esc(t.name)}</strong></a>
        · ${esc(word(t.format))} · ${esc(word(t.status))}${t.players_count != null ? ` · ${esc(fmt(_("%(players)s players"), { players: t.players_count }))}` : ""}</span>
        <span class="muted">${when(t.started_at || t.created_at)}</span></li>`).join("")}</ul>`
    : `<p class="muted">${esc(_("No tournament yet."))}</p>`;
}

start().catch((error) => {
  box.innerHTML = `<p class="error" role="alert">${esc(error.message)}</p>`;
});
