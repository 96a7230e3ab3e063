"""Writes of the ratings app. ``rating_record_game`` is a finished-game hook
(``HEARTS_GAME_FINISHED_HOOKS``); matchmaking lives in ``ratings.services.matchmaking``."""

from ratings.services.ratings import (
    RatedSeat,
    rated_seats,
    rating_rebuild_pool,
    rating_record_game,
    ratings_rebuild,
)

__all__ = ["RatedSeat", "rated_seats", "rating_rebuild_pool", "rating_record_game", "ratings_rebuild"]
