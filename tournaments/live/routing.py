"""WebSocket routes (served by Channels under Daphne)."""

from django.urls import path

from tournaments.live.board_consumer import TournamentBoardConsumer
from tournaments.live.consumers import GameConsumer

websocket_urlpatterns = [
    # channels routes ASGI applications with django's path(); django-stubs' path() takes views only
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/tournaments/<int:tournament_id>/", TournamentBoardConsumer.as_asgi()),  # type: ignore[arg-type]
]
