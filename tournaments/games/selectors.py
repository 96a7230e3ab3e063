"""Reads of games: querysets the API, the consumers and the admin share."""

from django.utils import timezone

from tournaments.models import Game, SeatInvitation


def games_list(*, player_id=None, status=None, ranked=None, league_id=None, created_after=None, created_before=None):
    """Games, newest first, filtered as the lobby and history pages need."""
    games = Game.objects.prefetch_related("seats__player")
    if player_id is not None:
        games = games.filter(seats__player_id=player_id)
    if status:
        games = games.filter(status=status)
    if ranked is not None:
        games = games.filter(ranked=ranked)
    if league_id is not None:
        games = games.filter(league_id=league_id)
    if created_after is not None:
        games = games.filter(created_at__gte=created_after)
    if created_before is not None:
        games = games.filter(created_at__lt=created_before)
    return games.distinct()


def held_invitations(game):
    """The game's pending invitations that still hold their seat, with the invited players."""
    return SeatInvitation.objects.filter(
        game=game, status=SeatInvitation.Status.PENDING, expires_at__gt=timezone.now()
    ).select_related("player")


def invitations_for(player):
    """A player's invitations, newest first (pending ones that expired read as expired)."""
    return SeatInvitation.objects.filter(player=player).select_related("game", "invited_by")


def game_events_after(game, after: int = 0, up_to: int | None = None):
    """A game's events with seq > after (and <= up_to), in order."""
    events = game.events.filter(seq__gt=after).order_by("seq")
    return events.filter(seq__lte=up_to) if up_to is not None else events
