"""Reads of clubs, leagues and players: querysets the API and admin share."""

from tournaments.models import League, Player


def leagues_list():
    """All leagues with their club, for listing."""
    return League.objects.select_related("club")


def players_list(*, cpu: bool | None = None):
    """Players, optionally only CPUs (``cpu=True``) or only humans (``cpu=False``)."""
    players = Player.objects.select_related("club")
    if cpu is True:
        players = players.exclude(bot_kind="")
    elif cpu is False:
        players = players.filter(bot_kind="")
    return players
