"""Who sees what, for the store's events: the engine decides for card events
(``engine.redact``); table events (seating, commitments) are public."""

from __future__ import annotations

import engine
from tournaments.eventstore import event_dict, is_engine_event
from tournaments.models import Game, GameEvent


def viewer_seat(game: Game, user) -> int | None:
    """The seat the user plays at this game, or None for a spectator."""
    if user is None or not user.is_authenticated:
        return None
    return game.seats.filter(player__user=user).values_list("seat", flat=True).first()


def visible_payload(row: GameEvent, viewer: int | None, game_over: bool) -> dict:
    """The event's fields that ``viewer`` may see (everything once the game is over)."""
    full = event_dict(row)
    shown = engine.redact(full, viewer, game_over) if is_engine_event(row.type) else full
    return {k: v for k, v in shown.items() if k not in ("type", "v")}


def visible_event(row: GameEvent, viewer: int | None, game_over: bool) -> dict:
    """One event as a viewer receives it over REST or WebSocket."""
    return {
        "seq": row.seq,
        "type": row.type,
        "v": row.version,
        "at": row.recorded_at.isoformat(),
        "cause": row.cause,
        "payload": visible_payload(row, viewer, game_over),
    }
