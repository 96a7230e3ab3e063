"""What one seat knows, read from its view (``Game.view(seat)``) and nothing else.

``Knowledge.from_view(view)`` turns the JSON view into masks: the seat's hand, the
cards played, who took what, which seats showed a void, where the cards it passed went,
and the unseen cards (dealt to other seats or lying in the kitty).  ``deal(rng)``
samples one placement of the unseen cards consistent with all of that (a
determinization, for Monte Carlo search).

The view is the bot's only input: nothing here can reach another seat's hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..cards import FULL_DECK, HEARTS, SUIT_MASKS, mask_of
from ..core import QS_BIT, SUIT_OF
from ..rules import Rules

_NAME_BIT = {}
for _i, _s in enumerate("CDHS"):
    for _j, _r in enumerate("23456789TJQKA"):
        _NAME_BIT[_r + _s] = 1 << (_i * 13 + _j)

# Knowledge._plan: free places per seat, seats with free places, kitty places, constrained
# cards grouped by their possible holders, the cards anybody may hold.
_Plan = tuple[list[int], list[int], int, list[list[int]], list[int]]

_RULES_CACHE: dict[tuple[tuple[str, Any], ...], Rules] = {}


def rules_of(view: dict[str, Any]) -> Rules:
    """The view's rules as a ``Rules`` (cached: views of one table share them)."""
    d = view["rules"]
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items()))
    r = _RULES_CACHE.get(key)
    if r is None:
        if len(_RULES_CACHE) > 256:
            _RULES_CACHE.clear()
        r = _RULES_CACHE[key] = Rules.from_dict(d)
    return r


def bits(names: Any) -> int:
    """Mask of a list of card names (as in a view)."""
    m = 0
    for c in names or ():
        b = _NAME_BIT.get(c)
        m |= b if b is not None else mask_of([c])
    return m


def awaits(view: dict[str, Any]) -> str:
    """What the view's seat must do now: "pass", "play" or "moon_choice".

    Raises ValueError when the view does not await this seat.
    """
    seat = view.get("seat")
    if seat is None:
        raise ValueError("a spectator's view awaits nobody")
    phase = view.get("phase")
    to_act = view.get("to_act") or []
    if seat not in to_act:
        raise ValueError(f"seat {seat} is not awaited now (phase {phase}, to act {to_act})")
    if phase == "passing":
        if view.get("passed") is not None:
            raise ValueError(f"seat {seat} has already passed")
        return "pass"
    if phase == "playing":
        return "play"
    if phase == "moon_choice":
        return "moon_choice"
    raise ValueError(f"nothing to decide in phase {phase!r}")


