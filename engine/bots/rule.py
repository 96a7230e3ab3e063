"""``rule``: the strategy of the rule pages' tips, on card masks.

Passing: pass Q♠/K♠/A♠ when short of spades, keep Q♠ behind 4+ low spades, void a
short side suit, then pass the highest remaining cards (high hearts first).

Playing:
- follow: duck under the trick's winning card; win cheap tricks while no points can
  appear yet (the first round of a suit, the first trick, last to play on a clean
  trick) to shed high cards early; never win with Q♠ if it can be helped; drop Q♠ on a
  K♠/A♠; take a point card to stop a moon shot.
- discard (void in the led suit): Q♠, then K♠/A♠ while the queen is out (and
  always under Black Maria), then the highest heart, then the highest card of the
  shortest suit; never feed a player who is shooting the moon.
- lead: low spades to smoke out Q♠ when someone else holds it; otherwise the card
  least likely to win (fewest unseen cards of its suit below it), short suits first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..cards import CLUBS, DIAMONDS, HEARTS, QUEEN_SPADES, SPADES, SUIT_MASKS, Card, cards_of
from ..core import AS_BIT, JD_BIT, KS_BIT, MOON_MASK, QS_BIT, mask_points
from ..rules import Rules
from .base import Bot
from .knowledge import Knowledge, bits, rules_of

LOW_SPADES = SPADES & (QS_BIT - 1)  # 2S..JS
HIGH_SPADES = KS_BIT | AS_BIT


def hi(m: int) -> int:
    return m.bit_length() - 1


def lo(m: int) -> int:
    return (m & -m).bit_length() - 1


def hi_rank(m: int, hand: int = 0) -> int:
    """The card of highest rank in ``m``; ties go to the suit ``hand`` holds fewest of."""
    best, key = -1, None
    for s in range(4):
        x = m & SUIT_MASKS[s]
        if x:
            c = hi(x)
            k = (c - 13 * s, -(hand & SUIT_MASKS[s]).bit_count())
            if key is None or k > key:
                best, key = c, k
    return best


def moon_threat(know: Knowledge, min_points: int = 10) -> int | None:
    """A seat other than this one that has taken every heart and Q♠ taken so far, and
    enough of them to be on its way to the moon (None if nobody)."""
    if know.rules.moon == "off":
        return None
    holders = [s for s in range(know.n) if know.taken[s] & MOON_MASK]
    if len(holders) != 1 or holders[0] == know.seat:
        return None
    s = holders[0]
    t = know.taken[s]
    pts = (t & HEARTS).bit_count() + (13 if t & QS_BIT else 0)
    # the shooter must still be able to collect the rest: nobody else took any
    return s if pts >= min_points else None


def choose_pass(hand: int, rules: Rules) -> tuple[Card, ...]:
    """The rule bot's three cards to pass (masks in, card indices out)."""
    chosen = 0
    low_spades = (hand & LOW_SPADES).bit_count()
    # 1. the queen and her escorts when short of spades
    if hand & QS_BIT and low_spades < 4:
        chosen |= QS_BIT
    for b in (AS_BIT, KS_BIT):
        if hand & b and low_spades < 4:
            chosen |= b
    # 2. void a short side suit (clubs or diamonds; keep the J♦ and its guards under J♦ -10)
    free = 3 - chosen.bit_count()
    if free:
        best = None
        for suit in (CLUBS, DIAMONDS):
            x = hand & suit
            if rules.jack_of_diamonds and suit == DIAMONDS and x & JD_BIT:
                continue
            k = x.bit_count()
            if 0 < k <= free and (best is None or k < best[0] or (k == best[0] and hi(x) > hi(best[1]))):
                best = (k, x)
        if best is not None:
            chosen |= best[1]
    # 3. the most dangerous remaining cards
    while chosen.bit_count() < 3:
        rest = hand & ~chosen
        chosen |= 1 << max(cards_of(rest), key=lambda c: pass_danger(c, hand, rules))
    return cards_of(chosen)


def pass_danger(c: int, hand: int, rules: Rules) -> float:
    b = 1 << c
    r = c % 13
    s = c // 13
    suit_len = (hand & SUIT_MASKS[s]).bit_count()
    if b & QS_BIT:
        return 50 if (hand & LOW_SPADES).bit_count() < 4 else -50
    if b & HIGH_SPADES:
        return 45 + r if hand & QS_BIT or rules.black_maria else 30 + r - 4 * (hand & LOW_SPADES).bit_count()
    if s == 3:
        return -20 + r  # low spades protect
    if rules.jack_of_diamonds and (b & JD_BIT or (s == 1 and r > 9)):
        return -30 + r
    if s == 2:
        return r * 2.5 - 5  # high hearts are the next worst
    return r * 2 - suit_len * 0.5


