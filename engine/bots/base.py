"""The one bot interface: a view in, a command dict (the REST shape) out.

>>> from engine import Game, Rules
>>> from engine.bots import make
>>> g = Game.new(Rules(passing="off"), seed=7)
>>> make("random", seed=1).decide(g.view(2))
{'type': 'play', 'card': '2C'}
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..cards import NAMES
from ..rules import MOON_CHOICES
from .knowledge import Knowledge, awaits, rules_of


class Bot:
    """Base class.  Subclasses implement ``choose_pass``, ``choose_play`` and may
    override ``choose_moon``; ``decide`` dispatches on what the view awaits.

    A bot is handed ``game.view(seat)`` only (a JSON dict) and never the game.  With a
    seed, decisions are deterministic: the random stream of each decision is derived
    from the seed and the view itself, so the same view gives the same command whatever
    was decided before.
    """

    name = "bot"

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self.started = 0.0
        self._sys = random.Random() if seed is None else None

    def rng_for(self, view: dict[str, Any]) -> random.Random:
        """A random stream for this decision (deterministic when the bot has a seed)."""
        if self._sys is not None:
            return random.Random(self._sys.getrandbits(64))
        text = json.dumps(view, sort_keys=True, separators=(",", ":"))
        digest = hashlib.blake2b(f"{self.name}:{self.seed}:{text}".encode(), digest_size=8)
        return random.Random(int.from_bytes(digest.digest(), "big"))

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        """The command for ``view``'s seat; ValueError if the view does not await it."""
        if not isinstance(view, dict):
            raise TypeError("a bot is handed a seat's view (a dict), nothing else")
        self.started = time.perf_counter()  # time budgets count from here
        what = awaits(view)
        # duck-typed: every attribute is the one of the Random it makes on first use
        rng: random.Random = _LazyRandom(lambda: self.rng_for(view))  # type: ignore[assignment]
        if what == "pass":
            cards = self.choose_pass(view, rng)
            return {"type": "pass", "cards": [NAMES[c] for c in cards]}
        if what == "play":
            know = Knowledge.from_view(view)
            if not know.legal:
                raise ValueError("the view lists no legal play")
            card = self.choose_play(view, know, rng)
            return {"type": "play", "card": NAMES[card]}
        return {"type": "moon_choice", "choice": self.choose_moon(view, rng)}

    # ------------------------------------------------------------------ to implement
    def choose_pass(self, view: dict[str, Any], rng: random.Random) -> Sequence[int]:
        raise NotImplementedError

    def choose_play(self, view: dict[str, Any], know: Knowledge, rng: random.Random) -> int:
        raise NotImplementedError

    def choose_moon(self, view: dict[str, Any], rng: random.Random) -> str:
        """Best standing: end the game when that makes this seat the sole lowest,
        never end it otherwise; else add to others when leading, subtract when behind."""
        return best_moon_choice(view)


class _LazyRandom:
    """A decision's random stream, derived on first use: deriving it (a JSON dump and a hash
    of the whole view) is most of a ``rule`` decision's cost, and that bot draws nothing."""

    __slots__ = ("_make", "_rng")
    _make: Callable[[], random.Random]
    _rng: random.Random | None

    def __init__(self, make: Callable[[], random.Random]) -> None:
        self._make, self._rng = make, None

    def __getattr__(self, name: str) -> Any:
        if self._rng is None:
            self._rng = self._make()
        return getattr(self._rng, name)


def best_moon_choice(view: dict[str, Any]) -> str:
    rules = rules_of(view)
    seat = view["seat"]
    totals = list(view.get("totals") or [0] * rules.players)
    # the hand's extras (JD, Black Maria) count the same either way: compare the base
    scored: dict[str, tuple[int, int]] = {}
    for choice in MOON_CHOICES:
        t = list(totals)
        for s in range(len(t)):
            if choice == "add_to_others":
                t[s] += 0 if s == seat else 26
            elif s == seat:
                t[s] -= 26
            if rules.exact_end_score_halves and t[s] == rules.end_score:
                t[s] = rules.end_score // 2
        low = min(t)
        ends = max(t) >= rules.end_score and t.count(low) == 1
        outcome = (2 if t[seat] == low else 0) if ends else 1
        others = sorted(x for s, x in enumerate(t) if s != seat)
        margin = others[0] - t[seat] if others else 0
        scored[choice] = (outcome, margin)
    leading = totals[seat] <= min(totals)
    pref = "add_to_others" if leading else "subtract_from_self"
    return max(MOON_CHOICES, key=lambda c: (*scored[c], c == pref))
