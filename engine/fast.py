"""The fast path for search: ``PlayState`` (all ints), random playouts, determinization.

``PlayState.push`` trusts its caller: no validation, no events.  The rules it applies
are those of ``engine.core``, which ``Game`` uses too.

>>> import random
>>> from engine import Game, Rules
>>> g = Game.new(Rules(passing="off"), seed=3)
>>> st = from_game(g)
>>> pts = playout(st, g.rules, random.Random(0))
>>> sum(pts) in (26, 78)      # 26, or 3 x 26 when someone shot the moon
True
>>> g.state.tricks_done      # the game itself is untouched
0
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .cards import HEARTS, NAMES, Card, cards_of, mask_of
from .core import QS_BIT, SUIT_OF, Phase, PlayState, first_lead_card, score_hand
from .rules import Rules

if TYPE_CHECKING:
    from .game import Game

__all__ = ["PlayState", "from_game", "from_view", "pick", "playout", "random_hand"]


def from_game(game: Game) -> PlayState:
    """A copy of the game's hand in play (raises if no hand is being played)."""
    st = game.state
    if st is None:
        raise ValueError("no hand is being played")
    return st.copy()


def pick(mask: int, rng: random.Random) -> int:
    """A uniformly random card index from a non-empty mask."""
    k = mask.bit_count()
    if k > 1:
        for _ in range(int(rng.random() * k)):
            mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def playout(st: PlayState, rules: Rules, rng: random.Random, moon_choice: str | None = None) -> list[int]:
    """Play ``st`` to the end of the hand with uniformly random legal cards (in place)
    and return the hand's points per seat (``moon_choice`` for "shooter_chooses")."""
    legal = st.legal_mask
    push = st.push
    rnd = rng.random
    remaining = st.hand_size * st.n - st.tricks_done * st.n - len(st.trick)
    for _ in range(remaining):
        m = legal()
        k = m.bit_count()
        if k > 1:
            for _ in range(int(rnd() * k)):
                m &= m - 1
        push((m & -m).bit_length() - 1)
    return score_hand(st.taken, rules, moon_choice)


def random_hand(rules: Rules, rng: random.Random, dealer: int = 0) -> PlayState:
    """A freshly dealt hand (no passing) as a PlayState, for benchmarks and tests."""
    deck = [i for i in range(52) if not rules.removed_mask >> i & 1]
    rng.shuffle(deck)
    size = rules.hand_size
    hands = [mask_of_indices(deck[s * size : (s + 1) * size]) for s in range(rules.players)]
    kitty = mask_of_indices(deck[rules.players * size :])
    return PlayState.start(rules, hands, kitty, dealer)


def mask_of_indices(xs: Sequence[int]) -> int:
    m = 0
    for x in xs:
        m |= 1 << x
    return m


def from_view(view: dict[str, Any], hands: Sequence[int], kitty: int = 0) -> PlayState:
    """Rebuild the hand in play from ``Game.view(seat)`` and a guess of every seat's
    current hand (``hands``, masks; the viewer's own must be exact) and, before the first
    trick is taken, of the kitty.  This is how a Monte Carlo bot determinizes.
    """
    rules = Rules.from_dict(view["rules"])
    n = rules.players
    if view["phase"] != Phase.PLAYING:
        raise ValueError("no hand is being played")
    st = PlayState.__new__(PlayState)
    st.n = n
    st.hands = list(hands)
    st.taken = [0] * n
    broken = False
    break_mask = HEARTS | QS_BIT if rules.queen_breaks_hearts else HEARTS
    for t in view["tricks"]:
        m = mask_of(c["card"] for c in t["cards"])
        st.taken[t["winner"]] |= m
        if m & break_mask:
            broken = True
    if view.get("kitty") and view.get("kitty_taken_by") is not None:
        st.taken[view["kitty_taken_by"]] |= mask_of(view["kitty"])
    st.kitty = kitty if not view["tricks"] else 0
    st.trick = [int(Card.parse(c["card"])) for c in view["trick"]]
    st.trick_mask = mask_of_indices(st.trick)
    st.led = SUIT_OF[st.trick[0]] if st.trick else 0
    st.tricks_done = len(view["tricks"])
    st.broken = broken
    st.npft = rules.no_points_first_trick
    st.any_time = rules.hearts_any_time
    st.break_mask = break_mask
    st.hand_size = rules.hand_size
    st.leader = view["leader"]
    st.turn = view["to_act"][0]
    # the first-lead card is fixed by the deal: on the first trick it is the first card
    # played if the rules impose one
    if rules.first_lead == "left_of_dealer":
        st.first_card = -1
    elif view["tricks"]:
        st.first_card = int(Card.parse(view["tricks"][0]["cards"][0]["card"]))
    elif st.trick:
        st.first_card = st.trick[0]
    else:
        st.first_card = first_lead_card(rules, st.hands)
    return st


def describe(st: PlayState) -> str:
    """A short text form of a PlayState (for debugging)."""
    hands = " | ".join(" ".join(NAMES[c] for c in cards_of(h)) for h in st.hands)
    return f"turn {st.turn} trick {[NAMES[c] for c in st.trick]} hands {hands}"
