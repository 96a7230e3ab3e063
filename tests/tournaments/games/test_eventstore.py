"""The event store: append-only, hash-chained, rebuildable, auditable, safe under concurrency."""

import threading

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction

from tests.tournaments.helpers import play_through_services, seated_table
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command
from tournaments.models import Game, GameEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_game():
    game, people, _ = seated_table(rules={"end_score": 26})
    return play_through_services(game, people)


def _tamper(event: GameEvent, **changes):
    """Edit a stored event behind the application's back (as an attacker with DB access would)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # a superuser can switch triggers off for its session
            cursor.execute("SET session_replication_role = replica")
        for column, value in changes.items():
            cursor.execute(f"UPDATE tournaments_gameevent SET {column} = %s WHERE id = %s", [value, event.pk])
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = origin")


def test_a_finished_game_audits_clean(finished_game):
    report = eventstore.audit_game(finished_game)
    assert report.ok and report.events_checked == finished_game.seq


def test_an_edited_event_makes_the_audit_fail_at_its_seq(finished_game):
    played = finished_game.events.filter(type="CardPlayed").order_by("seq")[10]
    payload = dict(played.payload, card="AS" if played.payload["card"] != "AS" else "KS")
    import json

    _tamper(played, payload=json.dumps(payload))
    report = eventstore.audit_game(Game.objects.get(pk=finished_game.pk))
    assert not report.ok and report.first_bad_seq == played.seq
    assert "hash chain" in report.reason


def test_a_rehashed_forgery_is_still_caught_by_the_replay(finished_game):
    """Even with every hash recomputed, the engine refuses a log it would not have produced."""
    import json

    rows = list(finished_game.events.order_by("seq"))
    target = next(r for r in rows if r.type == "CardPlayed" and r.seq > 40)
    forged_payload = dict(target.payload, card="2C")
    previous = rows[target.seq - 2].hash
    for row in rows[target.seq - 1 :]:
        payload = forged_payload if row.pk == target.pk else row.payload
        row.payload = payload
        new_hash = eventstore.row_hash(row, previous)
        _tamper(row, payload=json.dumps(payload), hash=new_hash)
        previous = new_hash
    Game.objects.filter(pk=finished_game.pk).update(head_hash=previous)
    report = eventstore.audit_game(Game.objects.get(pk=finished_game.pk))
    assert not report.ok and report.first_bad_seq == target.seq


def test_a_changed_deal_breaks_its_commitment(finished_game):
    import json

    dealt = finished_game.events.filter(type="HandDealt").order_by("seq").first()
    hands = dealt.payload["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    _tamper(dealt, payload=json.dumps(dict(dealt.payload, hands=hands)))
    rows = list(finished_game.events.order_by("seq"))
    previous = eventstore.GENESIS_HASH
    for row in rows:  # re-hash so that only the commitment can tell
        previous = eventstore.row_hash(row, previous)
        _tamper(row, hash=previous)
    Game.objects.filter(pk=finished_game.pk).update(head_hash=previous)
    report = eventstore.audit_game(Game.objects.get(pk=finished_game.pk))
    assert not report.ok and "commitment" in report.reason


def test_events_cannot_be_updated_or_deleted_through_the_orm(finished_game):
    event = finished_game.events.first()
    event.type = "Forged"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        GameEvent.objects.filter(game=finished_game).update(type="Forged")
    with pytest.raises(PermissionError):
        GameEvent.objects.filter(game=finished_game).delete()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
def test_postgresql_refuses_raw_updates_and_deletes_of_events(finished_game):
    for statement in (
        "UPDATE tournaments_gameevent SET type = 'Forged' WHERE game_id = %s",
        "DELETE FROM tournaments_gameevent WHERE game_id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(statement, [finished_game.pk])


def test_the_cached_state_equals_a_rebuild_from_the_log():
    game, people, _ = seated_table()
    for _ in range(30):
        game.refresh_from_db()
        seat = eventstore.read_engine_game(game, lambda s: s.to_act[0])
        view = eventstore.read_engine_game(game, lambda s, seat=seat: s.view(seat))
        from tests.tournaments.helpers import next_command

        game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))
    game.refresh_from_db()
    entry = eventstore.engine_cache.take(game.pk)
    assert entry is not None and entry[0] == (game.seq, game.head_hash), "the last command cached its state"
    cached = entry[1]
    assert cached == eventstore.rebuild_engine_game(game)
    eventstore.engine_cache.clear()
    assert eventstore.read_engine_game(game, lambda s: s.state_dict()) == cached.state_dict()


def _play_commands(game, people, count):
    from tests.tournaments.helpers import next_command

    for _ in range(count):
        game.refresh_from_db()
        seat = eventstore.read_engine_game(game, lambda s: s.to_act[0])
        view = eventstore.read_engine_game(game, lambda s, seat=seat: s.view(seat))
        game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))
    game.refresh_from_db()


def test_an_older_cached_state_is_moved_forward_by_the_new_events_not_rebuilt(monkeypatch):
    """A process that did not make the last changes (another Daphne) reads only what is new."""
    game, people, _ = seated_table()
    _play_commands(game, people, 8)
    older = eventstore.engine_cache.take(game.pk)
    _play_commands(game, people, 6)  # another process's commands: this one keeps the older state
    eventstore.engine_cache.put(game.pk, *older)

    def no_rebuild(*args, **kwargs):
        raise AssertionError("rebuilt the whole game")

    monkeypatch.setattr(eventstore, "rebuild_engine_game", no_rebuild)
    view = eventstore.read_engine_game(game, lambda s: s.state_dict())
    monkeypatch.undo()
    assert view == eventstore.rebuild_engine_game(game).state_dict()


def test_a_cached_state_that_does_not_chain_onto_the_log_is_rebuilt_not_moved_forward():
    """A command that rolled back leaves a cached state the log never had (a move that did
    not happen, under a head hash no row has): it is never moved forward."""
    game, people, _ = seated_table()
    _play_commands(game, people, 8)
    entry = eventstore.engine_cache.take(game.pk)
    (seq, _), state = entry.version, entry.state
    phantom = state.copy()
    seat = phantom.to_act[0]
    if phantom.phase == "passing":
        phantom.pass_cards(seat, phantom.hand(seat)[-3:])
    else:
        phantom.play(seat, phantom.legal_plays(seat)[-1])
    _play_commands(game, people, 4)
    eventstore.engine_cache.clear()
    eventstore.engine_cache.put(game.pk, (seq + 1, "f" * 64), phantom)
    assert eventstore.read_engine_game(game, lambda s: s) == eventstore.rebuild_engine_game(game)
    assert eventstore.engine_cache.take(game.pk)[0] == (game.seq, game.head_hash)


def test_a_reader_that_missed_the_cache_reads_a_state_no_command_can_move_on_under_it():
    """A connection building a frame from a state it rebuilt must see that state as of the
    game row it read: a command in another thread that took the state while the frame was
    being built would show a later position (a hand not dealt yet) under an older seq."""
    game, people, _ = seated_table()
    _play_commands(game, people, 5)
    eventstore.engine_cache.clear()
    taken_while_reading = []

    def reader(state):
        taken_while_reading.append(eventstore.engine_cache.take(game.pk))  # a command would start here
        return state.view(0)

    eventstore.read_engine_game(game, reader)
    assert taken_while_reading == [None], "the state was back in the cache before it was read"
    assert eventstore.engine_cache.take(game.pk)[0] == (game.seq, game.head_hash), "then it was cached"


def test_seq_is_gap_free_and_unique_per_game():
    game, _, _ = seated_table()
    seqs = list(game.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.seq + 1))
    with pytest.raises(IntegrityError), transaction.atomic():
        GameEvent.objects.create(
            game=game, seq=1, type="X", version=1, payload={}, recorded_at=game.created_at, hash="0" * 64
        )


def test_audit_games_command_reports_a_bad_game(finished_game, capsys):
    call_command("audit_games", "--all", verbosity=0)
    played = finished_game.events.filter(type="CardPlayed").order_by("seq").first()
    _tamper(played, cause="timer")
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="1 game"):
        call_command("audit_games", str(finished_game.pk), verbosity=0)
    assert f"first bad event {played.seq}" in capsys.readouterr().err


@pytest.mark.django_db(transaction=True)
def test_concurrent_commands_for_the_same_turn_append_exactly_one():
    game, people, _ = seated_table(rules={"passing": "off"})
    leader = eventstore.read_engine_game(game, lambda s: s.to_act[0])
    hand = eventstore.read_engine_game(game, lambda s: [str(c) for c in s.legal_plays(leader)])
    seq = Game.objects.get(pk=game.pk).seq
    barrier, outcomes = threading.Barrier(2), []

    def attempt(command_id):
        from hearts_league.api import DomainError

        barrier.wait()
        try:
            game_execute_command(
                game_id=game.pk,
                player=people[leader],
                expected_seq=seq,
                command={"type": "play", "card": hand[0]},
                command_id=command_id,
            )
            outcomes.append("ok")
        except DomainError as error:
            outcomes.append(error.error_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(f"click-{i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok", "stale_state"]
    final = Game.objects.get(pk=game.pk)
    assert final.seq == seq + 1
    assert list(final.events.order_by("seq").values_list("seq", flat=True)) == list(range(1, seq + 2))


def test_a_hand_limit_stops_the_game_after_that_hand_and_it_still_audits():
    game, people, clients = seated_table(rules={"passing": "off"}, hand_limit=1)
    game = play_through_services(game, people)
    assert game.status == Game.Status.FINISHED
    types = list(game.events.order_by("seq").values_list("type", flat=True))
    assert types.count("HandScored") == 1 and types[-2:] == ["HandLimitReached", "DealSaltRevealed"]
    scored = game.events.get(type="HandScored").payload
    assert game.final_totals == scored["totals"]
    assert eventstore.audit_game(game).ok
    refused = clients[0].post(f"/api/games/{game.pk}/commands/", {"type": "play", "card": "2C"}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "game_over"
