"""What happens after a game's transaction commits: tell every connection, schedule CPU moves
and turn timers. Broadcasts are notify-then-read: the group message says only "game G is at
seq S"; each WebSocket connection then reads and redacts the new events itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from datetime import datetime

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)


def group_name(game_id: int) -> str:
    return f"game.{game_id}"


def tournament_group_name(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


# --- notifications ----------------------------------------------------------------------------

_server_loop: asyncio.AbstractEventLoop | None = None
_server_loop_lock = threading.Lock()


def register_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Remember the server's event loop (the in-memory channel layer lives on it)."""
    global _server_loop
    with _server_loop_lock:
        _server_loop = loop


def notify(game_id: int, seq: int) -> None:
    """Tell everyone watching the game that it is now at ``seq`` (best effort)."""
    _group_send(game_id, {"type": "game.advanced", "game": game_id, "seq": seq}, f"at seq {seq}")


def tournament_changed(tournament_id: int) -> None:
    """Tell the tournament's boards (console, screen, players' page) to read it again (best effort)."""
    _group_send(
        0,
        {"type": "tournament.changed", "tournament": tournament_id},
        "board changed",
        group=tournament_group_name(tournament_id),
    )


def seats_changed(game_id: int) -> None:
    """Tell the game's connections that seats changed hands at a table not started yet, where no
    event records it (best effort: a connection also learns its seat from PlayersSeated)."""
    _group_send(game_id, {"type": "game.seats", "game": game_id}, "seats changed")


def rematch_offered(game_id: int, rematch_id: int) -> None:
    """Tell the finished game's connections that its players are offered a new table."""
    _group_send(game_id, {"type": "game.rematch", "game": game_id, "rematch": rematch_id}, "rematch offered")


def _group_send(game_id: int, message: dict, what: str, group: str | None = None) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    group = group or group_name(game_id)
    loop = _server_loop
    try:
        if loop is not None and loop.is_running() and not _on_loop(loop):
            # A server thread (a consumer's database call, a REST view): send from the server's
            # loop, where the in-memory layer's queues and the Redis layer's connections live.
            sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
            if settings.REDIS_URL:
                sent.add_done_callback(lambda done: _log_failure(done, game_id, what))  # no need to wait
            else:
                sent.result(5)
        elif settings.REDIS_URL and _running_loop() is None:
            # No server here (a Celery worker, a management command): one long-lived loop, so one
            # Redis connection, for every notification of the process.
            sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _notifier_loop())
            sent.result(5)
        else:
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a lost notification only delays: clients also resume by seq
        log.exception("could not notify game %s: %s", game_id, what)


# --- this server's heartbeat -------------------------------------------------------------------

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
    from channels.db import database_sync_to_async

    from tournaments.services import presence

    try:
        await database_sync_to_async(presence.server_alive)(open_connections)
    except Exception:  # the next beat tries again; only a long run of failures drops connections
        log.exception("could not record this server's heartbeat")


_notifier: tuple[int, asyncio.AbstractEventLoop] | None = None


def _notifier_loop() -> asyncio.AbstractEventLoop:
    """This process's loop for notifications when it runs no server. ``async_to_sync`` would
    start a thread, an event loop and a Redis connection for each one. Started on first use
    and again in a forked child (a Celery pool process), where the parent's thread is gone."""
    global _notifier
    with _server_loop_lock:
        if _notifier is None or _notifier[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="hearts-notify", daemon=True).start()
            _notifier = (os.getpid(), loop)
        return _notifier[1]


def _log_failure(done, game_id: int, what: str) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("could not notify game %s: %s", game_id, what, exc_info=done.exception())


def _on_loop(loop: asyncio.AbstractEventLoop | None) -> bool:
    return loop is not None and _running_loop() is loop


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


# --- scheduling -------------------------------------------------------------------------------


class CeleryScheduler:
    """Sends tasks to Celery (a real worker, or the embedded one without Redis)."""

    def cpu_move(self, game_id: int, seq: int, delay: float) -> None:
        from tournaments.tasks import cpu_move

        cpu_move.apply_async(args=[game_id, seq], countdown=delay)

    def turn_timer(self, game_id: int, deadline: datetime) -> None:
        from tournaments.tasks import turn_timeout

        countdown = max(0.0, (deadline - timezone.now()).total_seconds())
        turn_timeout.apply_async(args=[game_id, deadline.isoformat()], countdown=countdown)

    def game_finished(self, game_id: int) -> None:
        from tournaments.tasks import game_finished

        game_finished.delay(game_id)

    def away_check(self, game_id: int, seat: int, since: datetime, delay: float) -> None:
        from tournaments.tasks import vacate_if_still_gone

        vacate_if_still_gone.apply_async(args=[game_id, seat, since.isoformat()], countdown=delay)


scheduler = CeleryScheduler()


def game_advanced(
    game_id: int, seq: int, cpu_to_act: bool, new_deadline: datetime | None, finished: bool = False
) -> None:
    """Called on commit of every change to a game: notify, then schedule what comes next."""
    notify(game_id, seq)
    # The change is committed already: a broker that is down must not turn it into an error for
    # the client (who would retry a command that was applied). A lost CPU move or turn timer is
    # made by the sweeper (``tournaments.sweep``: cpu_due_at / turn_deadline are in the row).
    try:
        if finished:
            scheduler.game_finished(game_id)
        if cpu_to_act:
            scheduler.cpu_move(game_id, seq, settings.HEARTS_CPU_DELAY)
        if new_deadline is not None:
            scheduler.turn_timer(game_id, new_deadline)
    except Exception:
        log.exception("could not schedule the follow-ups of game %s at seq %s; the sweeper will", game_id, seq)
