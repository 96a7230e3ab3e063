// The director's console: the live board of the round, pushed over the tournament's socket.
import { followBoard, tablesHtml } from "./board.js";
import { _ } from "./i18n.js";

const root = document.getElementById("console");
const id = Number(root.dataset.tournament);
const board = document.getElementById("board");
const conn = document.getElementById("board-conn");
let last = null;

followBoard(id, (frame) => {
  last = frame;
  board.innerHTML = tablesHtml(frame);
  const playing = frame.tables.filter((t) => t.status === "playing").length;
  board.dataset.playing = String(playing);
  board.dataset.round = frame.round ? String(frame.round.number) : "";
}, (status) => {
  conn.textContent = status === "open" ? _("live") : status === "missing" ? _("no such tournament") : _("reconnecting…");
  conn.className = `conn ${status === "open" ? "open" : "closed"}`;
});
// "since" ages while nothing changes
setInterval(() => last && (board.innerHTML = tablesHtml(last)), 15000);
