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

// A face-up card that is not a button (trick, replay hands).
export function cardSpan(card, extra = "") {
  const span = document.createElement("span");
  span.className = `card ${isRed(card) ? "red" : "black"} ${extra}`.trim();
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardLabel(card));
  span.dataset.card = card;
  span.textContent = cardFace(card);
  return span;
}

export function cardButton(card) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `card ${isRed(card) ? "red" : "black"}`;
  button.dataset.card = card;
  button.setAttribute("aria-label", cardLabel(card));
  button.textContent = cardFace(card);
  return button;
}
