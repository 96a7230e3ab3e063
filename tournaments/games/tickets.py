"""Short-lived, single-use tickets that let a non-browser client open a WebSocket."""

from __future__ import annotations

import functools
import secrets

from django.core.cache import DEFAULT_CACHE_ALIAS, BaseCache, caches

TICKET_SECONDS = 60


@functools.cache
def _store() -> BaseCache:
    """The process's one instance of the default cache, for tickets. ``django.core.cache.cache``
    is an instance per async context: each WebSocket connection's consumer got a new one, with
    a new Redis connection pool, and so opened a new connection to Redis just to redeem its ticket."""
    return caches.create_connection(DEFAULT_CACHE_ALIAS)


def ws_ticket_issue(*, user_id: int, game_id: int) -> str:
    """A ticket for one WebSocket connection to ``game_id`` as ``user_id`` (valid 60 s, once)."""
    ticket = secrets.token_urlsafe(24)
    _store().set(f"ws-ticket:{ticket}", {"user_id": user_id, "game_id": game_id}, TICKET_SECONDS)
    return ticket


def ws_ticket_redeem(*, ticket: str, game_id: int) -> int | None:
    """The user id the ticket was issued to, or None if it is unknown, used, expired or for another game."""
    if not ticket or len(ticket) > 64:
        return None
    key = f"ws-ticket:{ticket}"
    store = _store()
    data = store.get(key)
    if data is None or not store.delete(key):  # delete succeeds for exactly one redeemer
        return None
    return data["user_id"] if data["game_id"] == game_id else None
