// The replay's analysis panel: GET /api/games/{id}/analysis (polled while it runs), POST to
// start it. Shows the class of the decision at the replay's step and the better option, every
// flagged decision, a per-seat summary and each seat's expected points over the game (inline SVG).
// It reads the replay's step from #replay's data-at and moves it through the replay's slider.
import { api, ensureSession, esc, seatNames } from "./api.js";
import { cardFace } from "./cards.js";
import { _, fmt } from "./i18n.js";

const root = document.getElementById("replay");
const panel = document.getElementById("analysis");
const gameId = Number(root.dataset.game);
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#b3122e", "#2a7de1", "#1f6b45", "#8a5a00", "#6b3fa0"];
const GRADES = ["good", "inaccuracy", "mistake", "blunder"];
const POLL_MS = 1500;
const GRADE_WORDS = { good: _("good"), inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") };
const grade = (g) => `<span class="grade grade-${g}">${esc(GRADE_WORDS[g] || g)}</span>`;

let names = [];
let bySeq = new Map();

function option(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(cardFace).join(" ");
  if (value === "add_to_others") return _("+26 for the others");
  if (value === "subtract_from_self") return _("−26 for themself");
  return cardFace(value);
}

const points = (v) => (v === null || v === undefined ? "—" : v.toFixed(2));

function verdict(d) {
  const what = d.kind === "pass" ? _("%(name)s passes %(option)s") : d.kind === "play" ? _("%(name)s plays %(option)s")
    : _("%(name)s chooses %(option)s");
  const head = `${esc(fmt(what, { name: names[d.seat], option: option(d.taken) }))}: ${grade(d.grade)}`;
  if (d.forced) return `${head} ${esc(_("(forced: the only choice)"))}`;
  if (d.loss <= 0) {
    return `${head}, ${esc(fmt(_("the best option found (expected %(points)s points this hand)"), { points: points(d.taken_expected) }))}`;
  }
  return `${head}, ${esc(fmt(_("giving away %(loss)s expected points."), { loss: points(d.loss) }))} ${esc(_("Better:"))}
    <strong>${esc(option(d.best))}</strong> ${esc(fmt(_("(expected %(best)s against %(taken)s)"), {
    best: points(d.best_expected), taken: points(d.taken_expected) }))}`;
}

function showStep() {
  const box = $("analysis-step");
  if (!box || !bySeq.size) return;
  const d = bySeq.get(Number(root.dataset.at));
  box.innerHTML = d ? `${esc(_("At this step:"))} ${verdict(d)}` : `<span class="muted">${esc(_("No decision at this step."))}</span>`;
}

function goTo(seq) {
  const slider = $("slider");
  slider.value = String(seq);
  slider.dispatchEvent(new Event("change"));
}

function summary(rows) {
  return `<div class="scroll"><table class="scores"><thead><tr><th scope="col">${esc(_("Seat"))}</th><th scope="col">${esc(_("Decisions"))}</th>
    <th scope="col">${esc(_("Mean loss per decision"))}</th>${GRADES.map((g) => `<th scope="col">${esc(GRADE_WORDS[g])}</th>`).join("")}</tr></thead>
    <tbody>${rows.map((r) => `<tr data-seat="${r.seat}"><th scope="row">${esc(names[r.seat])}</th><td>${r.decisions}</td>
    <td>${r.mean_loss.toFixed(3)}</td>${GRADES.map((g) => `<td>${r.counts[g]}</td>`).join("")}</tr>`).join("")}</tbody></table></div>`;
}

function flagged(decisions) {
  const shown = decisions.filter((d) => d.grade !== "good");
  if (!shown.length) return `<p class="muted">${esc(_("Nothing flagged: every decision was within a point of the best found."))}</p>`;
  const heads = [_("Step"), _("Hand"), _("Seat"), _("Taken"), _("Class"), _("Better"), _("Loss")];
  return `<div class="scroll"><table class="flagged"><thead><tr>${heads.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead>
    <tbody>${shown.map((d) => `<tr data-seq="${d.seq}"><td><a href="?at=${d.seq}" data-step="${d.seq}">${d.seq}</a></td>
    <td>${d.hand_number}</td><td>${esc(names[d.seat])}</td><td>${esc(option(d.taken))}</td>
    <td>${grade(d.grade)}</td><td>${esc(option(d.best))}</td><td>${d.loss.toFixed(2)}</td></tr>`).join("")}
    </tbody></table></div>`;
}

// Each seat's expected game points after each of its decisions: its total before the hand plus the
// expected points this hand of the option taken (forced plays have no estimate and are skipped).
function chart(decisions, players) {
  const series = Array.from({ length: players }, () => []);
  decisions.forEach((d, i) => {
    if (d.taken_expected !== null) series[d.seat].push({ i, v: d.total_before + d.taken_expected, d });
  });
  const all = series.flat();
  if (!all.length) return "";
  const width = 720;
  const height = 280;
  const pad = { left: 48, right: 16, top: 16, bottom: 32 };
  const max = Math.max(1, Math.ceil(Math.max(...all.map((p) => p.v))));
  const x = (i) => pad.left + (i * (width - pad.left - pad.right)) / Math.max(1, decisions.length - 1);
  const y = (v) => pad.top + ((max - v) * (height - pad.top - pad.bottom)) / max;
  const ticks = [0, max / 2, max].map((v) => `<line class="axis" x1="${pad.left}" x2="${width - pad.right}" y1="${y(v)}" y2="${y(v)}" stroke-dasharray="3 4"/>
    <text x="${pad.left - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(0)}</text>`).join("");
  const hands = decisions.filter((d, i) => i && d.hand_number !== decisions[i - 1].hand_number)
    .map((d) => `<line class="axis" x1="${x(decisions.indexOf(d))}" x2="${x(decisions.indexOf(d))}" y1="${pad.top}" y2="${height - pad.bottom}"/>`).join("");
  const lines = series.map((pts, seat) => pts.length ? `<g data-seat="${seat}"><path fill="none" stroke="${COLOURS[seat]}" stroke-width="2" d="${pts.map((p, k) =>
    `${k ? "L" : "M"}${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ")}"/>${pts.filter((p) => p.d.grade !== "good").map((p) =>
    `<circle cx="${x(p.i).toFixed(1)}" cy="${y(p.v).toFixed(1)}" r="${p.d.grade === "blunder" ? 5 : 3.5}" fill="${COLOURS[seat]}"><title>${esc(fmt(_("%(name)s, step %(seq)s: %(grade)s (%(taken)s; better %(best)s)"), {
      name: names[seat], seq: p.d.seq, grade: GRADE_WORDS[p.d.grade] || p.d.grade, taken: option(p.d.taken), best: option(p.d.best) }))}</title></circle>`).join("")}</g>` : "").join("");
  const legend = names.map((name, seat) => `<text x="${pad.left + 8 + seat * 140}" y="${height - 8}" fill="${COLOURS[seat]}">■ ${esc(name)}</text>`).join("");
  return `<svg xmlns="${SVG}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="ea-title ea-desc">
    <title id="ea-title">${esc(_("Each seat's expected game points after each of its decisions"))}</title>
    <desc id="ea-desc">${esc(fmt(_("%(count)s decisions; the total before the hand plus the expected points this hand of the option taken. Dots: flagged decisions. Vertical lines: new hands."), { count: decisions.length }))}</desc>
    ${ticks}${hands}${lines}${legend}</svg>`;
}

function render(body, players) {
  const bar = $("analysis-progress");
  if (body.status !== "done") {
    bar.hidden = false;
    bar.value = body.progress;
    $("analysis-status").textContent = body.status === "failed"
      ? fmt(_("The analysis failed: %(error)s"), { error: body.error })
      : fmt(_("Analysing: %(done)s of %(total)s decisions reviewed…"), { done: body.decisions_done, total: body.decisions_total });
    return false;
  }
  bar.hidden = true;
  bar.value = 1;
  $("analysis-status").textContent = fmt(_("Every decision reviewed from its player's view at the time (%(total)s decisions)."),
    { total: body.decisions_total });
  bySeq = new Map(body.decisions.map((d) => [d.seq, d]));
  $("analysis-summary").innerHTML = summary(body.summaries);
  $("analysis-chart").innerHTML = chart(body.decisions, players);
  $("analysis-flagged").innerHTML = flagged(body.decisions);
  panel.dataset.state = "done";
  showStep();
  return true;
}

async function poll(players) {
  let body;
  try {
    body = await api(`/api/games/${gameId}/analysis`);
  } catch (error) {
    $("analysis-status").textContent = error.message; // live or sealed: 409 / 403 with the reason
    return;
  }
  if (body.status === "none") {
    $("analysis-status").textContent = _("This game has not been analysed yet.");
    $("analysis-start").hidden = false;
    return;
  }
  $("analysis-start").hidden = true;
  if (!render(body, players) && body.status !== "failed") setTimeout(() => poll(players), POLL_MS);
}

async function start() {
  let game;
  try {
    game = await api(`/api/games/${gameId}/`);
  } catch {
    return; // the replay says why
  }
  names = seatNames(game.seats, game.players);
  if (game.status !== "finished") {
    $("analysis-status").textContent = _("The analysis is available once the game is over.");
    return;
  }
  $("analysis-start").addEventListener("click", async () => {
    $("analysis-start").disabled = true;
    try {
      await ensureSession();
      const body = await api(`/api/games/${gameId}/analysis`, { method: "POST" });
      $("analysis-start").hidden = true;
      if (!render(body, game.players)) setTimeout(() => poll(game.players), POLL_MS);
    } catch (error) {
      $("analysis-status").textContent = error.message;
    } finally {
      $("analysis-start").disabled = false;
    }
  });
  panel.addEventListener("click", (event) => {
    const link = event.target.closest("[data-step]");
    if (!link) return;
    event.preventDefault();
    goTo(Number(link.dataset.step));
  });
  new MutationObserver(showStep).observe(root, { attributes: true, attributeFilter: ["data-at"] });
  await poll(game.players);
}

start();
