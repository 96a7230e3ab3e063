"""Hearts rules engine: pure Python, standard library only, event-sourced and fast.

Public face::

    from engine import Card, Rules, Game, IllegalMove, ReplayError, Position
    from engine import Event, event_from_dict, cards_of, redact

- ``engine.cards``: ``Card`` (an int 0..51, suit-major) and 52-bit card masks.
- ``engine.rules``: ``Rules``, every option of docs/rules.md as a frozen dataclass field.
- ``engine.core``: the rules of play and scoring on ints (``PlayState``), shared by
  both paths.
- ``engine.game``: ``Game``, the validated path (commands -> events, replay, view).
- ``engine.events``: the event dataclasses and ``event_from_dict``.
- ``engine.redact``: who may see which part of an event.
- ``engine.fast``: the search path (``PlayState`` from a view or a game, random playouts).
- ``python -m engine.bench``: hands/s, plays/s and replayed events/s.

Readings of the rules the engine makes (docs/rules.md describes them; tests name each rule):

- First trick: follow suit first, then drop hearts and QS from what is left unless
  that leaves nothing ("no points on the first trick").  So a player whose only card
  of the led suit is the QS must play it; a void player may discard a heart or the QS
  only when holding nothing but hearts and the QS.  Only hearts and QS are "points"
  here: with Black Maria, KS and AS may be played on the first trick, as docs/rules.md says.
- Leading the first trick under old rules: no heart and (with no-points-first-trick) no
  QS unless nothing else is held; with only hearts and the QS, the QS is led.
- Hearts are broken by a heart played in a completed trick (or the QS with
  queen_breaks_hearts); hearts arriving with the kitty do not break them.
  "Only hearts held" means only hearts: a leader with hearts and the QS leads the QS.
- The kitty is taken, revealed, by the first trick's winner (TrickTaken.kitty); its
  points count in that trick and towards the moon.
- Shooting the moon is taking all 13 hearts and the QS (kitty included); JD, KS and AS
  are scored on top.  With moon "off" nobody is a shooter.
- Exact end score: a total equal to end_score after a hand becomes end_score // 2,
  before the end check.  The game ends after a hand when some total >= end_score and
  exactly one seat has the lowest total.
- Rules refuse: removing a point card (hearts, QS, KS, AS, JD), the wrong number of
  removed cards (52 % players), removed cards with a kitty, and hearts_any_time together
  with queen_breaks_hearts (meaningless).  A kitty with 4 players is simply empty.
- Seeded deals: hand k is dealt from random.Random(f"{seed}:{k}").  The seed is never
  shown, even after the game (redact and view).  Explicit ``deals`` are not in the log:
  a replayed game deals later hands from the seed.

>>> g = Game.new(Rules(players=3), seed=1)
>>> g.phase, g.pass_direction, len(g.hand(0))
(<Phase.PASSING: 'passing'>, 'left', 17)
"""

from .cards import Card, cards_of
from .events import Event, event_from_dict
from .game import Game, IllegalMove, Phase, Position, ReplayError
from .redact import VIEWER_DEPENDENT_EVENTS, redact
from .rules import Rules

# What the apps, bench/ and tests/ import from ``engine`` itself; the rest (event classes,
# PlayState, masks, bots, analysis) is imported from its submodule.
__all__ = [
    "VIEWER_DEPENDENT_EVENTS",
    "Card",
    "Event",
    "Game",
    "IllegalMove",
    "Phase",
    "Position",
    "ReplayError",
    "Rules",
    "cards_of",
    "event_from_dict",
    "redact",
]
