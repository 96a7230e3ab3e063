"""The Redis channel layer keeps an idle connection open (a live table can be quiet for minutes)."""

import asyncio

from channels.layers import get_channel_layer

from tests.conftest import requires_redis


@requires_redis
async def test_an_idle_receive_on_the_redis_channel_layer_does_not_time_out():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(channel))
    # With redis-py 7+, channels-redis's blocking poll raised a TimeoutError after 5 s and
    # killed every quiet WebSocket connection. A receive must simply keep waiting.
    await asyncio.sleep(6.5)
    assert not waiting.done()
    await layer.send(channel, {"type": "still.alive"})
    assert (await asyncio.wait_for(waiting, timeout=2))["type"] == "still.alive"
