"""A small JSON client for real Daphne processes in tests, on the ``websockets`` library."""

from __future__ import annotations

import asyncio
import json

import websockets


class WebSocket:
    def __init__(self, connection):
        self.connection = connection

    @classmethod
    async def connect(cls, port: int, path: str) -> WebSocket:
        connection = await websockets.connect(
            f"ws://127.0.0.1:{port}{path}", origin=f"http://localhost:{port}", open_timeout=10, max_size=2**22
        )
        return cls(connection)

    async def send_json(self, value) -> None:
        await self.connection.send(json.dumps(value))

    async def receive_json(self, timeout: float = 10.0):
        """The next frame, decoded (a closed connection raises ConnectionError)."""
        try:
            return json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
        except websockets.ConnectionClosed as closed:
            raise ConnectionError(f"closed: {closed}") from None

    async def close(self) -> None:
        await self.connection.close()
