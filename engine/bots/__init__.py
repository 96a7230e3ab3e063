"""CPU players: a bot sees one seat's view (``game.view(seat)``) and nothing else.

>>> from engine import Game, Rules
>>> from engine import bots
>>> g = Game.new(Rules(), seed=1)
>>> cmd = bots.make("rule", seed=7).decide(g.view(0))
>>> cmd["type"], len(cmd["cards"])
('pass', 3)

``make(name, seed=..., **params)`` builds one by name:

- ``random``: uniformly random legal choices (the baseline).
- ``rule``: the rule pages' tips (``engine.bots.rule``).
- ``montecarlo``: determinized Monte Carlo search (``engine.bots.montecarlo``);
  parameters ``playouts=``, ``samples=``, ``time_budget_ms=``.

``bot.decide(view)`` returns a command dict in the REST shape:
``{"type": "pass", "cards": [...]}``, ``{"type": "play", "card": "2C"}`` or
``{"type": "moon_choice", "choice": "add_to_others" | "subtract_from_self"}``, and
raises ValueError when the view does not await its seat.
"""

from __future__ import annotations

from typing import Any

from .base import Bot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot
from .rule import RuleBot

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "montecarlo": MonteCarloBot,
}

KINDS = tuple(BOTS)  # the CPU kinds a seat can have (Player.BotKind lists the same)


def make(name: str, seed: int | str | None = None, **params: Any) -> Bot:
    """A bot by name (``random``, ``rule``, ``montecarlo``); ValueError if unknown."""
    try:
        cls = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(BOTS)}") from None
    try:
        return cls(seed=seed, **params)
    except TypeError as e:
        raise ValueError(f"bad parameters for bot {name!r}: {e}") from None


__all__ = ["BOTS", "KINDS", "Bot", "MonteCarloBot", "RandomBot", "RuleBot", "make"]