class RuleBot(Bot):
    name = "rule"

    def choose_pass(self, view: dict[str, Any], rng: random.Random) -> Sequence[int]:
        return choose_pass(bits(view["hand"]), rules_of(view))

    def choose_play(self, view: dict[str, Any], know: Knowledge, rng: random.Random) -> int:
        return play(know)


def play(know: Knowledge) -> int:
    legal = know.legal
    if legal & (legal - 1) == 0:
        return lo(legal)
    if not know.trick:
        return lead(know)
    rules = know.rules
    jack, maria = rules.jack_of_diamonds, rules.black_maria
    n = know.n
    led = know.led
    tm = know.trick_mask
    win_card = hi(tm & led)
    win_seat = next(s for s, c in know.trick if c == win_card)
    trick_pts = mask_points(tm, jack, maria)
    out = know.out()
    qs_out = bool(out & QS_BIT)
    last = len(know.trick) == n - 1
    shooter = moon_threat(know)
    danger = QS_BIT | (HIGH_SPADES if maria else 0)
    if legal & led:  # following suit
        below = legal & ((1 << win_card) - 1)
        above = legal & ~below
        if shooter is not None and win_seat == shooter and (trick_pts > 0 or not last) and above:
            return lo(above)  # take a point to stop the moon
        if led == SPADES and legal & QS_BIT:
            if win_card > QUEEN_SPADES:
                return QUEEN_SPADES  # drop the queen on the king or ace
            if below:
                return hi(below)
            rest = legal & ~QS_BIT
            if rest:
                return hi(rest) if last else lo(rest)
            return lo(legal)
        safe_win = trick_pts <= 0 and (
            last or (know.tricks_done == 0 and rules.no_points_first_trick) or clean_round(know, led, out)
        )
        if led == SPADES and qs_out and not last:
            safe_win = False
        if safe_win:
            return hi(legal & ~danger or legal)
        if below:
            return hi(below)
        cand = legal & ~danger or legal
        if last:
            return hi(cand)
        return lo(cand)
    # void in the led suit: discard
    pointy = HEARTS | QS_BIT | (HIGH_SPADES if maria else 0)
    if shooter is not None and win_seat == shooter:
        clean = legal & ~pointy
        if clean:
            return hi_rank(clean, know.hand)
    if jack and legal & JD_BIT and legal & ~JD_BIT:
        legal &= ~JD_BIT  # keep the jack for ourselves
    if legal & QS_BIT:
        return QUEEN_SPADES
    if legal & HIGH_SPADES and (maria or qs_out):
        return hi(legal & HIGH_SPADES)
    if legal & HEARTS:
        return hi(legal & HEARTS)
    return hi_rank(legal, know.hand)


def clean_round(know: Knowledge, led: int, out: int) -> bool:
    """Is this the first time the led side suit goes round, with every seat still to
    play holding some of it as far as we know (so nobody can slip a point card in)?"""
    if led in (HEARTS, SPADES):
        return False
    suit = SUIT_MASKS.index(led)
    if know.led_suits.count(suit) > 0:
        return False
    n = know.n
    after = [(know.seat + i) % n for i in range(1, n - len(know.trick))]
    if any(not know.allowed[s] & led for s in after):
        return False
    return (out & led).bit_count() >= 2 * len(after) + 1


def lead(know: Knowledge) -> int:
    legal = know.legal
    out = know.out()
    hand = know.hand
    shooter = moon_threat(know)
    if shooter is not None and legal & HEARTS and hi(legal & HEARTS) > hi(out & HEARTS):
        return hi(legal & HEARTS)  # a heart only we can win: the moon is stopped
    qs_out = bool(out & QS_BIT)
    if qs_out and legal & LOW_SPADES and (not hand & HIGH_SPADES or (hand & LOW_SPADES).bit_count() >= 3):
        return lo(legal & LOW_SPADES)  # smoke out the queen
    best, best_key = -1, None
    for s in range(4):
        x = legal & SUIT_MASKS[s]
        if not x:
            continue
        c = lo(x)
        suit_out = out & SUIT_MASKS[s]
        under = (suit_out & ((1 << c) - 1)).bit_count()
        key = under * 3 + x.bit_count() * 0.5
        if not suit_out:
            key += 20  # nobody can follow: they discard points on us
        if s == 2:
            key += 4  # hearts give points away only if we win; still a last resort
        if s == 3 and hand & QS_BIT:
            key += 30
        if s == 3 and hand & HIGH_SPADES and qs_out:
            key += 10
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best
