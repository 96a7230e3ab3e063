"""A minimal asyncio WebSocket client (RFC 6455 text frames) for talking to real Daphne
processes in tests; the ``websockets`` package is not a dependency."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import struct


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port: int, path: str) -> WebSocket:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Origin: http://localhost:{port}\r\n\r\n").encode())
        status = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        if b" 101 " not in status.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"handshake refused: {status[:200]!r}")
        return cls(reader, writer)

    async def send_json(self, value) -> None:
        data = json.dumps(value).encode()
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", len(data))
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", len(data))
        mask = os.urandom(4)
        self.writer.write(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        await self.writer.drain()

    async def receive_json(self, timeout: float = 10.0):
        """The next text frame, decoded (pings are answered, a close frame raises)."""
        while True:
            head = await asyncio.wait_for(self.reader.readexactly(2), timeout)
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(length)
            if opcode == 0x1:
                return json.loads(payload)
            if opcode == 0x8:
                raise ConnectionError(f"closed: {payload[:2].hex()}")
            # pings/pongs and other control frames: ignore (Daphne does not ping by default)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
