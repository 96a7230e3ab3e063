// Cards as the API writes them: rank then suit, "QS", "TH", "2C". Faces keep their symbols
// and the ranks A K Q J 10..2 in every language; the spoken labels are translated.
import { _, fmt } from "./i18n.js";

const RANKS = "23456789TJQKA";
const RANK_NAMES = { T: "10", J: _("Jack"), Q: _("Queen"), K: _("King"), A: _("Ace") };
const RANK_SHORT = { T: "10" };
const SUITS = { C: [_("clubs"), "♣"], D: [_("diamonds"), "♦"], S: [_("spades"), "♠"], H: [_("hearts"), "♥"] };
const SUIT_ORDER = "CDSH"; // alternating colours in the hand

export function cardLabel(card) {
  const rank = card.slice(0, -1);
  const suit = card.slice(-1);
  return fmt(_("%(rank)s of %(suit)s"), { rank: RANK_NAMES[rank] || rank, suit: SUITS[suit][0] });
}

export function cardFace(card) {
  const rank = card.slice(0, -1);
  return `${RANK_SHORT[rank] || rank}${SUITS[card.slice(-1)][1]}`;
}

export function isRed(card) {
  return card.endsWith("H") || card.endsWith("D");
}

export function sortHand(cards) {
  const key = (c) => SUIT_ORDER.indexOf(c.slice(-1)) * 20 + RANKS.indexOf(c.slice(0, -1));
  return [...cards].sort((a, b) => key(a) - key(b));
}

// What a card counts when taken, under a game's rules (the kitty's points in the trick log).
export function cardPoints(card, rules = {}) {
  if (card.endsWith("H")) return 1;
  if (card === "QS") return 13;
  if (card === "JD" && rules.jack_of_diamonds) return -10;
  if (rules.black_maria && card === "KS") return 10;
  if (rules.black_maria && card === "AS") return 7;
  return 0;
}

// A drawn face: the rank and suit in two corners and a large suit (or the court letter) in the
// middle. Decorative: the card's accessible name is on the element itself.
function drawFace(element, card) {
  const rank = card.slice(0, -1);
  const shown = RANK_SHORT[rank] || rank;
  const pip = SUITS[card.slice(-1)][1];
  const court = "JQK".includes(rank);
  element.innerHTML = `<span class="corner tl" aria-hidden="true">${shown}<br>${pip}</span>`
    + `<span class="pip${court ? " court" : ""}" aria-hidden="true">${court ? shown + pip : pip}</span>`
    + `<span class="corner br" aria-hidden="true">${shown}<br>${pip}</span>`
    + `<span class="small-face" aria-hidden="true">${shown}${pip}</span>`;
}

// A face-up card that is not a button (trick, replay hands).
export function cardSpan(card, extra = "") {
  const span = document.createElement("span");
  span.className = `card face ${isRed(card) ? "red" : "black"} ${extra}`.trim();
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardLabel(card));
  span.dataset.card = card;
  drawFace(span, card);
  return span;
}

// A face-down card (the kitty before it is taken): nothing of it is known.
export function cardBack(extra = "") {
  const span = document.createElement("span");
  span.className = `card back ${extra}`.trim();
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", "A face-down card");
  return span;
}

export function cardButton(card) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `card face ${isRed(card) ? "red" : "black"}`;
  button.dataset.card = card;
  button.setAttribute("aria-label", cardLabel(card));
  drawFace(button, card);
  return button;
}
