"""The canonical JSON that hashes and deal commitments are computed over is the standard
library's form, whichever writer produces it: logs hashed before orjson wrote it still audit,
and an outsider recomputes a hash with nothing but ``json.dumps``."""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
import uuid
from collections import OrderedDict
from datetime import UTC, datetime

import pytest
from django.conf import settings as django_settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.tournaments.games.test_chain_key import hashed_fields
from tests.tournaments.helpers import play_through_services, seated_table
from tournaments.games import eventstore
from tournaments.models import GameEvent


class Seat(enum.Enum):
    NORTH = 0


class Number(enum.IntEnum):
    TWO = 2


def standard_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too
    | st.floats(allow_nan=False)  # NaN never equals itself, so neither would two forms of it
    | st.text(st.characters(codec="utf-8"))
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)


@hypothesis_settings(max_examples=3000, deadline=None)
@given(json_values)
def test_every_json_value_is_written_as_the_standard_library_writes_it(value):
    assert eventstore.canonical_json(value) == standard_json(value)


@given(st.dictionaries(st.integers(0, 4), st.integers(), min_size=1))
def test_keys_that_are_not_text_are_written_as_the_standard_library_writes_them(value):
    assert eventstore.canonical_json(value) == standard_json(value)


@given(st.dictionaries(st.text(max_size=4), st.floats(allow_nan=False), min_size=1))
def test_a_float_inside_a_subclass_of_dict_is_written_as_the_standard_library_writes_it(value):
    assert eventstore.canonical_json(OrderedDict(value)) == standard_json(OrderedDict(value))


@pytest.mark.parametrize(
    "value",
    [datetime(2026, 12, 2, tzinfo=UTC), {"at": datetime(2026, 12, 2, tzinfo=UTC)}, [uuid.UUID(int=7)], Seat.NORTH],
)
def test_what_the_standard_library_refuses_is_still_refused(value):
    """orjson would write these: a hash over its text could not be recomputed with json.dumps."""
    with pytest.raises(TypeError):
        eventstore.canonical_json(value)


def test_text_and_integer_enums_are_written_as_their_values():
    value = {"cause": GameEvent.Cause.PLAYER, "seat": Number.TWO}
    assert eventstore.canonical_json(value) == standard_json(value) == '{"cause":"player","seat":2}'


@pytest.mark.django_db
def test_a_played_games_hashes_are_recomputed_from_the_standard_librarys_json_alone():
    game, people, _ = seated_table(rules={"end_score": 26})
    game = play_through_services(game, people)
    previous = eventstore.GENESIS_HASH
    rows = list(game.events.order_by("seq"))
    assert rows
    for row in rows:
        body = standard_json(hashed_fields(row))
        key = django_settings.HEARTS_CHAIN_KEY.encode()
        expected = hmac.new(key, (previous + body).encode(), hashlib.sha256).hexdigest()
        assert row.hash == expected, row.seq
        previous = row.hash
