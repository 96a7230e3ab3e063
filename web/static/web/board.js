// The live board of a tournament over ws/tournaments/<id>/ (docs/websocket.md): the server
// pushes the whole board on every change; this module reconnects and pings. Shared by the
// director's console, the projector screen and the players' tournament page.
import { esc } from "./api.js";
import { _, fmt } from "./i18n.js";

export function followBoard(tournamentId, onBoard, onStatus = () => {}) {
  let socket = null;
  let wait = 500;
  let pinger = null;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/tournaments/${tournamentId}/`);
    socket.onopen = () => {
      wait = 500;
      onStatus("open");
      pinger = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('{"type":"ping"}'), 25000);
    };
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.type === "board") onBoard(frame);
      else if (frame.type === "error" && frame.code === "tournament_not_found") onStatus("missing");
    };
    socket.onclose = (event) => {
      clearInterval(pinger);
      if (event.code === 4404) return onStatus("missing");
      onStatus("closed");
      setTimeout(connect, wait);
      wait = Math.min(wait * 2, 10000);
    };
  }
  connect();
  return () => socket && socket.close();
}

// "4 min" since an ISO time (the board's `since`), against this browser's clock.
export function ago(iso) {
  if (!iso) return "";
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 60 ? fmt(_("%(n)s s"), { n: seconds }) : fmt(_("%(n)s min"), { n: Math.floor(seconds / 60) });
}

export function seatLabel(seat) {
  const marks = [];
  if (seat.cpu_fill) marks.push(_("CPU"));
  else if (seat.away) marks.push(_("away: CPU plays"));
  else if (seat.disconnected || (!seat.cpu && !seat.connected)) marks.push(_("not at the table"));
  return `${esc(seat.name)}${marks.length ? ` <span class="badge warn">${esc(marks.join(", "))}</span>` : ""}`;
}

// The board's tables as cards: players with totals, hand number, who is to act and since when.
// A sealed table (duplicate deals still played elsewhere) has all of these null until the round
// is over: only its players and whether it is playing or finished are shown.
export function tablesHtml(board) {
  if (!board.round) return `<p class="muted">${esc(_("No round has been drawn yet."))}</p>`;
  if (!board.tables.length) return `<p class="muted">${esc(_("No tables."))}</p>`;
  return `<div class="board-tables">${board.tables.map((t) => {
    const toAct = t.to_act || [];
    const acting = new Set(toAct);
    const waiting = (t.waiting_on_absent || []).length > 0;
    const state = t.status === "finished" ? _("finished") : t.status === "seated" ? _("seated")
      : t.hand_number == null ? _("playing") : fmt(_("hand %(n)s"), { n: t.hand_number });
    const rows = t.seats.map((s) => `<li class="${acting.has(s.seat) ? "acting" : ""}">
        <span class="seat-no">${s.seat + 1}</span> ${seatLabel(s)}
        <span class="total">${t.totals ? t.totals[s.seat] : ""}</span></li>`).join("");
    return `<article class="board-table ${t.status}${waiting ? " waiting" : ""}" data-table="${t.number}" data-status="${t.status}">
      <h4>${esc(fmt(_("Table %(n)s"), { n: t.number }))} <span class="muted">· ${esc(state)}</span>${waiting ? ` <span class="badge warn">${esc(_("waiting on an absent player"))}</span>` : ""}</h4>
      <ol class="board-seats">${rows}</ol>
      ${toAct.length ? `<p class="muted to-act">${esc(fmt(_("to act: %(names)s"), { names: toAct.map((s) => t.seats[s].name).join(", ") }))}${t.cpu_to_act ? ` ${esc(_("(CPU)"))}` : ""} · ${esc(ago(t.since))}</p>` : ""}
      ${t.sealed ? `<p class="muted sealed">${esc(_("This table cannot be watched until its round is over."))}</p>` : ""}
    </article>`;
  }).join("")}</div>`;
}
