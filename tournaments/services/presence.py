"""Who is connected: a seat goes to the CPU when its player's last connection has been closed
for the grace period, and comes back when the player returns from the same device.

Each open connection is a row naming the server process that holds it. Those processes record
heartbeats, and the sweeper drops the connections of a process whose heartbeats stopped (it
crashed, or was killed without closing its sockets): a seat is never held by a dead socket.
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tournaments.events import SeatVacated
from tournaments.models import Game, GameEvent, GameSeat, SeatConnection, ServerHeartbeat
from tournaments.services.games import append_table_events, device_token_hash, lock_game, seat_reclaim

_server: tuple[int, str] | None = None


def server_id() -> str:
    """This process as connection rows name it: host, pid and a random part (pids are reused)."""
    global _server
    if _server is None or _server[0] != os.getpid():
        _server = (os.getpid(), f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"[-100:])
    return _server[1]


def server_alive() -> None:
    """Record that this process is alive; it does so every HEARTS_SERVER_HEARTBEAT seconds
    while it serves connections (``tournaments.live.keep_server_alive``)."""
    ServerHeartbeat.objects.update_or_create(server=server_id(), defaults={"seen_at": timezone.now()})


@transaction.atomic
def seat_connected(*, game_id: int, seat: int, connection_id: str, device_id: str = "") -> bool:
    """A seated player opened a connection. Returns True if this took the seat back from the CPU."""
    game = lock_game(game_id)
    row = GameSeat.objects.select_for_update().get(game=game, seat=seat)
    SeatConnection.objects.create(seat=row, connection_id=connection_id, server=server_id())
    if row.disconnected_since is not None:
        row.disconnected_since = None
        row.save(update_fields=["disconnected_since"])
    if (game.status == Game.Status.ACTIVE and row.away and row.device_token_hash
            and device_token_hash(device_id) == row.device_token_hash):
        seat_reclaim(game, row, device_id)
        return True
    return False


@transaction.atomic
def seat_disconnected(*, game_id: int, seat: int, connection_id: str) -> datetime | None:
    """A connection closed. When it was the last one, returns the moment the grace period starts
    (``seat_vacate_if_still_gone`` runs HEARTS_AWAY_GRACE seconds later)."""
    row = GameSeat.objects.select_for_update().select_related("game").get(game_id=game_id, seat=seat)
    row.open_connections.filter(connection_id=connection_id).delete()
    return _grace_starts_if_nobody_is_left(row)


def drop_connections_of_dead_servers(*, dead_after: float | None = None) -> int:
    """Drop the connections of server processes whose last heartbeat is older than
    HEARTS_SERVER_DEAD_AFTER seconds, and start the grace period of every seat left with none.
    Returns how many connections were dropped (the sweeper runs this)."""
    cutoff = timezone.now() - timedelta(
        seconds=settings.HEARTS_SERVER_DEAD_AFTER if dead_after is None else dead_after)
    seats = set(_connections_of_dead_servers(SeatConnection.objects.all(), cutoff)
                .values_list("seat__game_id", "seat__seat"))
    dropped = sum(_drop_dead_connections_of_seat(game_id, seat, cutoff) for game_id, seat in sorted(seats))
    held = SeatConnection.objects.values("server")
    ServerHeartbeat.objects.filter(seen_at__lt=cutoff).exclude(server__in=held).delete()
    return dropped


@transaction.atomic
def seat_vacate_if_still_gone(*, game_id: int, seat: int, since: datetime) -> bool:
    """Compare-and-set: vacate only if the player has stayed away since ``since``."""
    game = lock_game(game_id)
    row = GameSeat.objects.select_for_update().get(game=game, seat=seat)
    if (game.status != Game.Status.ACTIVE or row.away or row.open_connections.exists()
            or row.disconnected_since is None or row.disconnected_since != since):
        return False  # they came back, left again later (a newer check will run), or the game ended
    row.away, row.away_since = True, timezone.now()
    row.save(update_fields=["away", "away_since"])
    append_table_events(game, [SeatVacated(seat=seat, reason="disconnected").to_dict()],
                        cause=GameEvent.Cause.SYSTEM, actor_seat=seat)
    return True


def _connections_of_dead_servers(connections, cutoff: datetime):
    """Connections opened before ``cutoff`` on a server with no heartbeat since (a server
    records its first heartbeat just after its first connection: younger rows are spared)."""
    alive = ServerHeartbeat.objects.filter(seen_at__gte=cutoff).values("server")
    return connections.filter(opened_at__lt=cutoff).exclude(server__in=alive)


@transaction.atomic
def _drop_dead_connections_of_seat(game_id: int, seat: int, cutoff: datetime) -> int:
    row = GameSeat.objects.select_for_update().select_related("game").get(game_id=game_id, seat=seat)
    dropped, _ = _connections_of_dead_servers(row.open_connections.all(), cutoff).delete()
    _grace_starts_if_nobody_is_left(row)
    return dropped


def _grace_starts_if_nobody_is_left(row: GameSeat) -> datetime | None:
    """With the seat's last connection gone from an active game, start its grace period and
    schedule the check that hands it to the CPU; the moment it started, or None."""
    if row.open_connections.exists() or row.game.status != Game.Status.ACTIVE or row.away:
        return None
    since = row.disconnected_since = timezone.now()
    row.save(update_fields=["disconnected_since"])
    from tournaments import live

    game_id, seat = row.game_id, row.seat
    transaction.on_commit(lambda: live.scheduler.away_check(game_id, seat, since, settings.HEARTS_AWAY_GRACE))
    return since
