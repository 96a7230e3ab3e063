"""Short-lived, single-use tickets that let a non-browser client open a WebSocket."""

from __future__ import annotations

import secrets

from django.core.cache import cache

TICKET_SECONDS = 60


def ws_ticket_issue(*, user_id: int, game_id: int) -> str:
    """A ticket for one WebSocket connection to ``game_id`` as ``user_id`` (valid 60 s, once)."""
    ticket = secrets.token_urlsafe(24)
    cache.set(f"ws-ticket:{ticket}", {"user_id": user_id, "game_id": game_id}, TICKET_SECONDS)
    return ticket


def ws_ticket_redeem(*, ticket: str, game_id: int) -> int | None:
    """The user id the ticket was issued to, or None if it is unknown, used, expired or for another game."""
    if not ticket or len(ticket) > 64:
        return None
    key = f"ws-ticket:{ticket}"
    data = cache.get(key)
    if data is None or not cache.delete(key):  # delete succeeds for exactly one redeemer
        return None
    return data["user_id"] if data["game_id"] == game_id else None
