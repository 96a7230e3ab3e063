"""Play again: the players of a finished casual game are offered a new table with the same
rules, seats and CPUs. The first who asks sits down at their old seat; everyone else is
invited to theirs (``SeatInvitation``) and accepts as any invitation; the table starts once
all have. A game has at most one rematch (``Game.rematch_of`` is one-to-one), so several
players asking at once share one table.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from hearts_league.api import DomainError
from tournaments.dispatch import notify
from tournaments.games.services import SeatSpec, game_create, game_join, lock_game
from tournaments.models import Game, Player, SeatInvitation


def _refuse_unless_offered(game: Game, player: Player) -> list:
    if game.status != Game.Status.FINISHED:
        raise DomainError("game_not_over", "Play again is offered once the game is over.", status=409)
    if game.ranked or game.sealed or hasattr(game, "competition_table"):
        raise DomainError(
            "rematch_not_offered",
            "Ranked and tournament games are not played again from the "
            "table: the queue or the director seats the next one.",
            status=409,
        )
    seats = list(game.seats.select_related("player").order_by("seat"))
    if not any(s.player_id == player.pk for s in seats):
        raise DomainError("not_seated", "Only the game's players are offered to play again.", status=403)
    return seats


def game_rematch(*, game_id: int, player: Player, device_id: str = "") -> Game:
    """The new table for ``game_id``'s players, made on the first call (``player`` sits at
    their seat, the others are invited to theirs); later calls by the others sit them down
    (accepting their invitation). Returns the new game; 409 if it is not theirs to play."""
    try:
        with transaction.atomic():
            game = lock_game(game_id)
            seats = _refuse_unless_offered(game, player)
            rematch = Game.objects.filter(rematch_of=game).first()
            if rematch is None:
                specs = [
                    SeatSpec("cpu", bot=s.player.bot_kind)
                    if s.player and s.player.is_cpu
                    else SeatSpec("me")
                    if s.player_id == player.pk
                    else SeatSpec("invite", player_id=s.player_id)
                    if s.player_id
                    else SeatSpec("open")
                    for s in seats
                ]
                rematch = game_create(
                    creator=player,
                    rules=game.rules,
                    seats=specs,
                    turn_seconds=game.turn_seconds,
                    league=game.league,
                    device_id=device_id,
                )
                rematch.rematch_of = game
                rematch.save(update_fields=["rematch_of"])
                # rematch is the game just made; mypy widens a variable a lambda captures
                transaction.on_commit(lambda: _offered(game.pk, rematch.pk))  # type: ignore[union-attr]
                return rematch
    except IntegrityError:  # another player made it between our read and our insert: join theirs
        rematch = Game.objects.get(rematch_of_id=game_id)
    return _accept(rematch, player, device_id)


def _accept(rematch: Game, player: Player, device_id: str) -> Game:
    if rematch.seats.filter(player=player).exists():
        return rematch  # already there (asked twice)
    invited = SeatInvitation.objects.filter(game=rematch, player=player, status=SeatInvitation.Status.PENDING)
    if rematch.status != Game.Status.WAITING or not invited.exists():
        raise DomainError(
            "rematch_closed", "The new table has started or your invitation to it has lapsed.", status=409
        )
    return game_join(game_id=rematch.pk, player=player, device_id=device_id)


def _offered(game_id: int, rematch_id: int) -> None:
    """Tell whoever still looks at the finished table that a new one is offered."""
    notify.rematch_offered(game_id, rematch_id)
