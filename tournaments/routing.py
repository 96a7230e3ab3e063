"""WebSocket routes (served by Channels under Daphne)."""

from django.urls import path

from tournaments.consumers import GameConsumer

websocket_urlpatterns = [path("ws/games/<int:game_id>/", GameConsumer.as_asgi())]
