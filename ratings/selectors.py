"""Reads: the pool's rating model, leaderboards, a player's ratings and history, the queue."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import F
from django.utils import timezone

from ratings.conf import setting
from ratings.models import QueueEntry, Rating, RatingHistory
from ratings.rating import RatingModel, make_model
from tournaments.models import Game, GameSeat


def pool_filter(league_id: int | None, prefix: str = "") -> dict:
    """Query arguments selecting one pool: a league's, or the global one (``None``)."""
    if league_id is None:
        return {f"{prefix}league__isnull": True}
    return {f"{prefix}league_id": league_id}


def pool_model(*, league_id: int | None) -> RatingModel:
    """The model a pool is rated with: the one stored with its ratings, else the configured one."""
    stored = Rating.objects.filter(**pool_filter(league_id)).values("model_name", "model_params").first()
    if stored is not None:
        return make_model(stored["model_name"], **stored["model_params"])
    return make_model(setting("RATINGS_MODEL"), **setting("RATINGS_MODEL_PARAMS"))


@dataclass
class Leaderboard:
    league_id: int | None
    model_name: str
    min_games: int
    active_days: int
    ranked: list[Rating] = field(default_factory=list)  # each with .rank
    provisional: list[Rating] = field(default_factory=list)


def leaderboard(*, league_id: int | None = None, now: datetime | None = None,
                limit: int | None = None) -> Leaderboard:
    """Established players ranked by the conservative estimate (ties share a rank), and the
    provisional players apart; both only with enough games and recent activity."""
    now = now or timezone.now()
    min_games = setting("RATINGS_LEADERBOARD_MIN_GAMES")
    active_days = setting("RATINGS_LEADERBOARD_ACTIVE_DAYS")
    rows = (Rating.objects.filter(**pool_filter(league_id))
            .filter(games__gte=min_games, last_played_at__gte=now - timedelta(days=active_days))
            .select_related("player").order_by("-conservative", "-games", "player_id"))
    board = Leaderboard(league_id=league_id, model_name=pool_model(league_id=league_id).name,
                        min_games=min_games, active_days=active_days)
    ranked = rows.filter(provisional=False)
    board.ranked = list(ranked[:limit] if limit else ranked)
    previous = None
    for position, row in enumerate(board.ranked, start=1):
        row.rank = previous.rank if previous and previous.conservative == row.conservative else position
        previous = row
    provisional = rows.filter(provisional=True)
    board.provisional = list(provisional[:limit] if limit else provisional)
    return board


def player_ratings(*, player_id: int):
    """A player's rating in every pool: global first, then leagues."""
    return (Rating.objects.filter(player_id=player_id).select_related("league")
            .order_by(F("league_id").asc(nulls_first=True)))


def player_rating_history(*, player_id: int, league_id: int | None = None, global_only: bool = False):
    """A player's rated games, newest first: every pool, one league, or the global pool."""
    rows = RatingHistory.objects.filter(player_id=player_id).select_related("league")
    if global_only:
        rows = rows.filter(league__isnull=True)
    elif league_id is not None:
        rows = rows.filter(league_id=league_id)
    return rows.order_by("-played_at", "-game_id", F("league_id").asc(nulls_first=True))


def queue_entry_current(*, player_id: int) -> QueueEntry | None:
    """The player's latest queue entry (waiting, matched or left), if any."""
    entries = QueueEntry.objects.filter(player_id=player_id).select_related("game")
    return entries.order_by("-joined_at", "-id").first()


def unfinished_game_of(*, player_id: int) -> int | None:
    """The id of a game not yet finished (waiting or active) in which the player sits themselves,
    not handed over to a CPU (``away``); the newest if several, else ``None``."""
    seats = GameSeat.objects.filter(player_id=player_id, away=False,
                                    game__status__in=[Game.Status.WAITING, Game.Status.ACTIVE])
    return seats.order_by("-game__created_at", "-game_id").values_list("game_id", flat=True).first()
