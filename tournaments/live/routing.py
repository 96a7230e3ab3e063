"""WebSocket routes (served by Channels under Daphne)."""

from django.urls import path

from tournaments.live.board_consumer import TournamentBoardConsumer
from tournaments.live.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentBoardConsumer.as_asgi()),
]
