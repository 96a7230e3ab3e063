"""Who is connected: a seat goes to the CPU when its player's last connection has been closed
for the grace period, and comes back when the player returns from the same device."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from tournaments.events import SeatVacated
from tournaments.models import Game, GameEvent, GameSeat
from tournaments.services.games import append_table_events, device_token_hash, lock_game, seat_reclaim


@transaction.atomic
def seat_connected(*, game_id: int, seat: int, device_id: str = "") -> bool:
    """A seated player opened a connection. Returns True if this took the seat back from the CPU."""
    game = lock_game(game_id)
    row = GameSeat.objects.select_for_update().get(game=game, seat=seat)
    row.connections = F("connections") + 1
    row.disconnected_since = None
    row.save(update_fields=["connections", "disconnected_since"])
    row.refresh_from_db()
    if (game.status == Game.Status.ACTIVE and row.away and row.device_token_hash
            and device_token_hash(device_id) == row.device_token_hash):
        seat_reclaim(game, row, device_id)
        return True
    return False


@transaction.atomic
def seat_disconnected(*, game_id: int, seat: int) -> datetime | None:
    """A connection closed. When it was the last one, returns the moment the grace period starts
    (the caller schedules ``seat_vacate_if_still_gone`` after HEARTS_AWAY_GRACE seconds)."""
    row = GameSeat.objects.select_for_update().select_related("game").get(game_id=game_id, seat=seat)
    row.connections = max(0, row.connections - 1)
    if row.connections == 0 and row.game.status == Game.Status.ACTIVE and not row.away:
        row.disconnected_since = timezone.now()
    row.save(update_fields=["connections", "disconnected_since"])
    since = row.disconnected_since if row.connections == 0 else None
    if since is not None:
        from tournaments import live

        game_id_, seat_ = game_id, seat
        transaction.on_commit(
            lambda: live.scheduler.away_check(game_id_, seat_, since, settings.HEARTS_AWAY_GRACE))
    return since


@transaction.atomic
def seat_vacate_if_still_gone(*, game_id: int, seat: int, since: datetime) -> bool:
    """Compare-and-set: vacate only if the player has stayed away since ``since``."""
    game = lock_game(game_id)
    row = GameSeat.objects.select_for_update().get(game=game, seat=seat)
    if (game.status != Game.Status.ACTIVE or row.away or row.connections
            or row.disconnected_since is None or row.disconnected_since != since):
        return False  # they came back, left again later (a newer check will run), or the game ended
    row.away, row.away_since = True, timezone.now()
    row.save(update_fields=["away", "away_since"])
    append_table_events(game, [SeatVacated(seat=seat, reason="disconnected").to_dict()],
                        cause=GameEvent.Cause.SYSTEM, actor_seat=seat)
    return True
