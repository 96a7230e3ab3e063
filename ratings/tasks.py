"""Celery tasks: thin wrappers over the services (idempotent, safe to redeliver)."""

from celery import shared_task

from ratings.services import rating_record_game
from ratings.services.matchmaking import ranked_queue_match


@shared_task(name="ratings.record_game")
def record_game(game_id: int) -> int:
    """Rate a finished ranked game (normally run by the ``tournaments.game_finished`` hook list)."""
    return rating_record_game(game_id=game_id)


@shared_task(name="ratings.match_ranked_queue")
def match_ranked_queue() -> int:
    """Periodic: seat waiting players whose windows have widened enough; returns games created."""
    return len(ranked_queue_match())
