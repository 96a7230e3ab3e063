"""Moves made for a seat by a CPU: for CPU players, for players who are away, and for players
whose turn time ran out.

Every move made here goes through ``game_execute_command`` with ``expected_seq`` and a
deterministic ``command_id``, so a stale or redelivered task appends nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from hearts_league.api import DomainError
from tournaments.dispatch import scheduler
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command
from tournaments.games.turns import bot_for_seat, cpu_command_id, cpu_seats
from tournaments.models import Game, GameEvent


def _bot_for(game: Game, seat: int):
    return bot_for_seat(game, game.seats.select_related("player").get(seat=seat))


def _move_for(game: Game, seats: set[int], cause: str) -> bool:
    """Make one move for the first of ``seats`` the game awaits. True if a move was made."""
    to_act, views = eventstore.read_engine_game(
        game, lambda state: (state.to_act, {seat: state.view(seat) for seat in state.to_act if seat in seats})
    )
    seat = next((s for s in to_act if s in seats), None)
    if seat is None:
        return False
    command = _bot_for(game, seat).decide(views[seat])
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
    """The turn timer set for ``deadline`` fired: the CPU moves for every human still awaited.
    If the turn moved on to a later deadline meanwhile, the timer is set again for that one
    (plays do not send timers while one is pending: games.turns.plan_turn). Returns moves made."""
    moves = 0
    while True:
        game = Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE).first()
        if game is None or game.turn_deadline is None:
            return moves  # over, or nobody on the clock (a CPU's turn): no timer needed
        if game.turn_deadline != deadline:
            if moves == 0 and game.turn_deadline > deadline:
                scheduler.backend.turn_timer(game.pk, game.turn_deadline)  # the turn moved on
            return moves
        if timezone.now() < deadline:
            if moves == 0:
                scheduler.backend.turn_timer(game.pk, deadline)  # delivered early: wait for it
            return moves
        by_cpu = cpu_seats(game)
        humans = {s.seat for s in game.seats.all()} - by_cpu
        if not _move_for(game, humans, GameEvent.Cause.TIMER):
            if Game.objects.filter(pk=game_id, seq=game.seq).exists():
                return moves  # no human is awaited
            continue  # a player moved just in time: look again (the timer may need setting again)
        moves += 1
        # passing: the deadline stays until every seat has passed, so the loop sees it again
