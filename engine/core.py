"""The rules of trick play and scoring on plain ints: the one source of truth.

``PlayState`` holds one hand in play as ints and lists of ints.  ``legal_mask()`` gives
the cards the seat to act may play; ``push(card)`` plays one and trusts its caller (no
validation, no events).  ``Game`` (the validated path) keeps a ``PlayState`` inside and
calls the same two methods, so both paths apply the same rules.

>>> from engine.cards import mask_of, names_of
>>> from engine.rules import Rules
>>> hands = [mask_of(h.split()) for h in (
...     "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
...     "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
...     "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
...     "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")]
>>> st = PlayState.start(Rules(), hands, kitty=0, dealer=0)
>>> st.turn, names_of(st.legal_mask())
(0, ['2C'])
>>> st.push(0)
-1
>>> names_of(st.legal_mask())   # seat 1 is void in clubs and holds no point card
['2D', '3D', '4D', '5D', '6D', '7D', '8D', '9D', 'TD', 'JD', 'QD', 'KD', 'AD']
"""

from __future__ import annotations

from .cards import (
    ACE_SPADES,
    CLUBS,
    FULL_DECK,
    HEARTS,
    JACK_DIAMONDS,
    KING_SPADES,
    QUEEN_SPADES,
    SUIT_MASKS,
)
from .rules import Rules

QS_BIT = 1 << QUEEN_SPADES
KS_BIT = 1 << KING_SPADES
AS_BIT = 1 << ACE_SPADES
JD_BIT = 1 << JACK_DIAMONDS
MOON_MASK = HEARTS | QS_BIT  # all 13 hearts and the queen of spades
FIRST_TRICK_BANNED = HEARTS | QS_BIT
FIRST_TRICK_SAFE = FULL_DECK ^ FIRST_TRICK_BANNED
NOT_HEARTS = FULL_DECK ^ HEARTS