@dataclass
class Knowledge:
    """A seat's knowledge during play, as masks (see the module docstring)."""

    seat: int
    n: int
    rules: Rules
    hand: int
    legal: int
    trick: list[tuple[int, int]]  # (seat, card index) in play order
    played: int  # every card played this hand (tricks and the current trick)
    taken: list[int]  # per seat, cards taken in completed tricks (and the kitty)
    allowed: list[int]  # per seat, the cards it may still hold given what it showed
    known: list[int]  # per seat, cards known to be in its hand (own hand, cards passed to it)
    counts: list[int]  # per seat, cards held now
    kitty_unknown: int  # number of face-down kitty cards still unseen (before trick 1 ends)
    unseen: int  # cards whose place the seat does not know
    tricks_done: int
    broken: bool
    led_suits: list[int] = field(default_factory=list)  # suit index led in each completed trick
    totals: list[int] = field(default_factory=list)

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Knowledge:
        rules = rules_of(view)
        n = rules.players
        seat = view["seat"]
        hand = bits(view["hand"])
        allowed = [FULL_DECK] * n
        taken = [0] * n
        played = 0
        broken = False
        break_mask = HEARTS | QS_BIT if rules.queen_breaks_hearts else HEARTS
        npft = rules.no_points_first_trick
        tricks = view.get("tricks") or []
        all_tricks = [(t["cards"], t.get("winner")) for t in tricks]
        cur = view.get("trick") or []
        all_tricks.append((cur, None))
        trick: list[tuple[int, int]] = []
        led_suits: list[int] = []
        for k, (cards, winner) in enumerate(all_tricks):
            led = 0
            tmask = 0
            for i, c in enumerate(cards):
                s = c["seat"]
                b = _NAME_BIT[c["card"]]
                idx = b.bit_length() - 1
                if i == 0:
                    led = SUIT_OF[idx]
                    if winner is not None:
                        led_suits.append(idx // 13)
                    # leading a heart before hearts broke: the leader held only hearts
                    if b & HEARTS and not broken and not rules.hearts_any_time:
                        allowed[s] &= HEARTS
                    elif k == 0 and npft and b & QS_BIT:
                        allowed[s] &= HEARTS | QS_BIT
                elif not b & led:
                    allowed[s] &= ~led
                    if k == 0 and npft and b & (HEARTS | QS_BIT):
                        # a point card on the first trick: nothing else was held
                        allowed[s] &= HEARTS | QS_BIT
                tmask |= b
                if winner is None:
                    trick.append((s, idx))
            played |= tmask
            if winner is not None:
                taken[winner] |= tmask
                if tmask & break_mask:
                    broken = True
        kitty_seen = bits(view.get("kitty"))
        if kitty_seen and view.get("kitty_taken_by") is not None:
            taken[view["kitty_taken_by"]] |= kitty_seen
        counts = list(view.get("hand_counts") or [0] * n)
        known = [0] * n
        known[seat] = hand
        passed = bits(view.get("passed"))
        to = view.get("passed_to")
        if passed and to is not None and view.get("received") is not None:
            known[to] |= passed & ~played
        deck = FULL_DECK & ~rules.removed_mask
        unseen = deck & ~hand & ~played & ~kitty_seen
        for s in range(n):
            if s != seat:
                unseen &= ~known[s]
        kitty_unknown = rules.kitty_size if not tricks and rules.kitty_size else 0
        legal = bits(view.get("legal_plays"))
        return cls(
            seat=seat,
            n=n,
            rules=rules,
            hand=hand,
            legal=legal,
            trick=trick,
            played=played,
            taken=taken,
            allowed=allowed,
            known=known,
            counts=counts,
            kitty_unknown=kitty_unknown,
            unseen=unseen,
            tricks_done=len(tricks),
            broken=broken,
            led_suits=led_suits,
            totals=list(view.get("totals") or [0] * n),
        )

    # ------------------------------------------------------------------ derived facts
    @property
    def led(self) -> int:
        """The led suit's mask, 0 when the seat leads."""
        return SUIT_OF[self.trick[0][1]] if self.trick else 0

    @property
    def trick_mask(self) -> int:
        m = 0
        for _, c in self.trick:
            m |= 1 << c
        return m

    def out(self) -> int:
        """Cards not yet played and not in this seat's hand (held by others or in the kitty)."""
        return FULL_DECK & ~self.rules.removed_mask & ~self.played & ~self.hand

    def void(self, seat: int, suit: int) -> bool:
        return not self.allowed[seat] & SUIT_MASKS[suit]

    # ------------------------------------------------------------------ sampling
    def _plan(self) -> _Plan:
        """Computed once per view: free places per seat, seats with free places, kitty
        places, the constrained cards grouped by who may hold them (fewest holders
        first), and the cards anybody may hold."""
        plan: _Plan | None = self.__dict__.get("_plan_cache")
        if plan is not None:
            return plan
        n = self.n
        caps = [self.counts[s] - self.known[s].bit_count() for s in range(n)]
        caps[self.seat] = 0
        kcap = self.kitty_unknown
        cards = []
        m = self.unseen
        while m:
            b = m & -m
            cards.append(b.bit_length() - 1)
            m ^= b
        if sum(c for c in caps if c > 0) + kcap != len(cards) or min(caps) < 0:
            raise ValueError("the view's hand counts do not match the cards unseen")
        holders = [s for s in range(n) if caps[s] > 0]
        groups: dict[tuple[int, ...], list[int]] = {}
        free: list[int] = []
        full = tuple(holders)
        for c in cards:
            elig = tuple(s for s in holders if self.allowed[s] >> c & 1)
            if elig == full:
                free.append(c)
            else:
                groups.setdefault(elig, []).append(c)
        constrained = [groups[k] for k in sorted(groups, key=len)]
        plan = (caps, holders, kcap, constrained, free)
        self.__dict__["_plan_cache"] = plan
        return plan

    def deal(self, rng: random.Random) -> tuple[list[int], int]:
        """One placement of the unseen cards: (every seat's hand, the kitty).

        Respects hand counts, voids and known cards.  Cards that only some seats may
        hold are placed first, each to a holder chosen with probability proportional
        to its free places; the rest are shuffled into the places left (uniformly).
        When that runs into a dead end (tight voids), a feasible placement found by
        matching is randomised with card swaps that keep every constraint.
        """
        caps, holders, kcap, constrained, free = self._plan()
        n = self.n
        allowed = self.allowed
        shuffle, rnd = rng.shuffle, rng.random
        for _attempt in range(4 if constrained else 1):
            cap = caps.copy()
            kc = kcap
            hands = [0] * n
            kitty = 0
            ok = True
            for group in constrained:
                for c in group:
                    b = 1 << c
                    tot = kc
                    elig = []
                    for s in holders:
                        if cap[s] and allowed[s] & b:
                            elig.append(s)
                            tot += cap[s]
                    if tot == 0:
                        ok = False
                        break
                    r = rnd() * tot
                    chosen = -1
                    for s in elig:
                        r -= cap[s]
                        if r < 0:
                            chosen = s
                            break
                    if chosen < 0:
                        kitty |= b
                        kc -= 1
                    else:
                        hands[chosen] |= b
                        cap[chosen] -= 1
                if not ok:
                    break
            if not ok:
                continue
            rest = free.copy()
            shuffle(rest)
            i = 0
            for s in holders:
                k = cap[s]
                h = 0
                for c in rest[i : i + k]:
                    h |= 1 << c
                hands[s] |= h
                i += k
            for c in rest[i:]:
                kitty |= 1 << c
            for s in range(n):
                hands[s] |= self.known[s]
            return hands, kitty
        return self._deal_by_swaps(rng)

    def _deal_by_swaps(self, rng: random.Random) -> tuple[list[int], int]:
        caps, holders, kcap, constrained, free = self._plan()
        n = self.n
        kit = n  # the kitty as one more holder, without constraints
        allowed = [*self.allowed, -1]
        cap = [*caps, kcap]
        places = [*holders, kit] if kcap else list(holders)
        base = self.__dict__.get("_feasible")
        if base is None:
            base = self.__dict__["_feasible"] = _match(
                [c for g in constrained for c in g] + free, places, cap, allowed, rng
            )
        where = dict(base)
        cards = list(where)
        k = len(cards)
        rnd = rng.random
        for _ in range(6 * k):
            a = cards[int(rnd() * k)]
            b = cards[int(rnd() * k)]
            sa, sb = where[a], where[b]
            if sa != sb and allowed[sb] >> a & 1 and allowed[sa] >> b & 1:
                where[a], where[b] = sb, sa
        hands = [0] * (n + 1)
        for c, s in where.items():
            hands[s] |= 1 << c
        for s in range(n):
            hands[s] |= self.known[s]
        return hands[:n], hands[n]


def _match(
    cards: list[int], places: list[int], cap: list[int], allowed: list[int], rng: random.Random
) -> dict[int, int]:
    """A placement of ``cards`` into ``places`` within capacities and ``allowed``
    (augmenting paths); voids are dropped if the constraints admit none."""
    load = {p: 0 for p in places}
    owner: dict[int, int] = {}
    held: dict[int, list[int]] = {p: [] for p in places}

    def place(c: int, seen: set[int], strict: bool) -> bool:
        opts = [p for p in places if not strict or allowed[p] >> c & 1]
        rng.shuffle(opts)
        for p in opts:
            if p in seen:
                continue
            seen.add(p)
            if load[p] < cap[p]:
                owner[c] = p
                held[p].append(c)
                load[p] += 1
                return True
            for c2 in list(held[p]):
                if place(c2, seen, strict):
                    held[p].remove(c2)
                    owner[c] = p
                    held[p].append(c)
                    return True
        return False

    for c in cards:
        if not place(c, set(), True) and not place(c, set(), False):  # pragma: no cover
            raise ValueError("no deal fits the view")
    return owner
