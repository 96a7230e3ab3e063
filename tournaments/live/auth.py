"""Who a WebSocket connection is: Channels' cookie, session and auth middleware, minus the
session's wrapper around every frame sent.

Channels' ``SessionMiddleware`` wraps ``send`` so that a modified session is saved before an
HTTP response starts (``InstanceSessionWrapper.save_message_types``). On a WebSocket nothing it
waits for is ever sent, yet the wrapper still read the session twice through its lazy object for
every frame: at five frames a card play, about 1% of a Daphne process's CPU (``bench/load.py``).
Connections read the session and the user when they open, as before; nothing here writes it.
"""

from __future__ import annotations

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from django.contrib.auth.models import AnonymousUser


class WebSocketSessionMiddleware(SessionMiddleware):
    """``scope["session"]`` from the session cookie, with the connection's own ``send``."""

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await super().__call__(scope, receive, send)
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


class WebSocketAuthMiddleware(AuthMiddleware):
    """``scope["user"]`` from the session, as Channels' ``AuthMiddleware`` reads it, except that a
    connection with no session cookie (a ticket's: the load clients, other servers' clients) is
    anonymous at once: Channels would send it to the database thread to find no session there."""

    async def resolve_scope(self, scope):
        if scope["session"].session_key is None:
            scope["user"]._wrapped = AnonymousUser()
            return
        await super().resolve_scope(scope)


def websocket_auth_stack(inner):
    """Channels' ``AuthMiddlewareStack`` for WebSocket routes: ``scope["user"]`` from the session."""
    return CookieMiddleware(WebSocketSessionMiddleware(WebSocketAuthMiddleware(inner)))
