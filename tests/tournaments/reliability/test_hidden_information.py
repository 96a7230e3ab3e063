"""Hidden information: random games played through the REST API and over the WebSocket; after
every command, nothing any player or spectator receives shows another seat's unplayed card, a
pass before it is revealed, a future (planned) deal, the deal salt or the shuffle seed.

The forbidden cards are computed per viewer from the server's own engine state; only the
current hand's part of each payload is scanned (earlier hands' public plays reuse card names).
Provably fair deals: an outsider checks every DealCommitted from the exported NDJSON alone.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from channels.db import database_sync_to_async

import engine
from engine.arena import make_deal
from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for, seated_table
from tests.tournaments.live.test_game_consumer import connect, frames_until
from tests.tournaments.reliability.support import (
    assert_nothing_leaks,
    current_hand_part,
    forbidden_cards,
    secrets_of,
)
from tournaments.games import eventstore
from tournaments.models import Game


def random_command(view: dict, rng: random.Random) -> dict:
    if view["phase"] == "passing":
        return {"type": "pass", "cards": rng.sample(view["hand"], 3)}
    if view["phase"] == "moon_choice":
        return {"type": "moon_choice", "choice": rng.choice(["add_to_others", "subtract_from_self"])}
    return {"type": "play", "card": rng.choice(view["legal_plays"])}


def planned_table(players: int, rng: random.Random, **options):
    """A table of humans whose first hands are planned (as a tournament round's are)."""
    rules = engine.Rules.from_dict({"players": players})
    deals = [make_deal(rules, rng) for _ in range(4)]
    return seated_table(players, rules={"end_score": 26}, deals=deals, **options)


def _awaited(game_id: int) -> tuple[int, ...]:
    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: state.to_act)


def _hand_of_rest_events(events):
    return current_hand_part(events, lambda e: e)


@pytest.mark.django_db
@pytest.mark.parametrize("players, seed, hands", [(3, 11, 1), (4, 12, 2), (5, 13, 1)])
def test_rest_payloads_never_show_hidden_cards_a_future_deal_or_the_salt(players, seed, hands):
    rng = random.Random(seed)
    game, _, clients = planned_table(players, rng)
    viewers = {**dict(enumerate(clients)), None: client_for(PlayerFactory())}
    seen = dict.fromkeys(viewers, 0)
    steps = 0
    while Game.objects.get(pk=game.pk).status != Game.Status.FINISHED and hands_played(game.pk) < hands:
        steps += 1
        assert steps < 2000, "the game did not end"
        seat = rng.choice(_awaited(game.pk))
        view = clients[seat].get(f"/api/games/{game.pk}/").json()["state"]
        body = {**random_command(view, rng), "command_id": f"h{steps}"}
        reply = clients[seat].post(f"/api/games/{game.pk}/commands/", body, format="json")
        assert reply.status_code == 200, reply.json()
        forbidden, secrets = forbidden_cards(game.pk), secrets_of(game.pk)
        assert_nothing_leaks(
            _hand_of_rest_events(reply.json()["events"]), seat, forbidden[seat], secrets, "command reply"
        )
        for viewer, client in viewers.items():
            detail = client.get(f"/api/games/{game.pk}/").json()
            assert_nothing_leaks(detail, viewer, forbidden[viewer], secrets, "game detail")
            events = client.get(f"/api/games/{game.pk}/events/", {"after": seen[viewer]}).json()["events"]
            assert [e["seq"] for e in events] == list(range(seen[viewer] + 1, seen[viewer] + 1 + len(events)))
            seen[viewer] += len(events)
            assert_nothing_leaks(_hand_of_rest_events(events), viewer, forbidden[viewer], secrets, "events")
            if steps % 7:
                continue
            replay = client.get(f"/api/games/{game.pk}/replay/", {"seat": viewer} if viewer is not None else {})
            assert replay.status_code == 200
            assert_nothing_leaks(replay.json()["view"], viewer, forbidden[viewer], secrets, "replay")
    assert steps > 20 and eventstore.audit_game(Game.objects.get(pk=game.pk)).ok


def hands_played(game_id: int) -> int:
    """Hands finished (bounds the REST games to a hand or two, so the suite stays fast)."""
    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: len(state.hand_scores))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", [21, 22])
