"""Helpers for engine tests: explicit deals and scripted play."""

from __future__ import annotations

from engine import Card, Game, Rules


def hands(*specs: str) -> list[list[str]]:
    """hands("2C 3C ...", "...") -> list of card-name lists (one per seat / kitty)."""
    return [s.split() for s in specs]


# Every seat holds one suit: seat 0 clubs, 1 hearts, 2 diamonds, 3 spades.
# Seat 0 leads 2C and wins every trick: it takes everything.
SUITED = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)

# Seat 0 wins tricks 1-12 with clubs and takes every heart, QS, KS and AS; it loses
# the last trick (2D) to seat 1's JD.  Play it with keep=MOON_KEEP.
MOON_DEAL = hands(
    "AC 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "2C JD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
    "3D KH AH QS 2S 3S 4S 5S 6S 7S 8S 9S TS",
    "4D 5D 6D 7D 8D 9D TD QD KD AD JS KS AS",
)
MOON_KEEP = {1: {"JD"}, 2: {"3D"}, 3: {"4D"}}


def choose(game: Game, seat: int, keep: dict[int, set[str]] | None = None) -> Card:
    """The lowest legal card that the seat does not want to keep (else the lowest)."""
    legal = game.legal_plays(seat)
    kept = (keep or {}).get(seat, set())
    for c in legal:
        if str(c) not in kept:
            return c
    return legal[0]


def play_hand(game: Game, keep: dict[int, set[str]] | None = None) -> list:
    """Play the current hand to its end with ``choose``; returns the events emitted."""
    out = []
    hand = game.hand_number
    while game.phase == "playing" and game.hand_number == hand:
        seat = game.to_act[0]
        out += game.play(seat, choose(game, seat, keep))
    return out


def new(deal, **rules) -> Game:
    """A game with passing off (unless given) and one explicit deal."""
    rules.setdefault("passing", "off")
    return Game.new(Rules(**rules), seed=1, deals=[deal])


def scored(events) -> dict:
    """The HandScored event of a list of events, as a dict."""
    return next(e.to_dict() for e in events if e.type == "HandScored")
