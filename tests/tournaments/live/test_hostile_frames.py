"""Hostile WebSocket frames (hypothesis): whatever a client sends, the connection answers with
frames and stays open and usable, and its disconnect cleanup still runs (a connection that dies
keeps its seat's connection row for ever, so a CPU would never take an absent player's seat)."""

from __future__ import annotations

import json
import os

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tests.tournaments.helpers import seated_table
from tests.tournaments.live.test_game_consumer import connect
from tournaments.models import SeatConnection

HOSTILE_EXAMPLES = int(os.environ.get("HEARTS_HOSTILE_FRAMES", "25"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
KNOWN = ["play", "pass", "moon_choice", "resume", "ping", "accept_invitation", "decline_invitation"]
typed_frames = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN) | st.text(max_size=12) | json_values},
    optional={
        "card": json_values,
        "cards": json_values,
        "choice": json_values,
        "after": json_values,
        "command_id": json_values,
        "expected_seq": json_values,
        "seat": json_values,
    },
).map(json.dumps)
nested = st.integers(1, 2040).flatmap(
    lambda depth: st.sampled_from(
        [
            "[" * depth + "]" * depth,
            '{"a":' * depth + "1" + "}" * depth,
            '{"type": "play", "card": ' + "[" * depth + "]" * depth + "}",
        ]
    )
)
raw = st.text(max_size=200) | st.sampled_from(
    [
        '{"type": "play", "card": 1e999999}',
        "NaN",
        '{"type": NaN}',
        '"\\ud800"',
        '{"type": "ping", "type": 3}',
        "{" * 5000,
        " " * 5000,
    ]
)
frames = st.lists(typed_frames | nested | raw | st.binary(max_size=64), min_size=1, max_size=12)


@pytest.fixture
def table() -> dict:
    """One table for all of a test's examples (hypothesis reuses function fixtures across them)."""
    return {}


async def _one_connection(table: dict, batch: list) -> None:
    if "game" not in table:
        table["game"], table["people"], _ = await database_sync_to_async(seated_table)()
    game, people = table["game"], table["people"]
    socket, connected, _ = await connect(game, people[0], after=0)
    assert connected
    for frame in batch:
        if not frame:
            continue  # the test client cannot send an empty frame
        if isinstance(frame, bytes):
            await socket.send_to(bytes_data=frame)
        else:
            await socket.send_to(text_data=frame)
    await socket.send_to(text_data=json.dumps({"type": "ping"}))
    while True:  # every frame is answered, and the connection still answers a ping at the end
        message = await socket.receive_output(timeout=10)
        assert message["type"] == "websocket.send", f"the connection closed: {message}"
        if json.loads(message["text"])["type"] == "pong":
            break
    await socket.disconnect()
    left = await database_sync_to_async(lambda: SeatConnection.objects.filter(seat__game=game).count())()
    assert left == 0, "the disconnect cleanup did not run"


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=HOSTILE_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(batch=frames)
def test_no_frame_kills_the_connection_and_its_cleanup_always_runs(batch, settings, table):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST = 1000.0, 1000
    note(repr(batch)[:2000])
    async_to_sync(_one_connection)(table, batch)


@pytest.mark.django_db(transaction=True)
def test_deep_json_under_the_frame_limit_gets_an_error_frame_not_a_dead_consumer(settings, table):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST = 1000.0, 1000
    deep = '{"type": "play", "card": ' + "[" * 2000 + "]" * 2000 + "}"
    async_to_sync(_one_connection)(table, ["[" * 2040 + "]" * 2040, deep])
