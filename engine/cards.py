"""Cards as small ints and hands as 52-bit masks (the python-chess bitboard idea).

A card is its index ``suit * 13 + rank`` with suits C, D, H, S (0..3) and ranks
2..A (0..12).  A set of cards (a hand, a trick, the cards a seat has taken) is an
``int`` whose bit ``i`` is card ``i``; a suit is the mask ``SUIT_MASKS[suit]``.

>>> Card.parse("QS"), str(Card.parse("Q♠")), Card.parse("10h")
(Card('QS'), 'QS', Card('TH'))
>>> int(Card.parse("2C")), int(Card.parse("AS"))
(0, 51)
>>> [str(c) for c in cards_of(mask_of(["AS", "2C", "TH"]))]
['2C', 'TH', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
NAMES = tuple(r + s for s in SUITS for r in RANKS)

CLUBS = 0x1FFF
DIAMONDS = CLUBS << 13
HEARTS = CLUBS << 26
SPADES = CLUBS << 39
SUIT_MASKS = (CLUBS, DIAMONDS, HEARTS, SPADES)
FULL_DECK = (1 << 52) - 1

TWO_CLUBS = 0
TWO_DIAMONDS = 13
JACK_DIAMONDS = 13 + 9
QUEEN_SPADES = 39 + 10
KING_SPADES = 39 + 11
ACE_SPADES = 39 + 12


class Card(int):
    """A playing card: an ``int`` 0..51 with a text form ("QS").

    Instances are interned (``Card(49) is Card.parse("QS")``), hashable and ordered
    suit-major (all clubs < all diamonds < all hearts < all spades).
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        try:
            return CARDS[index]
        except (IndexError, TypeError, NameError):
            if type(index) is not int or not 0 <= index < 52:
                raise ValueError(f"not a card index: {index!r}") from None
            return int.__new__(cls, index)

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Parse "QS", "qs", "Q♠", "10H", "TH" (or pass a Card through)."""
        if type(text) is Card:
            return text
        try:
            # a key that is not a str (an int, None, a list) raises KeyError or TypeError: see below
            return _PARSE[text]  # type: ignore[index]
        except (KeyError, TypeError):
            pass
        if isinstance(text, str):
            s = text.strip().upper()
            if s in _PARSE:
                return _PARSE[s]
        raise ValueError(f"not a card: {text!r}")

    @property
    def index(self) -> int:
        return int(self)

    @property
    def suit(self) -> int:
        return int(self) // 13

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def bit(self) -> int:
        return 1 << int(self)

    @property
    def symbol(self) -> str:
        """The card with a suit symbol, e.g. "Q♠"."""
        return RANKS[self % 13] + SUIT_SYMBOLS[self // 13]

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Card({NAMES[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(NAMES[self], spec)

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))

_PARSE: dict[str, Card] = {}
for _c in CARDS:
    _r, _s = RANKS[_c % 13], _c // 13
    for _rt in {_r, _r.lower()} | ({"10"} if _r == "T" else set()):
        for _st in (SUITS[_s], SUITS[_s].lower(), SUIT_SYMBOLS[_s], "♧♢♡♤"[_s]):
            _PARSE[_rt + _st] = _c

# _SEG[suit][m] = tuple of the Cards of that suit whose rank bits are set in the 13-bit m
_SEG: list[tuple[tuple[Card, ...], ...]] = []
for _s in range(4):
    _t: list[tuple[Card, ...]] = [()] * 8192
    for _m in range(1, 8192):
        _low = (_m & -_m).bit_length() - 1
        _t[_m] = (CARDS[_s * 13 + _low], *_t[_m & (_m - 1)])
    _SEG.append(tuple(_t))
_SEG_C, _SEG_D, _SEG_H, _SEG_S = _SEG


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in ascending (suit-major) order."""
    return _SEG_C[mask & 0x1FFF] + _SEG_D[(mask >> 13) & 0x1FFF] + _SEG_H[(mask >> 26) & 0x1FFF] + _SEG_S[mask >> 39]


def mask_of(cards: Iterable[Card | str]) -> int:
    """The mask of some cards (Cards or strings).  Duplicates are not detected."""
    m = 0
    for c in cards:
        m |= 1 << Card.parse(c)
    return m


def names_of(mask: int) -> list[str]:
    """The cards of a mask as strings, ascending."""
    return [NAMES[c] for c in cards_of(mask)]


def popcount(mask: int) -> int:
    return mask.bit_count()
