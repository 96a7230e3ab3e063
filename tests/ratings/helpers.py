"""Finished ranked games built as rows (no event log), and snapshots of what ratings store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ratings.models import Rating, RatingHistory
from tests.factories import GameFactory, GameSeatFactory

T0 = datetime(2025, 3, 1, 19, 0, tzinfo=UTC)


def finished_game(players, totals, *, league=None, ranked=True, finished_at=None, away=(), status="finished"):
    """A game of ``players`` (seat order) that ended with ``totals``."""
    finished_at = finished_at or T0
    game = GameFactory(
        rules={"players": len(players)},
        ranked=ranked,
        league=league,
        status=status,
        final_totals=list(totals) if status == "finished" else None,
        winner_seat=min(range(len(totals)), key=lambda s: totals[s]),
        started_at=finished_at - timedelta(minutes=40),
        finished_at=finished_at if status == "finished" else None,
    )
    for seat, player in enumerate(players):
        GameSeatFactory(game=game, seat=seat, player=player, away=seat in away)
    return game


def ratings_snapshot():
    """Every stored rating and history row, as plain comparable tuples."""
    ratings = sorted(
        Rating.objects.values_list(
            "player_id",
            "league_id",
            "model_name",
            "model_params",
            "mu",
            "sigma",
            "conservative",
            "games",
            "provisional",
            "last_played_at",
        ),
        key=lambda row: (row[0], row[1] or 0),
    )
    history = sorted(
        RatingHistory.objects.values_list(
            "player_id",
            "league_id",
            "game_id",
            "rating__player_id",
            "seat",
            "total",
            "place",
            "rated_players",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
            "played_at",
        ),
        key=lambda row: (row[2], row[0], row[1] or 0),
    )
    return ratings, history


def global_rating(player):
    return Rating.objects.get(player=player, league__isnull=True)
