"""What a game's change schedules once its transaction commits: CPU moves, turn timers, away
checks and the finished-game follow-ups. Tasks are sent to Celery by name (their code is in
``tournaments.autoplay.tasks``), so nothing that plays a game imports the code that plays for a seat.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from celery import Celery, current_app
from django.conf import settings
from django.utils import timezone

from tournaments.dispatch import notify

log = logging.getLogger(__name__)


# The tasks' names, as tournaments.autoplay.tasks registers them.
CPU_MOVE = "tournaments.cpu_move"
TURN_TIMEOUT = "tournaments.turn_timeout"
VACATE_IF_STILL_GONE = "tournaments.vacate_if_still_gone"
GAME_FINISHED = "tournaments.game_finished"
SWEEP = "tournaments.sweep"


class CeleryScheduler:
    """Sends tasks by name to a Celery app (the project's by default: a real worker, or the
    embedded one without Redis)."""

    def __init__(self, app: Celery | None = None):
        self.app = app

    def cpu_move(self, game_id: int, seq: int, delay: float) -> None:
        self._send(CPU_MOVE, [game_id, seq], delay)

    def turn_timer(self, game_id: int, deadline: datetime) -> None:
        countdown = max(0.0, (deadline - timezone.now()).total_seconds())
        self._send(TURN_TIMEOUT, [game_id, deadline.isoformat()], countdown)

    def game_finished(self, game_id: int) -> None:
        self._send(GAME_FINISHED, [game_id])

    def away_check(self, game_id: int, seat: int, since: datetime, delay: float) -> None:
        self._send(VACATE_IF_STILL_GONE, [game_id, seat, since.isoformat()], delay)

    def _send(self, name: str, args: list, countdown: float = 0.0) -> None:
        app = self.app or current_app
        app.send_task(name, args=args, countdown=countdown, queue=settings.CELERY_TASK_DEFAULT_QUEUE)


backend = CeleryScheduler()  # tests and benchmarks put a recorder here


def game_advanced(
    game_id: int, seq: int, cpu_to_act: bool, new_deadline: datetime | None, finished: bool = False
) -> None:
    """Called on commit of every change to a game: notify, then schedule what comes next."""
    notify.notify(game_id, seq)
    _follow_up(game_id, seq, cpu_to_act, new_deadline, finished)


async def game_advanced_async(
    game_id: int, seq: int, cpu_to_act: bool, new_deadline: datetime | None, finished: bool = False
) -> None:
    """:func:`game_advanced` from a server's event loop: the notification is sent from the loop,
    what is scheduled from a thread (sending a Celery task blocks), only when there is some."""
    notify.notify(game_id, seq)
    if finished or cpu_to_act or new_deadline is not None:
        await asyncio.to_thread(_follow_up, game_id, seq, cpu_to_act, new_deadline, finished)


def _follow_up(game_id: int, seq: int, cpu_to_act: bool, new_deadline: datetime | None, finished: bool) -> None:
    # The change is committed already: a broker that is down must not turn it into an error for
    # the client (who would retry a command that was applied). A lost CPU move or turn timer is
    # made by the sweeper (``tournaments.sweep``: cpu_due_at / turn_deadline are in the row).
    try:
        if finished:
            backend.game_finished(game_id)
        if cpu_to_act:
            backend.cpu_move(game_id, seq, settings.HEARTS_CPU_DELAY)
        if new_deadline is not None:
            backend.turn_timer(game_id, new_deadline)
    except Exception:
        log.exception("could not schedule the follow-ups of game %s at seq %s; the sweeper will", game_id, seq)
