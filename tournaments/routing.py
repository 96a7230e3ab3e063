"""WebSocket routes (served by Channels under Daphne)."""

websocket_urlpatterns: list = []
