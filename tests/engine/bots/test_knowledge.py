"""What a seat knows is sound (the real deal always fits it) and the sampled deals fit it."""

from __future__ import annotations

import random

import pytest

from engine import Game, bots
from engine.bots.knowledge import Knowledge
from engine.fast import from_view

from .helpers import RULE_SETS, rules, rules_id, step


@pytest.mark.parametrize("spec", RULE_SETS, ids=rules_id)
def test_inferences_hold_for_the_real_deal_and_samples_fit_them(spec):
    r = rules(spec)
    n = r.players
    rng = random.Random(3)
    for seed in range(8):
        g = Game.new(r, seed=seed)
        walker = [bots.make("rule" if s % 2 else "random", seed=s) for s in range(n)]
        while g.phase != "game_over" and len(g.hand_scores) < 1:
            if g.phase == "playing":
                me = g.to_act[0]
                view = g.view(me)
                k = Knowledge.from_view(view)
                real = g.state
                assert k.hand == real.hands[me]
                for s in range(n):
                    assert real.hands[s] & ~k.allowed[s] == 0 or s == me, "a void inference is wrong"
                    assert k.known[s] & ~real.hands[s] == 0, "a known card is elsewhere"
                    if s != me:
                        assert real.hands[s] & ~(k.unseen | k.known[s]) == 0
                assert real.kitty & ~k.unseen == 0
                for _ in range(3):
                    hands, kitty = k.deal(rng)
                    assert hands[me] == k.hand
                    assert [h.bit_count() for h in hands] == view["hand_counts"]
                    assert kitty.bit_count() == (real.kitty.bit_count())
                    for s in range(n):
                        assert hands[s] & ~k.allowed[s] == 0 or s == me
                    st = from_view(view, hands, kitty)
                    assert st.legal_mask() == k.legal
            step(g, walker)
