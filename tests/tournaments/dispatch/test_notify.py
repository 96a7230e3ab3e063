"""Notifications sent by processes that run no server (Celery workers, management commands), and
by a server from its own event loop (a live move written there)."""

import asyncio
import threading

from channels.layers import get_channel_layer

from tests.conftest import requires_redis
from tournaments.dispatch import notify

pytestmark = requires_redis


def _notifier_threads() -> int:
    return sum(thread.name == "hearts-notify" for thread in threading.enumerate())


async def test_a_worker_s_notifications_arrive_in_order_through_one_long_lived_loop():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = notify.group_name(987_654)
    await layer.group_add(group, channel)
    try:
        # As a Celery task does after each CPU move: from a thread with no event loop.
        await asyncio.to_thread(lambda: [notify.notify(987_654, seq) for seq in range(1, 6)])
        received = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(5)]
    finally:
        await layer.group_discard(group, channel)
    assert [message["seq"] for message in received] == [1, 2, 3, 4, 5]
    # One loop (so one Redis connection) for all of them, not a thread and a loop for each.
    assert _notifier_threads() == 1
    await asyncio.to_thread(notify.notify, 987_654, 6)
    assert _notifier_threads() == 1


async def test_a_server_notifies_from_its_own_loop_without_blocking_it():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = notify.group_name(987_655)
    await layer.group_add(group, channel)
    notify.register_server_loop(asyncio.get_running_loop())
    try:
        for seq in range(1, 4):
            notify.notify(987_655, seq)  # sent from the loop itself: returns at once
        received = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(3)]
    finally:
        notify.register_server_loop(None)
        await layer.group_discard(group, channel)
    assert sorted(message["seq"] for message in received) == [1, 2, 3]
