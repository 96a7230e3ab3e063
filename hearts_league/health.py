"""``/healthz``: is the service able to serve a club night right now?"""

import asyncio
import contextlib
import time
import uuid

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connection
from django.http import JsonResponse


def _check_database():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _check_channel_layer():
    from channels.layers import get_channel_layer

    layer = get_channel_layer()

    async def round_trip():
        channel = await layer.new_channel("healthz.")
        await layer.send(channel, {"type": "healthz.ping", "id": str(uuid.uuid4())})
        await asyncio.wait_for(layer.receive(channel), timeout=2)
        # A cancelled receive is how a channel is given up (the pub/sub layer unsubscribes).
        leftover = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0)
        leftover.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await leftover

    async_to_sync(round_trip)()


def _check_broker():
    from hearts_league.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)


def healthz(request):
    """Check the database, and the channel layer and Celery broker when Redis is configured."""
    checks = {"database": _check_database}
    if settings.REDIS_URL:
        checks["channel_layer"] = _check_channel_layer
        checks["broker"] = _check_broker
    results, healthy = {}, True
    for name, check in checks.items():
        started = time.perf_counter()
        try:
            check()
        except Exception as exc:  # report, don't crash: a health check must always answer
            healthy = False
            results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        else:
            results[name] = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
    return JsonResponse({"status": "ok" if healthy else "failing", "checks": results}, status=200 if healthy else 503)
