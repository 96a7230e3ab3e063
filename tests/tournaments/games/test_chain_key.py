"""The keyed hash chain: a history rewritten by someone who can write to the database but does
not hold HEARTS_CHAIN_KEY audits as tampered; logs stored before the key still audit, sealed."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest
from django.db import DatabaseError, connection, transaction

from tests.tournaments.games.test_eventstore import _tamper
from tests.tournaments.helpers import play_through_services, seated_table
from tournaments.games import eventstore
from tournaments.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_game():
    game, people, _ = seated_table(rules={"end_score": 26})
    return play_through_services(game, people)


def hashed_fields(row) -> dict:
    """Everything stored for an event that its hash covers, as the chain names it."""
    return {
        "seq": row.seq,
        "type": row.type,
        "v": row.version,
        "payload": row.payload,
        "at": eventstore._timestamp(row.recorded_at),
        "command_id": row.command_id,
        "actor_seat": row.actor_seat,
        "cause": row.cause,
    }


def _plain_sha256(row, previous: str) -> str:
    """The chain's hash as an outsider can compute it: sha256 without the key."""
    body = eventstore.canonical_json(hashed_fields(row))
    return hashlib.sha256((previous + body).encode()).hexdigest()


def _rewrite(game: Game, first_seq: int, rehash, **changes) -> None:
    """Change an event's columns, then recompute every hash from there on and the game's head."""
    rows = list(game.events.order_by("seq"))
    previous = rows[first_seq - 2].hash if first_seq > 1 else eventstore.GENESIS_HASH
    for row in rows[first_seq - 1 :]:
        if row.seq == first_seq:
            for column, value in changes.items():
                setattr(row, column, value)
            _tamper(row, **changes)
        previous = rehash(row, previous)
        _tamper(row, hash=previous)
    Game.objects.filter(pk=game.pk).update(head_hash=previous)


def test_a_rewritten_cause_with_recomputed_sha256_hashes_and_head_audits_as_tampered(finished_game):
    target = finished_game.events.filter(type="CardPlayed", cause="player").order_by("seq")[5]
    _rewrite(finished_game, target.seq, _plain_sha256, cause="timer")
    report = eventstore.audit_game(Game.objects.get(pk=finished_game.pk))
    assert not report.ok and report.first_bad_seq == target.seq, report
    assert "hash chain" in report.reason


def test_a_history_rehashed_under_another_key_audits_as_tampered(finished_game, settings):
    target = finished_game.events.filter(type="CardPlayed").order_by("seq")[3]
    server_key = settings.HEARTS_CHAIN_KEY
    settings.HEARTS_CHAIN_KEY = "a key the attacker guessed"
    _rewrite(finished_game, 1, eventstore.row_hash)
    _rewrite(finished_game, target.seq, eventstore.row_hash, cause="timer")
    assert eventstore.audit_game(Game.objects.get(pk=finished_game.pk)).ok  # under the guessed key...
    settings.HEARTS_CHAIN_KEY = server_key  # ...but not under the server's
    report = eventstore.audit_game(Game.objects.get(pk=finished_game.pk))
    assert not report.ok and "hash chain" in report.reason


def _legacy(game: Game) -> Game:
    """The game as stored before the key (plain sha256 chain), then sealed as migration 0011 does."""
    _rewrite(game, 1, _plain_sha256)
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(
        chain_sealed_seq=game.seq, chain_seal=eventstore.chain_seal(game.pk, game.seq, game.head_hash)
    )
    return Game.objects.get(pk=game.pk)


def test_a_log_stored_before_the_key_audits_clean_once_sealed_and_tampered_if_rewritten(finished_game):
    legacy = _legacy(finished_game)
    assert eventstore.audit_game(legacy).ok
    target = legacy.events.filter(type="CardPlayed", cause="player").order_by("seq")[5]
    _rewrite(legacy, target.seq, _plain_sha256, cause="timer")
    report = eventstore.audit_game(Game.objects.get(pk=legacy.pk))
    assert not report.ok and "seal" in report.reason


def test_a_seal_cannot_be_moved_or_dropped_without_the_key(finished_game):
    legacy = _legacy(finished_game)
    Game.objects.filter(pk=legacy.pk).update(chain_sealed_seq=legacy.seq - 1)
    assert not eventstore.audit_game(Game.objects.get(pk=legacy.pk)).ok
    Game.objects.filter(pk=legacy.pk).update(chain_sealed_seq=0, chain_seal="")
    assert not eventstore.audit_game(Game.objects.get(pk=legacy.pk)).ok


def test_a_game_sealed_mid_play_goes_on_with_keyed_events_and_audits_clean():
    game, people, _ = seated_table(rules={"end_score": 26})
    from tests.tournaments.games.test_eventstore import _play_commands

    _play_commands(game, people, 6)
    sealed = _legacy(game)
    eventstore.engine_cache.clear()
    finished = play_through_services(sealed, people)
    rows = list(finished.events.order_by("seq"))
    assert finished.chain_sealed_seq < len(rows)
    assert rows[-1].hash != _plain_sha256(rows[-1], rows[-2].hash)  # keyed after the seal
    assert eventstore.audit_game(finished).ok


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
def test_postgresql_refuses_truncate_of_the_event_table(finished_game):
    for statement in ("TRUNCATE tournaments_gameevent", "TRUNCATE tournaments_game CASCADE"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the test's own inserts leave deferred checks pending
            c.execute("SET LOCAL hearts.allow_event_truncate = 'off'")
            c.execute(statement)
    assert finished_game.events.count() == finished_game.seq


def test_a_local_secret_is_made_once_readable_only_by_its_owner(tmp_path, monkeypatch):
    import hearts_league.settings as project_settings
    from hearts_league.settings import local_secret

    monkeypatch.setattr(project_settings, "BASE_DIR", tmp_path)
    first = local_secret("test-key")
    assert len(first) >= 40 and local_secret("test-key") == first
    mode = stat.S_IMODE(os.stat(tmp_path / "var" / "test-key").st_mode)
    assert mode == 0o600
