"""Whose turn it is, turn deadlines, and moves made for a seat by a CPU: for CPU players,
for players who are away, and for players whose turn time ran out.

Every move made here goes through ``game_execute_command`` with ``expected_seq`` and a
deterministic ``command_id``, so a stale or redelivered task appends nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import import_string

import engine
from hearts_league.api import DomainError
from tournaments import eventstore
from tournaments.models import Game, GameEvent, GameSeat

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnPlan:
    """What to schedule once the transaction commits."""

    cpu_to_act: bool = False
    new_deadline: datetime | None = None


def turn_key(state: engine.Game) -> str:
    """Identifies the turn awaited: passing keeps one key (and one deadline) until all have passed."""
    if state.phase == "playing":
        play = state.state  # the trick number and cards in the trick, as the view shows them
        return f"{state.hand_number}:{min(play.tricks_done + 1, play.hand_size)}:{len(play.trick)}"
    return f"{state.hand_number}:{state.phase}"


def cpu_seats(game: Game, seats=None) -> set[int]:
    """Seats a CPU plays now: CPU players, and players who are away."""
    rows = seats if seats is not None else game.seats.select_related("player")
    return {s.seat for s in rows if s.player is not None and s.played_by_cpu}


def plan_turn(game: Game, state: engine.Game, seats=None) -> TurnPlan:
    """Set the game's turn fields for the state it is now in (the caller saves the row).

    ``seats``: the game's seats with their players, if the caller has them already.
    """
    now = timezone.now()
    if game.status != Game.Status.ACTIVE or state.phase == "game_over":
        game.turn_key, game.turn_deadline, game.cpu_due_at = "", None, None
        return TurnPlan()
    to_act = state.to_act
    by_cpu = cpu_seats(game, seats)
    cpu_to_act = any(seat in by_cpu for seat in to_act)
    humans_to_act = [seat for seat in to_act if seat not in by_cpu]
    key = turn_key(state)
    new_deadline = None
    if humans_to_act and game.turn_seconds:
        if key != game.turn_key or game.turn_deadline is None:
            seconds = game.turn_seconds * settings.HEARTS_TURN_TIME_SCALE
            game.turn_deadline = new_deadline = now + timedelta(seconds=seconds)
    else:
        game.turn_deadline = None
    game.turn_key = key
    game.cpu_due_at = (game.cpu_due_at or now) if cpu_to_act else None
    return TurnPlan(cpu_to_act=cpu_to_act, new_deadline=new_deadline)


def _bot_for(game: Game, seat: int):
    return bot_for_seat(game, game.seats.select_related("player").get(seat=seat))


def bot_for_seat(game: Game, row: GameSeat):
    """The bot that moves for this seat (with its player) now: its CPU's kind, or the stand-in
    for an away player, seeded by the game's position so that a redelivered move is the same."""
    from engine import bots

    kind = row.player.bot_kind if row.player.is_cpu else settings.HEARTS_STANDIN_BOT
    return bots.make(kind, seed=f"{game.pk}:{game.seq}:{row.seat}")


def cpu_command_id(cause: str, game: Game, seat: int) -> str:
    """The deterministic command id of a move made for ``seat`` at the game's seq."""
    return f"{cause}:{game.seq}:{seat}"


def _move_for(game: Game, seats: set[int], cause: str) -> bool:
    """Make one move for the first of ``seats`` the game awaits. True if a move was made."""
    to_act, views = eventstore.read_engine_game(
        game, lambda state: (state.to_act, {seat: state.view(seat) for seat in state.to_act if seat in seats})
    )
    seat = next((s for s in to_act if s in seats), None)
    if seat is None:
        return False
    command = _bot_for(game, seat).decide(views[seat])
    from tournaments.services.games import game_execute_command

    try:
        game_execute_command(
            game_id=game.pk,
            seat=seat,
            command=command,
            expected_seq=game.seq,
            command_id=cpu_command_id(cause, game, seat),
            cause=cause,
        )
    except DomainError as error:
        if error.error_code == "stale_state":
            return False  # someone else moved first: nothing to do
        raise
    return True


def game_cpu_move(*, game_id: int, seq: int) -> bool:
    """A CPU (or the stand-in for an away player) makes its move, if the game is still at ``seq``."""
    game = Game.objects.filter(pk=game_id, seq=seq, status=Game.Status.ACTIVE).first()
    if game is None:
        return False  # stale: the game moved on or ended
    return _move_for(game, cpu_seats(game), GameEvent.Cause.CPU)


def game_turn_expired(*, game_id: int, deadline: datetime) -> int:
    """The turn timer fired: the CPU moves for every human still awaited. Returns moves made."""
    moves = 0
    while True:
        game = Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE, turn_deadline=deadline).first()
        if game is None or timezone.now() < deadline:
            return moves  # stale timer (someone moved, or a new turn began), or not due yet
        by_cpu = cpu_seats(game)
        humans = {s.seat for s in game.seats.all()} - by_cpu
        if not _move_for(game, humans, GameEvent.Cause.TIMER):
            return moves
        moves += 1
        # passing: the deadline stays until every seat has passed, so the loop sees it again


def game_run_finished_hooks(*, game_id: int) -> None:
    """Run HEARTS_GAME_FINISHED_HOOKS (each idempotent per game) and record that they completed."""
    for path in settings.HEARTS_GAME_FINISHED_HOOKS:
        import_string(path)(game_id=game_id)
    Game.objects.filter(pk=game_id, followups_done_at__isnull=True).update(followups_done_at=timezone.now())


def sweep_stalled_games(*, grace_seconds: float | None = None) -> int:
    """Make the moves that lost timers would have made (a crashed worker, a lost message), drop
    the connections of server processes that died and hand on seats whose away check was lost,
    and run the finished-game hooks of games whose ``game_finished`` task was lost."""
    grace = timedelta(seconds=settings.HEARTS_SWEEP_GRACE if grace_seconds is None else grace_seconds)
    cutoff = timezone.now() - grace
    moved = 0
    for game_id, deadline in Game.objects.filter(status=Game.Status.ACTIVE, turn_deadline__lt=cutoff).values_list(
        "pk", "turn_deadline"
    ):
        moved += game_turn_expired(game_id=game_id, deadline=deadline)
    for game_id, seq in Game.objects.filter(status=Game.Status.ACTIVE, cpu_due_at__lt=cutoff).values_list("pk", "seq"):
        moved += int(game_cpu_move(game_id=game_id, seq=seq))
    if moved:
        log.warning("sweeper made %s overdue move(s)", moved)
    from tournaments.services.presence import sweep_presence

    if handled := sweep_presence():
        log.warning(
            "sweeper dropped connections of stopped server processes or handed on seats whose away check was lost (%s)",
            handled,
        )
    from tournaments.services.games import invitations_expire

    if expired := invitations_expire():
        log.info("sweeper expired %s invitation(s)", expired)
    unfinished_followups = Game.objects.filter(
        status=Game.Status.FINISHED, followups_done_at__isnull=True, finished_at__lt=cutoff
    ).values_list("pk", flat=True)
    for game_id in unfinished_followups[:50]:
        log.warning("sweeper runs the finished-game hooks of game %s (its task was lost)", game_id)
        game_run_finished_hooks(game_id=game_id)
    return moved
