"""Turn planning: whose turn it is, the turn's deadline, which seats a CPU plays now, and the
bot and command id of a move made for a seat. Pure bookkeeping on the game row: it schedules
nothing and moves for nobody (``tournaments.autoplay`` does, after commit).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

import engine
from engine import bots
from engine.core import PlayState
from tournaments.models import Game, GameSeat


@dataclass(frozen=True)
class TurnPlan:
    """What to schedule once the transaction commits."""

    cpu_to_act: bool = False
    new_deadline: datetime | None = None


def turn_key(state: engine.Game) -> str:
    """Identifies the turn awaited: passing keeps one key (and one deadline) until all have passed."""
    if state.phase == engine.Phase.PLAYING:
        # the trick number and cards in the trick, as the view shows them (set while playing)
        play: PlayState = state.state  # type: ignore[assignment]
        return f"{state.hand_number}:{min(play.tricks_done + 1, play.hand_size)}:{len(play.trick)}"
    return f"{state.hand_number}:{state.phase}"


def cpu_seats(game: Game, seats=None) -> set[int]:
    """Seats a CPU plays now: CPU players, and players who are away."""
    rows = seats if seats is not None else game.seats.select_related("player")
    return {s.seat for s in rows if s.played_by_cpu}


def plan_turn(game: Game, state: engine.Game, seats=None) -> TurnPlan:
    """Set the game's turn fields for the state it is now in (the caller saves the row).

    ``seats``: the game's seats with their players, if the caller has them already.
    """
    now = timezone.now()
    if game.status != Game.Status.ACTIVE or state.phase == engine.Phase.GAME_OVER:
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


def bot_for_seat(game: Game, row: GameSeat):
    """The bot that moves for this seat (with its player) now: its CPU's kind, or the stand-in
    for an away player, seeded by the game's position so that a redelivered move is the same."""
    # seated
    kind = row.player.bot_kind if row.player.is_cpu else settings.HEARTS_STANDIN_BOT  # type: ignore[union-attr]
    return bots.make(kind, seed=f"{game.pk}:{game.seq}:{row.seat}")


def cpu_command_id(cause: str, game: Game, seat: int) -> str:
    """The deterministic command id of a move made for ``seat`` at the game's seq."""
    return f"{cause}:{game.seq}:{seat}"
