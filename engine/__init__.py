"""Hearts rules engine: pure Python, standard library only, event-sourced and fast.

Public face::

    from engine import Card, Rules, Game, IllegalMove, Event, event_from_dict, redact

- ``engine.cards``: ``Card`` (an int 0..51, suit-major) and 52-bit card masks.
- ``engine.rules``: ``Rules``, every option of RULES.md as a frozen dataclass field.
- ``engine.core``: the rules of play and scoring on ints (``PlayState``), shared by
  both paths.
- ``engine.game``: ``Game``, the validated path (commands -> events, replay, view).
- ``engine.events``: the event dataclasses and ``event_from_dict``.
- ``engine.redact``: who may see which part of an event.
- ``engine.fast``: the search path (``PlayState`` from a view or a game, random playouts).
- ``python -m engine.bench``: hands/s, plays/s and replayed events/s.

>>> g = Game.new(Rules(players=3), seed=1)
>>> g.phase, g.pass_direction, len(g.hand(0))
('passing', 'left', 17)
"""

from .cards import CARDS, Card, cards_of, mask_of
from .core import PlayState
from .events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameEnded,
    GameStarted,
    HandDealt,
    HandScored,
    MoonChoiceRequested,
    MoonChosen,
    PassCompleted,
    TrickTaken,
    event_from_dict,
)
from .game import Game, IllegalMove, ReplayError
from .redact import redact
from .rules import Rules

__all__ = [
    "CARDS",
    "Card",
    "CardPlayed",
    "CardsPassed",
    "Event",
    "Game",
    "GameEnded",
    "GameStarted",
    "HandDealt",
    "HandScored",
    "IllegalMove",
    "MoonChoiceRequested",
    "MoonChosen",
    "PassCompleted",
    "PlayState",
    "ReplayError",
    "Rules",
    "TrickTaken",
    "cards_of",
    "event_from_dict",
    "mask_of",
    "redact",
]
