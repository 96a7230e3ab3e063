from django.urls import path

from ratings.api import (
    GlobalLeaderboardView,
    LeagueLeaderboardView,
    PlayerGamesView,
    PlayerRatingsView,
    RankedQueueView,
)

urlpatterns = [
    path("leaderboard", GlobalLeaderboardView.as_view(), name="leaderboard"),
    path("leagues/<int:league_id>/leaderboard", LeagueLeaderboardView.as_view(), name="league-leaderboard"),
    path("players/<int:player_id>/ratings", PlayerRatingsView.as_view(), name="player-ratings"),
    path("players/<int:player_id>/games", PlayerGamesView.as_view(), name="player-games"),
    path("ranked/queue", RankedQueueView.as_view(), name="ranked-queue"),
]
