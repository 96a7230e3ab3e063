"""Who is connected: a seat goes to the CPU when its player's last connection has been closed
for the grace period, and comes back when the player returns from the same device.

Each open connection is a row naming the server process that holds it and the player it was
opened by. Server processes record a heartbeat (with the rows of the connections they hold)
every HEARTS_SERVER_HEARTBEAT seconds; the sweeper drops the connections of a process whose
heartbeats stopped (it crashed, or was killed without closing its sockets), and marks away any
seat whose grace period ran out without its check being made. Times that several hosts
compare are the database's clock.

Every function here that changes a seat locks the game row before its seat row, as the game
services do; a socket closing on a finished game, which changes no seat, only drops its row.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Mapping
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models.functions import Now
from django.utils import timezone

from tournaments.dispatch import scheduler
from tournaments.games import loop_db, queries, sql
from tournaments.games.events import SeatVacated
from tournaments.games.feed import feed
from tournaments.games.services import append_table_events, lock_game, may_reclaim, seat_reclaim
from tournaments.models import Game, GameEvent, GameSeat, SeatConnection, ServerHeartbeat

log = logging.getLogger(__name__)

# connection id -> (game id, seat, player id): what a server process holds, as its heartbeat says
OpenConnections = Mapping[str, tuple[int, int, int]]

_server: tuple[int, str] | None = None


def server_id() -> str:
    """This process as connection rows name it: host, pid and a random part (pids are reused)."""
    global _server
    if _server is None or _server[0] != os.getpid():
        _server = (os.getpid(), f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"[-100:])
    return _server[1]


def server_alive(open_connections: OpenConnections) -> None:
    """This process's heartbeat: it is alive and holds exactly ``open_connections``. Rows it
    lacks are written again (the sweeper took the process for dead during a long stall, say);
    rows of sockets it no longer holds (older than one beat) are dropped, as if they had just closed."""
    server = server_id()
    with transaction.atomic():
        if not ServerHeartbeat.objects.filter(server=server).update(seen_at=Now()):
            try:
                with transaction.atomic():
                    ServerHeartbeat.objects.create(server=server, seen_at=Now())
            except IntegrityError:
                pass  # another thread of this process wrote it first
    held = set(SeatConnection.objects.filter(server=server).values_list("connection_id", flat=True))
    missing = {cid: where for cid, where in open_connections.items() if cid not in held}
    if missing:
        seats = {
            (game_id, seat): pk
            # A finished game's sockets are not written back: one closed since the caller's
            # snapshot dropped its row without waiting for this beat (seat_disconnected_async).
            for pk, game_id, seat in GameSeat.objects.filter(
                game_id__in={game_id for game_id, _, _ in missing.values()}
            )
            .exclude(game__status=Game.Status.FINISHED)
            .values_list("pk", "game_id", "seat")
        }
        SeatConnection.objects.bulk_create(
            [
                SeatConnection(seat_id=seats[game_id, seat], player_id=player_id, connection_id=cid, server=server)
                for cid, (game_id, seat, player_id) in missing.items()
                if (game_id, seat) in seats
            ],
            ignore_conflicts=True,
        )
    # A socket opened after the caller took its snapshot is not in it: spare rows younger than a beat.
    settled = Now() - timedelta(seconds=settings.HEARTS_SERVER_HEARTBEAT)
    _drop(
        SeatConnection.objects.filter(server=server, opened_at__lt=settled).exclude(
            connection_id__in=list(open_connections)
        )
    )


@transaction.atomic
def seat_connected(*, game_id: int, seat: int, connection_id: str, device_id: str = "") -> bool:
    """A seated player opened a connection. Returns True if this took the seat back from the CPU."""
    game, row = _lock_seat(game_id, seat)
    # a seat its player connects to has that player
    queries.connection_opened(row, row.player_id, connection_id, server_id())  # type: ignore[arg-type]
    if row.disconnected_since is not None:
        row.disconnected_since = None
        sql.update(row, ["disconnected_since"])
    if game.status == Game.Status.ACTIVE and row.away and may_reclaim(row, device_id):
        seat_reclaim(game, row, device_id)
        return True
    return False


@transaction.atomic
def seat_disconnected(*, game_id: int, seat: int, player_id: int, connection_id: str) -> datetime | None:
    """``player_id``'s connection closed. When it was the last one of the seat's player, returns
    the moment the grace period starts (``seat_vacate_if_still_gone`` runs HEARTS_AWAY_GRACE
    seconds later)."""
    game, row = _lock_seat(game_id, seat)
    queries.connection_closed(row, connection_id)
    if player_id != row.player_id:
        return None  # the seat changed hands since this socket opened
    return _grace_starts_if_nobody_is_left(game, row)


async def seat_disconnected_async(*, game_id: int, seat: int, player_id: int, connection_id: str) -> None:
    """:func:`seat_disconnected` from a server's event loop. A connection to a game this process
    holds as finished only drops its row, in one statement from the loop: a finished game starts
    no grace period and changes no seat, so nothing needs its lock. Every player leaves when the
    game ends (a whole round's tables within seconds), and the locked path for each, queued on the
    database thread, held up the tables still playing. Any other game takes the locked path."""
    if loop_db.available() and feed.finished(game_id):
        try:
            await queries.connection_dropped_async(connection_id)
            return
        except loop_db.ConnectionFailed:  # the delete may or may not have run: the locked path decides
            log.warning(
                "game %s: a loop connection failed; the database thread drops the connection", game_id, exc_info=True
            )
    await database_sync_to_async(seat_disconnected)(
        game_id=game_id, seat=seat, player_id=player_id, connection_id=connection_id
    )


@transaction.atomic
def seat_vacate_if_still_gone(*, game_id: int, seat: int, since: datetime) -> bool:
    """Compare-and-set: vacate the seat (mark it away: ``SeatVacated``) only if the player has
    stayed disconnected since ``since``."""
    game, row = _lock_seat(game_id, seat)
    if (
        game.status != Game.Status.ACTIVE
        or row.away
        or queries.player_connected(row, row.player_id)
        or row.disconnected_since is None
        or row.disconnected_since != since
    ):
        return False  # they came back, left again later (a newer check will run), or the game ended
    row.away, row.away_since = True, timezone.now()
    row.save(update_fields=["away", "away_since"])
    append_table_events(
        game, [SeatVacated(seat=seat, reason="disconnected").to_dict()], cause=GameEvent.Cause.SYSTEM, actor_seat=seat
    )
    return True


def sweep_presence() -> int:
    """The sweeper's part: drop the connections of server processes silent for
    HEARTS_SERVER_DEAD_AFTER seconds, and mark away the seats whose grace period ran out without
    their check being made (a lost task). Returns connections dropped plus seats marked away."""
    dead = Now() - timedelta(seconds=settings.HEARTS_SERVER_DEAD_AFTER)
    alive = ServerHeartbeat.objects.filter(seen_at__gte=dead).values("server")
    # a server records its first heartbeat just after its first connection: younger rows are spared
    dropped = _drop(SeatConnection.objects.filter(opened_at__lt=dead).exclude(server__in=alive))
    ServerHeartbeat.objects.filter(seen_at__lt=dead).exclude(
        server__in=SeatConnection.objects.values("server")
    ).delete()
    overdue = timezone.now() - timedelta(seconds=settings.HEARTS_AWAY_GRACE + settings.HEARTS_SWEEP_GRACE)
    marked_away = 0
    for game_id, seat, since in GameSeat.objects.filter(
        game__status=Game.Status.ACTIVE, away=False, disconnected_since__lt=overdue
    ).values_list("game_id", "seat", "disconnected_since"):
        # the filter on disconnected_since__lt leaves no None
        marked_away += seat_vacate_if_still_gone(game_id=game_id, seat=seat, since=since)  # type: ignore[arg-type]
    return dropped + marked_away


def _drop(connections) -> int:
    """Delete these connection rows, one seat at a time under its game's lock, and start the
    grace period of each seat whose player is left with none."""
    dropped = 0
    for game_id, seat in sorted(set(connections.values_list("seat__game_id", "seat__seat"))):
        try:
            with transaction.atomic():
                game, row = _lock_seat(game_id, seat)
                ids = list(connections.filter(seat=row).values_list("pk", "player_id"))
                SeatConnection.objects.filter(pk__in=[pk for pk, _ in ids]).delete()
                dropped += len(ids)
                if any(player_id == row.player_id for _, player_id in ids):
                    _grace_starts_if_nobody_is_left(game, row)
        except Exception:  # one seat's failure must not keep the others held
            log.exception("could not drop the connections of game %s seat %s", game_id, seat)
    return dropped


def _lock_seat(game_id: int, seat: int) -> tuple[Game, GameSeat]:
    """Lock the game row and its seats (in the one lock order) in one statement, as a move
    does: every connection opened or closed takes this path. The seat's row, with its player."""
    game, seats = queries.lock_game_with_seats(game_id)
    if game is None:
        game = lock_game(game_id)  # there is no such game (404 game_not_found), or it has no seats
    row = next((held for held in seats if held.seat == seat), None)
    if row is None:
        raise GameSeat.DoesNotExist(f"game {game_id} has no seat {seat}")
    return game, row


def _grace_starts_if_nobody_is_left(game: Game, row: GameSeat) -> datetime | None:
    """With the seat's player left with no connection to an active game, start the seat's grace
    period and schedule the check that hands it to the CPU; the moment it started, or None."""
    if game.status != Game.Status.ACTIVE or row.away or queries.player_connected(row, row.player_id):
        return None
    since = row.disconnected_since = timezone.now()
    sql.update(row, ["disconnected_since"])
    transaction.on_commit(lambda: _schedule_away_check(game.pk, row.seat, since))
    return since


def _schedule_away_check(game_id: int, seat: int, since: datetime) -> None:
    try:
        scheduler.backend.away_check(game_id, seat, since, settings.HEARTS_AWAY_GRACE)
    except Exception:  # committed already; the sweeper hands the seat on when the grace is over
        log.exception("could not schedule the away check of game %s seat %s; the sweeper will", game_id, seat)
