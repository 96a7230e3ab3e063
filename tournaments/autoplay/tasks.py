"""Celery tasks: thin wrappers that call services (all idempotent, safe to redeliver). Their names
are those ``tournaments.dispatch.scheduler`` sends."""

from celery import shared_task
from django.utils.dateparse import parse_datetime

from tournaments.autoplay import moves, sweeper
from tournaments.dispatch import scheduler
from tournaments.live import presence


@shared_task(name=scheduler.CPU_MOVE)
def cpu_move(game_id: int, seq: int) -> bool:
    """A CPU seat is to act at ``seq``: make its move (nothing if the game moved on)."""
    return moves.game_cpu_move(game_id=game_id, seq=seq)


@shared_task(name=scheduler.TURN_TIMEOUT)
def turn_timeout(game_id: int, deadline: str) -> int:
    """A turn's time ran out: the CPU moves for whoever is still awaited (nothing if stale)."""
    # the scheduler sends the deadline's isoformat(), which parse_datetime reads back
    return moves.game_turn_expired(game_id=game_id, deadline=parse_datetime(deadline))  # type: ignore[arg-type]


@shared_task(name=scheduler.VACATE_IF_STILL_GONE)
def vacate_if_still_gone(game_id: int, seat: int, since: str) -> bool:
    """After the grace period: a player still disconnected gets a CPU in their seat."""
    # the scheduler sends since's isoformat(), which parse_datetime reads back
    return presence.seat_vacate_if_still_gone(game_id=game_id, seat=seat, since=parse_datetime(since))  # type: ignore[arg-type]


@shared_task(name=scheduler.SWEEP)
def sweep() -> int:
    """Periodic: make the moves of timers lost with a crashed worker."""
    return sweeper.sweep_stalled_games()


@shared_task(name=scheduler.GAME_FINISHED)
def game_finished(game_id: int) -> None:
    """A game ended: run each follow-up in HEARTS_GAME_FINISHED_HOOKS (ratings, tournament rounds).

    Every hook is idempotent per game, so a redelivered task changes nothing.
    """
    sweeper.game_run_finished_hooks(game_id=game_id)