async def test_websocket_frames_never_show_hidden_cards_a_future_deal_or_the_salt(seed):
    rng = random.Random(seed)
    game, people, _ = await database_sync_to_async(planned_table)(4, rng)
    spectator = await database_sync_to_async(PlayerFactory)()
    viewers = {**dict(enumerate(people)), None: spectator}
    sockets = {}
    for viewer, player in viewers.items():
        communicator, connected, _ = await connect(game, player, after=0)
        assert connected
        sockets[viewer] = communicator
    last_state = {}
    for viewer, communicator in sockets.items():
        frames = await frames_until(communicator, lambda f: f["type"] == "update")
        last_state[viewer] = frames[-1]
    steps = 0
    while last_state[None]["state"]["phase"] != "game_over":
        steps += 1
        assert steps < 2000, "the game did not end"
        seat = rng.choice(last_state[None]["state"]["to_act"])
        command = {**random_command(last_state[seat]["state"], rng), "command_id": f"w{steps}"}
        await sockets[seat].send_to(text_data=json.dumps(command))
        early = await frames_until(sockets[seat], lambda f: f["type"] in ("ack", "error"))
        assert early[-1]["type"] == "ack", early[-1]
        seq = early[-1]["seq"]
        forbidden = await database_sync_to_async(forbidden_cards)(game.pk)
        secrets = await database_sync_to_async(secrets_of)(game.pk)
        for viewer, communicator in sockets.items():
            frames = early if viewer == seat else []
            if not (frames and any(f["type"] == "update" and f["seq"] >= seq for f in frames)):
                frames = frames + await frames_until(
                    communicator, lambda f, seq=seq: f["type"] == "update" and f["seq"] >= seq
                )
            assert not [f for f in frames if f["type"] == "error"], frames
            last_state[viewer] = frames[-1]
            items = [event for f in frames if f["type"] == "update" for event in (*f["events"], f["state"])]
            current = current_hand_part(items, lambda item: item if item and "payload" in item else None)
            assert_nothing_leaks(current, viewer, forbidden[viewer], secrets, "websocket frames")
    for communicator in sockets.values():
        await communicator.disconnect()


@pytest.mark.django_db
def test_an_outsider_verifies_every_deal_commitment_from_the_export_alone():
    game, people, _ = planned_table(4, random.Random(5))
    from tests.tournaments.helpers import play_through_services

    play_through_services(game, people)
    response = client_for(PlayerFactory()).get(f"/api/games/{game.pk}/export/")
    assert response.status_code == 200
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]

    # what an outsider does, with sha256 and JSON only (mirrors eventstore.deal_commitment)
    def canonical(value):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    salts = [e["payload"]["salt"] for e in lines if e["type"] == "DealSaltRevealed"]
    assert len(salts) == 1 and lines[-1]["type"] == "DealSaltRevealed"
    checked, deal = 0, None
    for event in lines:
        if event["type"] == "HandDealt":
            p = event["payload"]
            deal = {"hand_number": p["hand_number"], "hands": p["hands"], "kitty": p.get("kitty") or []}
        elif event["type"] == "DealCommitted":
            assert deal is not None and deal["hand_number"] == event["payload"]["hand_number"]
            digest = hashlib.sha256((salts[0] + canonical(deal)).encode()).hexdigest()
            assert digest == event["payload"]["commitment"], f"hand {deal['hand_number']} was not committed"
            checked += 1
            deal = None
    hands = sum(1 for e in lines if e["type"] == "HandDealt")
    assert checked == hands >= 1
    # every commitment was published before the hand's first play
    seqs = [(e["seq"], e["type"]) for e in lines]
    for index, (_, kind) in enumerate(seqs):
        if kind == "HandDealt":
            assert seqs[index + 1][1] == "DealCommitted"
    # and a forged deal does not match
    forged = {"hand_number": 1, "hands": [["2C"]], "kitty": []}
    first = next(e for e in lines if e["type"] == "DealCommitted")["payload"]["commitment"]
    assert hashlib.sha256((salts[0] + canonical(forged)).encode()).hexdigest() != first
