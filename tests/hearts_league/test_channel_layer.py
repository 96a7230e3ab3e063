"""The Redis channel layer keeps an idle connection open (a live table can be quiet for minutes)."""

import asyncio

import pytest
from channels.layers import get_channel_layer

from tests.conftest import requires_redis


@requires_redis
async def test_an_idle_receive_on_the_redis_channel_layer_does_not_time_out():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    # channels-redis blocks for 5 s per poll; with redis-py 7+ that raised a TimeoutError
    # and killed every quiet WebSocket connection. It must simply keep waiting.
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), timeout=6.5)
    await layer.send(channel, {"type": "still.alive"})
    assert (await asyncio.wait_for(layer.receive(channel), timeout=2))["type"] == "still.alive"
