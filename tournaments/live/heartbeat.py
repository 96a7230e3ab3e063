"""This server process's heartbeat: the seated connections it holds, recorded every
HEARTS_SERVER_HEARTBEAT seconds, so that the sweeper tells them from those of a process that died."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from tournaments.live import presence

log = logging.getLogger(__name__)

# The seated connections this process holds: connection id -> (game id, seat, player id).
# Touched only on the server's event loop.
_open_connections: dict[str, tuple[int, int, int]] = {}
_heartbeat: tuple[asyncio.AbstractEventLoop, asyncio.Task | None] | None = None


def connection_opened(connection_id: str, game_id: int, seat: int, player_id: int) -> None:
    """A seated connection is about to be recorded (``presence.seat_connected``): from now on
    this process's heartbeats hold it, every HEARTS_SERVER_HEARTBEAT seconds, so that the
    sweeper tells its connections from those of a process that died."""
    global _heartbeat
    _open_connections[connection_id] = (game_id, seat, player_id)
    loop = asyncio.get_running_loop()
    if _heartbeat is None or _heartbeat[0] is not loop:
        _heartbeat = (loop, None)
        _beat(loop)


def connection_closed(connection_id: str) -> None:
    """The connection is gone (before ``presence.seat_disconnected`` records it)."""
    _open_connections.pop(connection_id, None)


def _beat(loop: asyncio.AbstractEventLoop) -> None:
    global _heartbeat
    if _heartbeat is None or _heartbeat[0] is not loop:
        return  # superseded by another loop (tests run each on a loop of its own)
    previous = _heartbeat[1]
    if previous is None or previous.done():  # a write still waiting on the database is not doubled
        _heartbeat = (loop, loop.create_task(_record_heartbeat(dict(_open_connections))))
    loop.call_later(settings.HEARTS_SERVER_HEARTBEAT, _beat, loop)


async def _record_heartbeat(open_connections: dict) -> None:
    try:
        await database_sync_to_async(presence.server_alive)(open_connections)
    except Exception:  # the next beat tries again; only a long run of failures drops connections
        log.exception("could not record this server's heartbeat")
