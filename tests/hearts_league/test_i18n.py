"""The site speaks the player's language: refusals keep their code and say it in Spanish."""

import ast
import gettext
import json
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from hearts_league.asgi import application
from hearts_league.i18n import localize
from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for, seated_table
from tournaments.games.tickets import ws_ticket_issue

SPANISH_LEAD = "La salida de la primera baza es con el 2♣."


def _wrong_lead(clients, game_id):
    view = clients[0].get(f"/api/games/{game_id}/").json()["state"]
    leader = view["to_act"][0]
    hand = clients[leader].get(f"/api/games/{game_id}/").json()["state"]["hand"]
    return leader, next(card for card in hand if card != "2C")


@pytest.mark.django_db
def test_an_illegal_move_over_rest_answers_in_the_requests_language_with_the_same_code():
    game, _, clients = seated_table(rules={"passing": "off"})
    leader, wrong = _wrong_lead(clients, game.pk)
    url = f"/api/games/{game.pk}/commands/"
    english = clients[leader].post(url, {"type": "play", "card": wrong}, format="json")
    spanish = clients[leader].post(url, {"type": "play", "card": wrong}, format="json", HTTP_ACCEPT_LANGUAGE="es-ES")
    assert english.status_code == spanish.status_code == 400
    assert english.json()["code"] == spanish.json()["code"] == "must_lead_two_of_clubs"
    assert english.json()["detail"] == "The 2♣ must lead the first trick."
    assert spanish.json()["detail"] == SPANISH_LEAD


@pytest.mark.django_db
def test_the_profile_language_beats_the_browsers_and_values_inside_messages_are_translated():
    game, people, clients = seated_table(rules={"passing": "off"})
    view = clients[0].get(f"/api/games/{game.pk}/").json()["state"]
    other = (view["to_act"][0] + 1) % 4
    people[other].language = "es"
    people[other].save()
    card = clients[other].get(f"/api/games/{game.pk}/").json()["state"]["hand"][0]
    response = clients[other].post(
        f"/api/games/{game.pk}/commands/", {"type": "play", "card": card}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.json()["code"] == "not_your_turn"
    assert response.json()["detail"].startswith("No es tu turno: ahora juega ")
    assert localize("You must follow suit: play clubs.", "es") == "Debes seguir el palo: juega tréboles."
    assert (
        localize("These rules are not valid: players must be 3, 4 or 5", "es")
        == "Estas reglas no son válidas: players debe ser 3, 4 o 5"
    )
    assert (
        localize("You cannot play a card now: players are passing cards.", "es")
        == "No puedes jugar una carta ahora: los jugadores están pasando cartas."
    )
    assert localize("Seat 3 is taken.", "es") == "El asiento 3 está ocupado."
    assert localize("A message nobody wrote.", "es") == "A message nobody wrote."


@pytest.mark.django_db
def test_django_errors_outside_drf_answer_in_spanish_too(client):
    response = client.get("/api/no-such-door/", HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "No hay nada en esta dirección."}


@pytest.mark.django_db
def test_the_header_switch_is_remembered_by_cookie_and_kept_in_a_signed_in_profile():
    player = PlayerFactory()
    browser = client_for(player)
    browser.force_login(player.user)
    response = browser.post("/web/language", {"language": "es", "next": "/"})
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "es"
    player.refresh_from_db()
    assert player.language == "es"


@pytest.mark.django_db(transaction=True)
async def test_an_illegal_move_over_the_socket_answers_in_spanish_with_the_same_code():
    game, people, clients = await database_sync_to_async(seated_table)(rules={"passing": "off"})
    leader, wrong = await database_sync_to_async(_wrong_lead)(clients, game.pk)
    ticket = await database_sync_to_async(ws_ticket_issue)(user_id=people[leader].user_id, game_id=game.pk)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/?ticket={ticket}",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"accept-language", b"es-MX,es;q=0.9,en;q=0.5"),
        ],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    await communicator.send_to(text_data=json.dumps({"type": "play", "card": wrong, "command_id": "c1"}))
    while True:
        frame = json.loads(await communicator.receive_from(timeout=5))
        if frame["type"] == "error":
            break
    assert frame["code"] == "must_lead_two_of_clubs" and frame["command_id"] == "c1"
    assert frame["detail"] == SPANISH_LEAD
    await communicator.disconnect()


def test_the_generated_message_list_is_current():
    """A refusal added to the code without regenerating would never be translated."""
    from hearts_league import i18n

    assert i18n.GENERATED.read_text(encoding="utf-8") == i18n.render_generated(i18n.extract()), (
        "run: python -m hearts_league.i18n, then make messages"
    )


LOCALE = Path(__file__).resolve().parents[2] / "locale"


def _po_entries(path: Path) -> list[tuple[str, list[str], bool]]:
    """(msgid, msgstrs, fuzzy) of every entry but the header."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = block.strip().splitlines()
        fuzzy = any(line.startswith("#,") and "fuzzy" in line for line in lines)
        fields: dict[str, str] = {}
        key = None
        for line in lines:
            if line.startswith(("msgctxt ", "msgid ", "msgid_plural ", "msgstr")):
                key, _, rest = line.partition(" ")
                fields[key] = ast.literal_eval(rest)
            elif line.startswith('"') and key:
                fields[key] += ast.literal_eval(line)
        if fields.get("msgid"):
            msgid = f"{fields['msgctxt']}\x04{fields['msgid']}" if "msgctxt" in fields else fields["msgid"]
            entries.append((msgid, [v for k, v in fields.items() if k.startswith("msgstr")], fuzzy))
    return entries


CATALOGS = sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def test_there_are_catalogs_for_every_language_but_english():
    assert {path.parts[-3] for path in CATALOGS} == {code for code, _ in settings.LANGUAGES} - {"en"}
    assert {path.name for path in CATALOGS} == {"django.po", "djangojs.po"}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_every_message_is_translated_and_none_is_fuzzy(path):
    entries = _po_entries(path)
    assert len(entries) > 100
    assert [msgid for msgid, strs, _ in entries if not all(strs)] == []
    assert [msgid for msgid, _, fuzzy in entries if fuzzy] == []


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_the_committed_mo_file_is_the_compiled_po(path):
    """The .mo files are committed (no gettext needed to run the site); `make messages` compiles
    them. Reading the .mo back must give exactly the .po's translations."""
    with path.with_suffix(".mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog
    expected = {}
    for msgid, strs, _ in _po_entries(path):
        if len(strs) == 1:
            expected[msgid] = strs[0]
    got = {key: value for key, value in compiled.items() if isinstance(key, str) and key}
    assert got == expected, "run: make messages (the .mo is older than its .po)"


@pytest.mark.django_db
def test_pages_follow_the_profile_then_the_cookie_then_accept_language(client):
    assert '<html lang="es">' in client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    client.cookies["django_language"] = "en"
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '<html lang="en">' in page and "Play against the CPU" in page
    player = PlayerFactory(language="es")
    client.force_login(player.user)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="es">' in page and "Jugar contra la CPU" in page
