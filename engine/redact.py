"""Who may see what: the one place that decides the visibility of event contents.

``redact(event_dict, viewer, game_over)`` returns the form of an event a viewer may
see (viewer: a seat number, or None for a spectator).

While the game is live:

- GameStarted: the seed is never shown (not even after the game).
- HandDealt: a seat sees its own hand, the other hands only as counts; spectators
  see counts only; the kitty is hidden (its size shows).
- CardsPassed: only the passer sees the cards; others see that the seat passed.
- PassCompleted: a seat sees what it received and what it passed; nothing else.
- Everything else (plays, tricks with the kitty revealed to the first trick's winner's
  table, scores) is public.

Once the game is over everything is shown except the seed.

>>> redact({"type": "CardsPassed", "v": 1, "seat": 1, "cards": ["QS", "AH", "KH"]}, 2, False)
{'type': 'CardsPassed', 'v': 1, 'seat': 1, 'cards': None}
"""

from __future__ import annotations

from typing import Any

from .events import Event

VIEWER_DEPENDENT_EVENTS = frozenset({"GameStarted", "HandDealt", "CardsPassed", "PassCompleted"})
"""The event types :func:`redact` may show differently to different viewers, or once the game is
over; every other event is the same for everyone, at every moment (its form can be shared)."""


def can_see_hand(owner: int, viewer: int | None, game_over: bool) -> bool:
    """May ``viewer`` see the unplayed cards dealt to ``owner``?"""
    return game_over or viewer == owner


def can_see_pass(passer: int, receiver: int, viewer: int | None, game_over: bool, all_passed: bool) -> bool:
    """May ``viewer`` see the cards ``passer`` passed to ``receiver``?"""
    if game_over or viewer == passer:
        return True
    return all_passed and viewer == receiver


def can_see_kitty(taken: bool, game_over: bool) -> bool:
    """The kitty is face down until the first trick's winner takes it."""
    return taken or game_over


def redact(event: dict[str, Any] | Event, viewer: int | None, game_over: bool) -> dict[str, Any] | None:
    """The part of ``event`` that ``viewer`` may see (None: nothing; not used today)."""
    d = event.to_dict() if isinstance(event, Event) else dict(event)
    t = d.get("type")
    if t == "GameStarted":
        d.pop("seed", None)
        return d
    if t == "HandDealt":
        hands = d["hands"]
        d["hand_counts"] = [len(h) for h in hands]
        d["hands"] = [list(h) if can_see_hand(s, viewer, game_over) else None for s, h in enumerate(hands)]
        kitty = d.get("kitty") or []
        d["kitty_count"] = len(kitty)
        d["kitty"] = list(kitty) if can_see_kitty(False, game_over) else None
        return d
    if t == "CardsPassed":
        # the receiver learns the cards from PassCompleted, once everybody has passed
        if not can_see_pass(d["seat"], -1, viewer, game_over, False):
            d["cards"] = None
        return d
    if t == "PassCompleted":
        d["received"] = [
            {
                "from": r["from"],
                "cards": list(r["cards"]) if can_see_pass(r["from"], s, viewer, game_over, True) else None,
            }
            for s, r in enumerate(d["received"])
        ]
        return d
    return d
