"""Notifications sent after a transaction commits, to every connection watching a game or a
tournament (best effort). Broadcasts are notify-then-read: the group message says only "game G
is at seq S"; each WebSocket connection then reads and redacts the new events itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

log = logging.getLogger(__name__)


def group_name(game_id: int) -> str:
    return f"game.{game_id}"


def tournament_group_name(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


# --- notifications ----------------------------------------------------------------------------

_server_loop: asyncio.AbstractEventLoop | None = None
_server_loop_lock = threading.Lock()


def register_server_loop(loop: asyncio.AbstractEventLoop | None) -> None:
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
        elif _running_loop() is not None:
            # The server's loop itself (a move written from it), or any other running loop of
            # this thread: send without waiting for it (this thread cannot block on it).
            sending = asyncio.ensure_future(layer.group_send(group, message))
            _sending.add(sending)  # the loop keeps only a weak reference to a task
            sending.add_done_callback(_sending.discard)
            sending.add_done_callback(lambda done: _log_failure(done, game_id, what))
        elif settings.REDIS_URL and _running_loop() is None:
            # No server here (a Celery worker, a management command): one long-lived loop, so one
            # Redis connection, for every notification of the process.
            sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _notifier_loop())
            sent.result(5)
        else:
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a lost notification only delays: clients also resume by seq
        log.exception("could not notify game %s: %s", game_id, what)


_notifier: tuple[int, asyncio.AbstractEventLoop] | None = None
_sending: set[asyncio.Future] = set()


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
