"""ASGI entry point: Django (HTTP, REST API, admin) and Channels (WebSockets) on one port.

Serve it with ``daphne hearts_league.asgi:application``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")
django_asgi_app = get_asgi_application()  # sets up Django before the consumers are imported

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from hearts_league.runtime import settle_garbage_collector  # noqa: E402
from tournaments.live.auth import websocket_auth_stack  # noqa: E402
from tournaments.live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # a list of django path()s, which URLRouter takes (types-channels: invariant list of its own type)
        "websocket": AllowedHostsOriginValidator(websocket_auth_stack(URLRouter(websocket_urlpatterns))),  # type: ignore[arg-type]
    }
)


get_resolver().url_patterns  # noqa: B018 (load the URLconf now, before start-up is frozen)
settle_garbage_collector()

if settings.CELERY_EMBEDDED_WORKER:
    from hearts_league.celery import start_embedded_worker

    start_embedded_worker()
