"""Moves made for a seat by a CPU: for CPU players, for players who are away, and for players
whose turn time ran out.

Every move made here goes through ``game_execute_command`` with ``expected_seq`` and a
deterministic ``command_id``, so a stale or redelivered task appends nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from hearts_league.api import DomainError
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
