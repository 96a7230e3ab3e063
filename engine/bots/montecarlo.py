"""``montecarlo``: determinized Monte Carlo search over the seat's legal cards.

For each decision: sample deals of the unseen cards consistent with the view
(``Knowledge.deal``: hand counts, voids shown, the cards this seat passed, the kitty),
play every candidate card out on each sampled deal with the heuristic policy
(``policy.policy_playout``; the same deal for every candidate, so their difference is
measured with little noise) and play the card with the lowest mean points for this
seat, or, when the hand can end the game, the best expected final standing.

Cards that are equivalent for the rest of the hand (same suit, same points, nothing
between them still out) are searched once.  Passing reuses the rule bot's pass.

Budget: ``samples`` deals per decision, or ``playouts`` in total (divided among the
candidates), or by default a fixed amount of work (cards pushed) sized so a decision
takes ~40 ms (p50) / ~150 ms (p95) on a quiet machine here.  ``time_budget_ms`` (default
180) additionally stops sampling at a deadline, so a decision stays under 200 ms on a
loaded machine too; a decision that hits the deadline is no longer reproducible from
the seed alone (pass ``time_budget_ms=None`` for strict determinism).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core import card_points
from ..fast import from_view
from .base import Bot
from .knowledge import Knowledge, bits, rules_of
from .policy import policy_playout
from .rule import choose_pass, play

# cards pushed per decision by default (~470k/s with the heuristic policy here); 45k
# and 120k measured -1.54 and -1.73 points per hand against rule on the same 800 deals
DEFAULT_WORK = 120_000
MIN_SAMPLES = 8
DEFAULT_TIME_BUDGET_MS = 180.0
MAX_SAMPLES = 400


def candidates(know: Knowledge) -> list[int]:
    """The legal cards, one per class of equivalent cards (the lowest of each)."""
    return [group[0] for group in card_classes(know)]


def card_classes(know: Knowledge) -> list[list[int]]:
    """The legal cards grouped into classes of cards equivalent for the rest of the
    hand (same suit, same points, no card between them still out), ascending."""
    gone = know.played | know.hand
    rules = know.rules
    out: list[list[int]] = []
    prev = -1
    m = know.legal
    while m:
        b = m & -m
        c = b.bit_length() - 1
        m ^= b
        if (
            prev >= 0
            and c // 13 == prev // 13
            and card_points(c, rules) == card_points(prev, rules)
            and not (((1 << c) - 1) & ~((2 << prev) - 1)) & ~gone
        ):
            out[-1].append(c)
            prev = c
            continue
        out.append([c])
        prev = c
    return out


class MonteCarloBot(Bot):
    name = "montecarlo"

    def __init__(
        self,
        seed: int | str | None = None,
        playouts: int | None = None,
        time_budget_ms: float | None = DEFAULT_TIME_BUDGET_MS,
        samples: int | None = None,
        work: int = DEFAULT_WORK,
        eps: float = 0.25,
    ) -> None:
        super().__init__(seed)
        for name, v in (("playouts", playouts), ("samples", samples), ("time_budget_ms", time_budget_ms)):
            if v is not None and v <= 0:
                raise ValueError(f"{name} must be positive")
        self.playouts = playouts
        self.time_budget_ms = time_budget_ms
        self.samples = samples
        self.work = work
        self.eps = eps

    def choose_pass(self, view: dict[str, Any], rng: random.Random) -> Sequence[int]:
        return choose_pass(bits(view["hand"]), rules_of(view))

    def n_samples(self, know: Knowledge, k: int) -> int:
        if self.samples is not None:
            return self.samples
        if self.playouts is not None:
            return max(1, self.playouts // k)
        remaining = sum(know.counts)
        return max(MIN_SAMPLES, min(MAX_SAMPLES, self.work // (k * max(remaining, 1))))

    def choose_play(self, view: dict[str, Any], know: Knowledge, rng: random.Random) -> int:
        cands = candidates(know)
        if len(cands) == 1:
            return cands[0]
        start = self.started or time.perf_counter()
        deadline = start + self.time_budget_ms / 1000 if self.time_budget_ms else None
        rules = know.rules
        me = know.seat
        eps = self.eps
        util = utility_fn(know)
        k = len(cands)
        total = [0.0] * k
        base = None
        for _ in range(self.n_samples(know, k)):
            hands, kitty = know.deal(rng)
            if base is None:
                base = from_view(view, hands, kitty)
                st = base
            else:
                st = base.copy()
                st.hands = hands
                if st.kitty or kitty:
                    st.kitty = kitty if not know.tricks_done else 0
            for j, c in enumerate(cands):
                s2 = st.copy()
                s2.push(c)
                pts = policy_playout(s2, rules, rng, eps)
                total[j] += util(pts) if util else pts[me]
            if deadline is not None and time.perf_counter() >= deadline:
                break
        ref = play(know)  # the rule bot's card breaks ties
        best = min(range(k), key=lambda j: (total[j], cands[j] != ref))
        return cands[best]


def utility_fn(know: Knowledge) -> Callable[[list[int]], float] | None:
    """None (minimise own points) unless this hand can end the game: then a win is
    worth 100 points and a loss costs 100, on top of the hand's points."""
    rules = know.rules
    totals = know.totals
    if not totals or max(totals) + 26 + 17 < rules.end_score:
        return None
    me = know.seat
    end = rules.end_score
    halves = rules.exact_end_score_halves

    def util(pts: list[int]) -> float:
        final = [t + p for t, p in zip(totals, pts, strict=True)]
        if halves:
            final = [end // 2 if f == end else f for f in final]
        if max(final) >= end:
            low = min(final)
            if final.count(low) == 1:
                return pts[me] + (-100 if final[me] == low else 100)
        return pts[me]

    return util
