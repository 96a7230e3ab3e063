"""Who watches a table: its unseated connections, by name only (a signed-in spectator's
display name; anonymous watchers are only counted).

Kept in the cache (Redis in production, shared by every server process), one entry per game
mapping connection ids to a name and an expiry. A connection refreshes its entry on every ping
(the page pings every 20 s), so the entry of a process that died without closing its sockets
lapses by itself after ``WATCHER_TTL`` seconds; nothing here needs the sweeper. Updates take a
short cache lock (``cache.add`` is atomic), so two connections opening at once both count.
"""

from __future__ import annotations

import time

from django.core.cache import cache

WATCHER_TTL = 60
_LOCK_SECONDS = 2


def _key(game_id: int) -> str:
    return f"hearts:watchers:{game_id}"


def _update(game_id: int, change) -> dict:
    lock = f"{_key(game_id)}:lock"
    for _ in range(50):
        if cache.add(lock, 1, _LOCK_SECONDS):
            break
        time.sleep(0.01)
    try:  # without the lock after 0.5 s (a holder died): write anyway, a ping repairs a lost entry
        entries = cache.get(_key(game_id)) or {}
        now = time.time()
        entries = {cid: entry for cid, entry in entries.items() if entry[1] > now}
        change(entries, now)
        cache.set(_key(game_id), entries, WATCHER_TTL * 2)
    finally:
        cache.delete(lock)
    return _summary(entries)


def watcher_seen(*, game_id: int, connection_id: str, name: str) -> dict:
    """An unseated connection is open (or still open, on a ping); ``name`` is "" for an anonymous
    one. Returns who watches now (:func:`watchers_of`)."""
    return _update(game_id, lambda entries, now: entries.__setitem__(connection_id, (name, now + WATCHER_TTL)))


def watcher_gone(*, game_id: int, connection_id: str) -> dict:
    """An unseated connection closed, or its player sat down."""
    return _update(game_id, lambda entries, now: entries.pop(connection_id, None))


def watchers_of(game_id: int) -> dict:
    """``{"names": [...], "anonymous": n}``: the distinct display names watching, sorted, and how
    many connections watch without an account."""
    now = time.time()
    entries = {cid: entry for cid, entry in (cache.get(_key(game_id)) or {}).items() if entry[1] > now}
    return _summary(entries)


def _summary(entries: dict) -> dict:
    names = sorted({name for name, _ in entries.values() if name}, key=str.casefold)
    return {"names": names, "anonymous": sum(1 for name, _ in entries.values() if not name)}
