"""What a game's change schedules once its transaction commits: CPU moves, turn timers, away
checks and the finished-game follow-ups. Tasks are sent to Celery by name (their code is in
``tournaments.autoplay.tasks``), so nothing that plays a game imports the code that plays for a seat.

A change written from a server's event loop (a live player's move) keeps its turn's deadline on
that loop instead of sending a turn timer per card played (:class:`LoopTurnClocks`).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import weakref
from datetime import datetime
from typing import TYPE_CHECKING

from celery import Celery, current_app
from django.conf import settings
from django.utils import timezone

from tournaments.dispatch import notify

if TYPE_CHECKING:
    from tournaments.models import Game

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
    game_id: int, seq: int, cpu_to_act: bool, deadline: datetime | None, finished: bool = False
) -> None:
    """:func:`game_advanced` from a server's event loop: the notification is sent from the loop,
    the turn's ``deadline`` (the row's, after the change; None: no clock runs) is kept by the
    loop's clocks, and the rest is sent from a thread (sending a Celery task blocks), only when
    there is some, without waiting for it: a slow broker never holds up the game's next move."""
    notify.notify(game_id, seq)
    turn_clocks().keep(game_id, None if finished else deadline)
    if finished or cpu_to_act:
        _in_a_thread(_follow_up, game_id, seq, cpu_to_act, None, finished)


def game_announced_again(game: Game) -> None:
    """Notify and schedule what follows from the row as stored (``game``, read afresh), after a
    change whose outcome was lost (its statement may have committed unannounced): its CPU move,
    its turn timer, its finished-game follow-ups. Each is idempotent, so sending one twice is
    harmless."""
    notify.notify(game.pk, game.seq)
    _follow_up(game.pk, game.seq, game.cpu_due_at is not None, game.turn_deadline, game.is_over)


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


# --- turn clocks kept on a server's event loop ---------------------------------------------------

TURN_TIMER_LEAD = 1.0
"""Seconds before a deadline kept on a loop at which its turn timer is sent. The task carries the
deadline and the worker runs it then (Celery's countdown is an absolute time), so sent early it
is waiting in the worker when the deadline comes instead of crossing the broker after it."""


class LoopTurnClocks:
    """The turn deadlines of the games whose live moves one event loop wrote, one timer each.

    At a clocked table every card played starts the next turn, with a new deadline. Sending a
    Celery countdown for each (as :func:`game_advanced` does) costs the server a broker round trip
    a play and leaves the worker holding every timer a later play made stale; kept here, a play
    replaces the game's timer on the loop, and only a deadline that comes near sends its task.
    A server that stops (a deploy, Ctrl-C) hands the deadlines it still holds to Celery as it
    exits (:func:`hand_over_turn_clocks`); one that crashes loses them, and the sweeper makes the
    overdue moves (``HEARTS_SWEEP_GRACE`` after the deadline, at its next run).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop):
        # Weakly: a loop that ends (every test's) is not kept alive by its clocks or their timers.
        self._loop = weakref.ref(loop)
        self._pending: dict[int, tuple[datetime, weakref.ref[asyncio.TimerHandle]]] = {}

    def keep(self, game_id: int, deadline: datetime | None) -> None:
        """From the loop: the game's turn deadline is now ``deadline`` (None: none runs); set, move
        or stop its timer."""
        held = self._pending.get(game_id)
        if held is not None and held[0] == deadline:
            return
        if held is not None:
            del self._pending[game_id]
            if (timer := held[1]()) is not None:
                timer.cancel()
        if deadline is None:
            return
        delay = max(0.0, (deadline - timezone.now()).total_seconds() - TURN_TIMER_LEAD)
        timer = asyncio.get_running_loop().call_later(delay, self._due, game_id, deadline)
        self._pending[game_id] = (deadline, weakref.ref(timer))

    def deadline(self, game_id: int) -> datetime | None:
        """The deadline this loop keeps for the game, if any."""
        held = self._pending.get(game_id)
        return held[0] if held is not None else None

    def hand_over(self) -> int:
        """Send every deadline still held to Celery now (each fires at its deadline); how many."""
        pending, self._pending = self._pending, {}
        for game_id, (deadline, timer) in pending.items():
            if (handle := timer()) is not None:
                handle.cancel()
            _send_turn_timer(game_id, deadline)
        return len(pending)

    def running(self) -> bool:
        """Whether its loop still exists and is not closed (a stopped server's loop is not closed)."""
        loop = self._loop()
        return loop is not None and not loop.is_closed()

    def _due(self, game_id: int, deadline: datetime) -> None:
        self._pending.pop(game_id, None)
        _in_a_thread(_send_turn_timer, game_id, deadline)


_loop_clocks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopTurnClocks] = weakref.WeakKeyDictionary()


def turn_clocks() -> LoopTurnClocks:
    """The running event loop's turn clocks."""
    loop = asyncio.get_running_loop()
    clocks = _loop_clocks.get(loop)
    if clocks is None:
        clocks = _loop_clocks[loop] = LoopTurnClocks(loop)
    return clocks


@atexit.register
def hand_over_turn_clocks() -> int:
    """At exit, the turn deadlines every loop of this process still holds go to Celery: a server
    stopped for a deploy leaves no turn without its timer. (Loops that ended, as tests' do, hold
    nothing that matters.) Returns how many were sent."""
    return sum(clocks.hand_over() for clocks in list(_loop_clocks.values()) if clocks.running())


def _send_turn_timer(game_id: int, deadline: datetime) -> None:
    try:
        backend.turn_timer(game_id, deadline)
    except Exception:
        log.exception("could not send the turn timer of game %s; the sweeper will make its move", game_id)


_in_flight: set[asyncio.Future] = set()


def _in_a_thread(function, *args) -> None:
    """Run ``function(*args)`` (it logs its own failures) on the running loop's executor, without
    waiting for it (a reference is kept until it is done: the loop keeps only a weak one)."""
    running = asyncio.get_running_loop().run_in_executor(None, function, *args)
    _in_flight.add(running)
    running.add_done_callback(_in_flight.discard)
