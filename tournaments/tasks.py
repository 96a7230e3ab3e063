"""Celery tasks: thin wrappers that call services (all idempotent, safe to redeliver)."""

from celery import shared_task
from django.utils.dateparse import parse_datetime

from tournaments.services import turns


@shared_task(name="tournaments.cpu_move")
def cpu_move(game_id: int, seq: int) -> bool:
    """A CPU seat is to act at ``seq``: make its move (nothing if the game moved on)."""
    return turns.game_cpu_move(game_id=game_id, seq=seq)


@shared_task(name="tournaments.turn_timeout")
def turn_timeout(game_id: int, deadline: str) -> int:
    """A turn's time ran out: the CPU moves for whoever is still awaited (nothing if stale)."""
    return turns.game_turn_expired(game_id=game_id, deadline=parse_datetime(deadline))


@shared_task(name="tournaments.vacate_if_still_gone")
def vacate_if_still_gone(game_id: int, seat: int, since: str) -> bool:
    """After the grace period: a player still disconnected gets a CPU in their seat."""
    from tournaments.services.presence import seat_vacate_if_still_gone

    return seat_vacate_if_still_gone(game_id=game_id, seat=seat, since=parse_datetime(since))


@shared_task(name="tournaments.sweep")
def sweep() -> int:
    """Periodic: make the moves of timers lost with a crashed worker."""
    return turns.sweep_stalled_games()


@shared_task(name="tournaments.game_finished")
def game_finished(game_id: int) -> None:
    """A game ended: run each follow-up in HEARTS_GAME_FINISHED_HOOKS (ratings, tournament rounds).

    Every hook is idempotent per game, so a redelivered task changes nothing.
    """
    turns.game_run_finished_hooks(game_id=game_id)
