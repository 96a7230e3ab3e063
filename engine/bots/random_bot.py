"""``random``: uniformly random legal choices, the baseline."""

from __future__ import annotations

import random
from typing import Any

from ..cards import cards_of
from ..rules import MOON_CHOICES
from .base import Bot
from .knowledge import Knowledge, bits


class RandomBot(Bot):
    name = "random"

    def choose_pass(self, view: dict[str, Any], rng: random.Random) -> list[int]:
        return sorted(rng.sample(cards_of(bits(view["hand"])), 3))

    def choose_play(self, view: dict[str, Any], know: Knowledge, rng: random.Random) -> int:
        return rng.choice(cards_of(know.legal))

    def choose_moon(self, view: dict[str, Any], rng: random.Random) -> str:
        return rng.choice(MOON_CHOICES)