# SUIT_OF[card] = the mask of that card's suit
SUIT_OF = tuple(SUIT_MASKS[i // 13] for i in range(52))


def card_points(card: int, rules: Rules) -> int:
    """Penalty points of one card under ``rules`` (before any moon adjustment)."""
    if card >= 26 and card < 39:
        return 1
    if card == QUEEN_SPADES:
        return 13
    if rules.black_maria and card == KING_SPADES:
        return 10
    if rules.black_maria and card == ACE_SPADES:
        return 7
    if rules.jack_of_diamonds and card == JACK_DIAMONDS:
        return -10
    return 0


def mask_points(mask: int, jack: bool, maria: bool) -> int:
    """Penalty points in a set of cards: hearts 1, QS 13, (+KS 10, AS 7), (JD -10)."""
    p = (mask & HEARTS).bit_count()
    if mask & QS_BIT:
        p += 13
    if maria:
        if mask & KS_BIT:
            p += 10
        if mask & AS_BIT:
            p += 7
    if jack and mask & JD_BIT:
        p -= 10
    return p


def extras(mask: int, jack: bool, maria: bool) -> int:
    """Points that count on top of the moon: JD -10 and Black Maria's KS 10 / AS 7."""
    p = 0
    if maria:
        if mask & KS_BIT:
            p += 10
        if mask & AS_BIT:
            p += 7
    if jack and mask & JD_BIT:
        p -= 10
    return p


def moon_shooter(taken: list[int], rules: Rules) -> int | None:
    """The seat that took every heart and the QS, unless the moon is off."""
    if rules.moon == "off":
        return None
    for seat, t in enumerate(taken):
        if t & MOON_MASK == MOON_MASK:
            return seat
    return None


def score_hand(taken: list[int], rules: Rules, choice: str | None = None) -> list[int]:
    """Points per seat for a finished hand.

    ``choice`` is the moon result applied when someone shot the moon: with the moon
    option "shooter_chooses" it is the shooter's choice (default "add_to_others");
    otherwise the rules decide and ``choice`` is ignored.
    """
    jack, maria = rules.jack_of_diamonds, rules.black_maria
    shooter = moon_shooter(taken, rules)
    if shooter is None:
        return [mask_points(t, jack, maria) for t in taken]
    mode = rules.moon
    if mode == "shooter_chooses":
        mode = choice or "add_to_others"
    if mode == "add_to_others":
        base = [0 if s == shooter else 26 for s in range(len(taken))]
    else:
        base = [-26 if s == shooter else 0 for s in range(len(taken))]
    return [b + extras(t, jack, maria) for b, t in zip(base, taken, strict=True)]


def first_lead_card(rules: Rules, hands: list[int]) -> int:
    """The card that must lead the first trick (lowest club dealt), or -1 (old rules)."""
    if rules.first_lead == "left_of_dealer":
        return -1
    clubs = 0
    for h in hands:
        clubs |= h
    clubs &= CLUBS
    return (clubs & -clubs).bit_length() - 1


class PlayState:
    """One hand in play, all ints: the fast path for search.

    ``push`` trusts its caller: play only cards from ``legal_mask()``.
    Tricks are counted from 0 in ``tricks_done``; ``trick`` lists the card indices of
    the current trick in play order, starting with ``leader``.
    """

    __slots__ = (
        "any_time",
        "break_mask",
        "broken",
        "first_card",
        "hand_size",
        "hands",
        "kitty",
        "leader",
        "led",
        "n",
        "npft",
        "taken",
        "trick",
        "trick_mask",
        "tricks_done",
        "turn",
    )

    n: int
    hands: list[int]
    taken: list[int]
    kitty: int
    turn: int
    leader: int
    trick: list[int]
    trick_mask: int
    led: int
    tricks_done: int
    broken: bool
    npft: bool
    any_time: bool
    break_mask: int
    first_card: int
    hand_size: int

    @classmethod
    def start(cls, rules: Rules, hands: list[int], kitty: int, dealer: int) -> PlayState:
        """The state before the first card of a hand (after any passing)."""
        st = cls.__new__(cls)
        n = rules.players
        st.n = n
        st.hands = list(hands)
        st.taken = [0] * n
        st.kitty = kitty
        st.trick = []
        st.trick_mask = 0
        st.led = 0
        st.tricks_done = 0
        st.broken = False
        st.npft = rules.no_points_first_trick
        st.any_time = rules.hearts_any_time
        st.break_mask = HEARTS | QS_BIT if rules.queen_breaks_hearts else HEARTS
        st.hand_size = rules.hand_size
        fc = first_lead_card(rules, st.hands)
        st.first_card = fc
        if fc < 0:
            leader = (dealer + 1) % n
        else:
            bit = 1 << fc
            leader = next(s for s in range(n) if st.hands[s] & bit)
        st.leader = st.turn = leader
        return st

    def copy(self) -> PlayState:
        st = PlayState.__new__(PlayState)
        st.n = self.n
        st.hands = self.hands.copy()
        st.taken = self.taken.copy()
        st.kitty = self.kitty
        st.turn = self.turn
        st.leader = self.leader
        st.trick = self.trick.copy()
        st.trick_mask = self.trick_mask
        st.led = self.led
        st.tricks_done = self.tricks_done
        st.broken = self.broken
        st.npft = self.npft
        st.any_time = self.any_time
        st.break_mask = self.break_mask
        st.first_card = self.first_card
        st.hand_size = self.hand_size
        return st

    @property
    def done(self) -> bool:
        return self.tricks_done == self.hand_size

    def legal_mask(self) -> int:
        """Cards the seat to act may play (a mask)."""
        hand = self.hands[self.turn]
        led = self.led
        if led:  # following
            m = hand & led or hand
            if self.tricks_done == 0 and self.npft:
                return m & FIRST_TRICK_SAFE or m
            return m
        if self.tricks_done == 0:  # leading the first trick
            fc = self.first_card
            if fc >= 0:
                return hand & (1 << fc)
            m = hand
            if self.npft:
                m = m & FIRST_TRICK_SAFE or m
            if not (self.broken or self.any_time):
                m = m & NOT_HEARTS or m
            return m
        if self.broken or self.any_time:
            return hand
        return hand & NOT_HEARTS or hand

    def push(self, card: int) -> int:
        """Play ``card`` (an index) for the seat to act; returns the trick's winner or -1."""
        bit = 1 << card
        s = self.turn
        self.hands[s] ^= bit
        trick = self.trick
        trick.append(card)
        self.trick_mask |= bit
        k = len(trick)
        if k == 1:
            self.led = SUIT_OF[card]
        if k < self.n:
            s += 1
            self.turn = 0 if s == self.n else s
            return -1
        tm = self.trick_mask
        best = (tm & self.led).bit_length() - 1
        w = (self.leader + trick.index(best)) % self.n
        if not self.broken and tm & self.break_mask:
            self.broken = True
        if self.kitty:
            tm |= self.kitty
            self.kitty = 0
        self.taken[w] |= tm
        self.tricks_done += 1
        self.leader = self.turn = w
        self.trick = []
        self.trick_mask = 0
        self.led = 0
        return w

    def state_tuple(
        self,
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], int, int, int, tuple[int, ...], int, bool, int]:
        return (
            self.n,
            tuple(self.hands),
            tuple(self.taken),
            self.kitty,
            self.turn,
            self.leader,
            tuple(self.trick),
            self.tricks_done,
            self.broken,
            self.first_card,
        )
