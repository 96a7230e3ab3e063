"""What the rating benches measure with: rank correlation, the target it must pass, and a game
total from a simulated performance (shared by ``ratings.bench`` and ``ratings.bench_pools``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

TAU_TARGET = 0.85


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either list handled); O(n^2), fine for hundreds.

    >>> kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]), kendall_tau([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> round(kendall_tau([1, 2, 3, 4], [1, 1, 2, 3]), 6)
    0.912871
    """
    n = len(x)
    score = tied_x = tied_y = 0
    for i in range(n):
        xi, yi = x[i], y[i]
        for j in range(i + 1, n):
            dx, dy = xi - x[j], yi - y[j]
            if dx == 0 or dy == 0:
                tied_x += dx == 0
                tied_y += dy == 0
            elif (dx > 0) == (dy > 0):
                score += 1
            else:
                score -= 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return score / denominator if denominator else 0.0


def game_total(performance: float) -> int:
    """A Hearts game total from a performance (higher is better): lower total wins."""
    return max(0, round(60.0 - 10.0 * performance))
