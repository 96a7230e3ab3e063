"""Playing games through the REST API: commands, refusals, events, replay, audit, export."""

import json

import pytest

from tests.factories import PlayerFactory
from tests.tournaments.helpers import api_step, client_for, play_through_api, seated_table
from tournaments.models import Game, GameEvent

pytestmark = pytest.mark.django_db


def _card_order(card: str):
    from engine import Card

    return Card.parse(card)


def _state(client, game_id):
    return client.get(f"/api/games/{game_id}/").json()["state"]


def test_four_clients_play_a_whole_game_and_it_audits_clean():
    game, _, clients = seated_table(rules={"end_score": 26})
    game = play_through_api(game, clients)
    assert game.status == Game.Status.FINISHED
    assert min(game.final_totals) == game.final_totals[game.winner_seat]
    assert max(game.final_totals) >= 26
    audit = clients[1].get(f"/api/games/{game.pk}/audit/").json()
    assert audit == {"game": game.pk, "ok": True, "events_checked": game.seq, "first_bad_seq": None, "reason": ""}
    types = list(game.events.order_by("seq").values_list("type", flat=True))
    assert types[:4] == ["GameStarted", "PlayersSeated", "HandDealt", "DealCommitted"]
    assert types[-2:] == ["GameEnded", "DealSaltRevealed"]


