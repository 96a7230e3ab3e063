"""The sweeper (a periodic task) and the finished-game follow-ups: what lost timers, lost
messages and crashed workers would otherwise leave undone."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import import_string

from tournaments.autoplay.moves import game_cpu_move, game_turn_expired
from tournaments.games.services import invitations_expire
from tournaments.live.presence import sweep_presence
from tournaments.models import Game

log = logging.getLogger(__name__)


def game_run_finished_hooks(*, game_id: int) -> None:
    """Run HEARTS_GAME_FINISHED_HOOKS (each idempotent per game) and record that they completed."""
    for path in settings.HEARTS_GAME_FINISHED_HOOKS:
        import_string(path)(game_id=game_id)
    Game.objects.filter(pk=game_id, followups_done_at__isnull=True).update(followups_done_at=timezone.now())


def sweep_stalled_games(*, grace_seconds: float | None = None) -> int:
    """Make the moves that lost timers would have made (a crashed worker, a lost message), drop
    the connections of server processes that died and mark away the seats whose away check was lost,
    and run the finished-game hooks of games whose ``game_finished`` task was lost."""
    grace = timedelta(seconds=settings.HEARTS_SWEEP_GRACE if grace_seconds is None else grace_seconds)
    cutoff = timezone.now() - grace
    moved = 0
    for game_id, deadline in Game.objects.filter(status=Game.Status.ACTIVE, turn_deadline__lt=cutoff).values_list(
        "pk", "turn_deadline"
    ):
        moved += game_turn_expired(game_id=game_id, deadline=deadline)  # type: ignore[arg-type]  # __lt: set
    for game_id, seq in Game.objects.filter(status=Game.Status.ACTIVE, cpu_due_at__lt=cutoff).values_list("pk", "seq"):
        moved += int(game_cpu_move(game_id=game_id, seq=seq))
    if moved:
        log.warning("sweeper made %s overdue move(s)", moved)
    if handled := sweep_presence():
        log.warning(
            "sweeper dropped connections of dead server processes or marked away seats whose check was lost (%s)",
            handled,
        )
    if expired := invitations_expire():
        log.info("sweeper expired %s invitation(s)", expired)
    unfinished_followups = Game.objects.filter(
        status=Game.Status.FINISHED, followups_done_at__isnull=True, finished_at__lt=cutoff
    ).values_list("pk", flat=True)
    for game_id in unfinished_followups[:50]:
        log.warning("sweeper runs the finished-game hooks of game %s (its task was lost)", game_id)
        game_run_finished_hooks(game_id=game_id)
    return moved