def test_a_table_is_created_waits_for_players_and_starts_when_full(api_client):
    creator = PlayerFactory()
    client = client_for(creator)
    response = client.post("/api/games/", {"rules": {"players": 3}, "turn_seconds": 30}, format="json")
    assert response.status_code == 201, response.json()
    game_id = response.json()["id"]
    assert response.json()["status"] == "waiting" and response.json()["state"] is None
    for _ in range(2):
        joined = client_for(PlayerFactory()).post(f"/api/games/{game_id}/join/", {}, format="json")
        assert joined.status_code == 200, joined.json()
    body = client.get(f"/api/games/{game_id}/").json()
    assert body["status"] == "active" and body["your_seat"] == 0
    assert len(body["state"]["hand"]) == 17
    late = client_for(PlayerFactory()).post(f"/api/games/{game_id}/join/", {}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "game_already_started"


def test_joining_twice_or_a_full_table_is_refused():
    creator = PlayerFactory()
    client = client_for(creator)
    game_id = client.post("/api/games/", {"rules": {"players": 3}}, format="json").json()["id"]
    again = client.post(f"/api/games/{game_id}/join/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    taken = client_for(PlayerFactory()).post(f"/api/games/{game_id}/join/", {"seat": 0}, format="json")
    assert taken.status_code == 409 and taken.json()["code"] == "seat_taken"


@pytest.mark.parametrize(
    "body, code",
    [
        ({"rules": {"players": 6}}, "invalid_rules"),
        ({"turn_seconds": 45}, "invalid"),
        ({"seats": [{"kind": "me"}]}, "invalid_seats"),
        ({"seats": [{"kind": "me"}, {"kind": "me"}, {"kind": "open"}, {"kind": "open"}]}, "invalid_seats"),
        ({"seats": [{"kind": "me"}, {"kind": "cpu", "bot": "genius"}, {"kind": "open"}, {"kind": "open"}]}, "invalid"),
    ],
)
def test_invalid_tables_are_refused_with_a_code(body, code):
    response = client_for(PlayerFactory()).post("/api/games/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert Game.objects.count() == 0


def test_nobody_creates_a_ranked_table_by_hand_guests_included(api_client):
    token = api_client.post("/api/auth/guest", {"device_id": "d" * 32, "display_name": "Pat"}, format="json").json()[
        "token"
    ]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api_client.post("/api/games/", {"ranked": True}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "ranked_by_queue_only"
    member = client_for(PlayerFactory()).post("/api/games/", {"ranked": True}, format="json")
    assert member.status_code == 403 and member.json()["code"] == "ranked_by_queue_only"
    casual = api_client.post("/api/games/", {}, format="json")
    assert casual.status_code == 201


def test_out_of_turn_and_illegal_plays_are_refused_and_append_nothing():
    game, _, clients = seated_table(rules={"passing": "off"})
    view = _state(clients[0], game.pk)
    leader = view["to_act"][0]
    other = (leader + 1) % 4
    other_card = _state(clients[other], game.pk)["hand"][0]
    seq = Game.objects.get(pk=game.pk).seq

    response = clients[other].post(
        f"/api/games/{game.pk}/commands/", {"type": "play", "card": other_card}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "not_your_turn"

    hand = _state(clients[leader], game.pk)["hand"]
    wrong = next(card for card in hand if card != "2C")
    response = clients[leader].post(f"/api/games/{game.pk}/commands/", {"type": "play", "card": wrong}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "must_lead_two_of_clubs"
    assert "2" in response.json()["detail"]

    response = clients[leader].post(f"/api/games/{game.pk}/commands/", {"type": "play", "card": "ZZ"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_card"
    assert Game.objects.get(pk=game.pk).seq == seq
    assert GameEvent.objects.filter(game=game).count() == seq


@pytest.mark.parametrize("body", ["null", "[]", '{"type": "dance"}', '{"type": "play"}'])
def test_a_malformed_command_body_is_refused_with_field_errors_and_appends_nothing(body):
    game, _, clients = seated_table()
    seq = Game.objects.get(pk=game.pk).seq
    response = clients[0].post(f"/api/games/{game.pk}/commands/", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert isinstance(response.json()["errors"], dict)  # by field, or non_field_errors
    assert Game.objects.get(pk=game.pk).seq == seq


def test_a_spectator_cannot_play_and_a_stranger_is_not_seated():
    game, _, _ = seated_table()
    stranger = client_for(PlayerFactory())
    response = stranger.post(f"/api/games/{game.pk}/commands/", {"type": "play", "card": "2C"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "not_seated"


def test_the_acting_seat_comes_from_the_login_not_the_body():
    game, _, clients = seated_table(rules={"passing": "off"})
    leader = _state(clients[0], game.pk)["to_act"][0]
    impostor = (leader + 1) % 4
    response = clients[impostor].post(
        f"/api/games/{game.pk}/commands/", {"type": "play", "card": "2C", "seat": leader}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] in {"not_your_turn", "card_not_in_hand"}


def test_a_retried_command_id_appends_nothing_and_returns_the_first_result():
    game, _, clients = seated_table(rules={"passing": "off"})
    leader = _state(clients[0], game.pk)["to_act"][0]
    body = {"type": "play", "card": "2C", "command_id": "click-1"}
    first = clients[leader].post(f"/api/games/{game.pk}/commands/", body, format="json").json()
    second = clients[leader].post(f"/api/games/{game.pk}/commands/", body, format="json")
    assert second.status_code == 200
    assert second.json()["duplicate"] is True
    assert second.json()["events"] == first["events"]
    assert Game.objects.get(pk=game.pk).seq == first["seq"]


def test_a_command_id_reused_for_another_command_is_refused_and_appends_nothing():
    game, _, clients = seated_table(rules={"passing": "off"})
    leader = _state(clients[0], game.pk)["to_act"][0]
    seq = Game.objects.get(pk=game.pk).seq
    url = f"/api/games/{game.pk}/commands/"
    assert (
        clients[leader]
        .post(url, {"type": "play", "card": "2C", "command_id": "c-1", "expected_seq": seq}, format="json")
        .status_code
        == 200
    )
    after = Game.objects.get(pk=game.pk).seq
    for changed in (
        {"type": "play", "card": "3C"},
        {"type": "pass", "cards": ["3C", "4C", "5C"]},
        {"type": "play", "card": "2C", "expected_seq": seq + 7},
    ):
        response = clients[leader].post(url, {**changed, "command_id": "c-1"}, format="json")
        assert response.status_code == 409 and response.json()["code"] == "command_id_reused", changed
    # the same command again, in another spelling of the card, is the retry it claims to be
    retried = clients[leader].post(
        url, {"type": "play", "card": "2c", "command_id": "c-1", "expected_seq": seq}, format="json"
    )
    assert retried.status_code == 200 and retried.json()["duplicate"] is True
    assert Game.objects.get(pk=game.pk).seq == after


def test_a_stale_expected_seq_is_refused_with_409():
    game, _, clients = seated_table(rules={"passing": "off"})
    leader = _state(clients[0], game.pk)["to_act"][0]
    seq = Game.objects.get(pk=game.pk).seq
    response = clients[leader].post(
        f"/api/games/{game.pk}/commands/", {"type": "play", "card": "2C", "expected_seq": seq - 1}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "stale_state" and response.json()["seq"] == seq


def test_events_after_n_are_redacted_for_each_player_while_live():
    game, _, clients = seated_table()
    for seat, client in enumerate(clients):
        body = client.get(f"/api/games/{game.pk}/events/?after=0").json()
        dealt = next(e for e in body["events"] if e["type"] == "HandDealt")["payload"]
        assert [h is not None for h in dealt["hands"]] == [s == seat for s in range(4)]
        assert "seed" not in body["events"][0]["payload"]
    spectator = client_for(PlayerFactory()).get(f"/api/games/{game.pk}/events/?after=0").json()
    dealt = next(e for e in spectator["events"] if e["type"] == "HandDealt")["payload"]
    assert dealt["hands"] == [None] * 4
    after = clients[0].get(f"/api/games/{game.pk}/events/?after=2").json()["events"]
    assert [e["seq"] for e in after] == list(range(3, game.seq + 1))
    bad = clients[0].get(f"/api/games/{game.pk}/events/?after=abc")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_parameter"


def test_passes_stay_hidden_until_everyone_has_passed():
    game, _, clients = seated_table()
    hand0 = _state(clients[0], game.pk)["hand"]
    clients[0].post(f"/api/games/{game.pk}/commands/", {"type": "pass", "cards": hand0[:3]}, format="json")
    left = _state(clients[1], game.pk)
    assert left["received"] is None
    assert not set(hand0[:3]) & set(left["hand"])
    events = clients[1].get(f"/api/games/{game.pk}/events/?after=0").json()["events"]
    passed = next(e for e in events if e["type"] == "CardsPassed")
    assert passed["payload"]["cards"] is None
    for _ in range(3):  # seats 1, 2 and 3 pass
        api_step(game.pk, clients)
    left = _state(clients[1], game.pk)
    assert sorted(left["received"]) == sorted(hand0[:3])


def test_replay_steps_through_a_finished_game_with_every_hand_visible():
    game, _, clients = seated_table(rules={"end_score": 26})
    game = play_through_api(game, clients)
    spectator = client_for(PlayerFactory())
    at_deal = spectator.get(f"/api/games/{game.pk}/replay/?at=3").json()
    assert at_deal["event"]["type"] == "HandDealt"
    assert [len(hand) for hand in at_deal["hands"]] == [13, 13, 13, 13]
    assert at_deal["hands"] == [sorted(h, key=_card_order) for h in at_deal["event"]["payload"]["hands"]]
    seat2 = spectator.get(f"/api/games/{game.pk}/replay/?at=3&seat=2").json()
    assert seat2["view"]["hand"] == at_deal["hands"][2]
    end = spectator.get(f"/api/games/{game.pk}/replay/").json()
    assert end["view"]["phase"] == "game_over"


def test_replay_of_another_seat_is_hidden_while_the_game_is_live():
    game, _, clients = seated_table()
    mine = clients[0].get(f"/api/games/{game.pk}/replay/?at=3&seat=0")
    assert mine.status_code == 200 and len(mine.json()["view"]["hand"]) == 13
    theirs = clients[0].get(f"/api/games/{game.pk}/replay/?at=3&seat=1")
    assert theirs.status_code == 403 and theirs.json()["code"] == "hidden_until_over"
    beyond = clients[0].get(f"/api/games/{game.pk}/replay/?at=9999")
    assert beyond.status_code == 400


def test_export_streams_json_lines_of_a_finished_game_only():
    game, _, clients = seated_table(rules={"end_score": 26})
    early = clients[0].get(f"/api/games/{game.pk}/export/")
    assert early.status_code == 409 and early.json()["code"] == "game_not_over"
    game = play_through_api(game, clients)
    response = clients[0].get(f"/api/games/{game.pk}/export/")
    assert response["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, game.seq + 1))
    assert all(hand is not None for hand in lines[2]["payload"]["hands"])


def test_games_are_listed_and_filtered():
    game, people, clients = seated_table()
    other = PlayerFactory()
    client_for(other).post("/api/games/", {}, format="json")
    listed = clients[0].get(f"/api/games/?player={people[0].pk}").json()
    assert [g["id"] for g in listed["results"]] == [game.pk]
    waiting = clients[0].get("/api/games/?status=waiting").json()
    assert waiting["count"] == 1
    assert clients[0].get("/api/games/?status=nonsense").json()["code"] == "invalid_parameter"
