"""Hostile input over REST: schemathesis against our OpenAPI schema (no 500, responses and
content types as documented), and DRF throttling on commands and auth (429 with a code).

WebSocket hostile input (not JSON, too big, unknown type, wrong field types, floods) is covered
in tests/tournaments/live/test_game_consumer.py.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.cache import cache
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.throttling import SimpleRateThrottle
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for, next_command, seated_table
from tournaments.games import eventstore
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def _wsgi_app():
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


# Loaded at collection (Django is set up by then; building the schema needs no database).
# schemathesis.pytest.from_fixture would load it lazily but does not work with pytest 9.
schema = schemathesis.openapi.from_wsgi("/api/schema/", _wsgi_app())


@pytest.fixture
def wsgi_requests(db, monkeypatch):
    """Requests through the WSGI app inside the test's transaction, with generous throttles."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    # the fuzzer is one client; the throttles have their own tests below
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"auth": "100000/minute", "commands": "100000/minute", "analysis": "100000/minute"},
    )
    # as Django's test client does: keep the test's connection (and its transaction) open
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def player_headers(wsgi_requests):
    """An authenticated player seated at a live table (id 1.. so generated ids sometimes hit it)."""
    _, people, _ = seated_table()
    from rest_framework.authtoken.models import Token

    from tests.factories import TournamentFactory

    TournamentFactory()  # and a league: listed ids the links can follow

    token, _ = Token.objects.get_or_create(user=people[0].user)
    return {"Authorization": f"Token {token.key}"}


@schema.parametrize()
@hypothesis_settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_request_makes_a_500_or_breaks_the_documented_responses(case, player_headers):
    case.call_and_validate(
        headers=player_headers, checks=[not_a_server_error, response_schema_conformance, content_type_conformance]
    )


def _existing_ids(path: str) -> dict[str, str]:
    """The path parameters naming things that exist: the newest game, league, tournament and player
    (the seated table's, the tournament's and its league's), for an operation under ``path``."""
    from tournaments.models import League, Player, Tournament

    newest = {
        model: str(model.objects.order_by("-pk").values_list("pk", flat=True).first())
        for model in (Game, League, Player, Tournament)
    }
    under = {"games": Game, "leagues": League, "players": Player, "tournaments": Tournament}.get(path.split("/")[2])
    ids = {"game_id": newest[Game], "league_id": newest[League], "player_id": newest[Player], "number": "1"}
    if under is not None:
        ids["id"] = newest[under]
    return ids


@schema.parametrize()
@hypothesis_settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_requests_on_things_that_exist_make_no_500_and_answer_as_documented(case, player_headers):
    """The generated requests again, their ids on the live table, its player, the tournament and
    its league: the generated ids mostly name nothing, and a 404 checks no documented body (a
    league's seasons once answered a bare list where the schema documents a page)."""
    if case.path_parameters:
        known = _existing_ids(case.operation.path)
        case.path_parameters = {name: known.get(name, value) for name, value in case.path_parameters.items()}
    case.call_and_validate(
        headers=player_headers, checks=[not_a_server_error, response_schema_conformance, content_type_conformance]
    )


# --- near numbers: every id and integer parameter of every operation --------------------------------

# str.isdigit() takes each of these; int() refuses some ('²'), will not read others (over 4300
# digits) and reads the rest as another number: int('٣') is 3. The generated cases above are the
# schema's integers, which never are any of them.
NEAR_NUMBERS = ["²", "١٢", "٣", "1²", "٣" * 3, "9" * 25, "9" * 5000]
OTHER_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")  # Arabic-Indic: the same id to int()


def _doors():
    """(operation, its path parameters, its integer query parameters) for each operation with any."""
    doors = []
    for result in schema.get_all_operations():
        operation = result.ok()
        parameters = list(operation.iter_parameters())
        path = [p.name for p in parameters if p.location == "path"]
        query = [
            p.name
            for p in parameters
            if p.location == "query" and p.definition.get("schema", {}).get("type") == "integer"
        ]
        if path or query:
            doors.append(pytest.param(operation, path, query, id=f"{operation.method.upper()} {operation.path}"))
    return doors


@pytest.mark.parametrize(("operation", "path", "query"), _doors())
def test_near_numbers_in_ids_and_integer_parameters_get_a_4xx_with_a_code(operation, path, query, player_headers):
    """Each near number in each path parameter (the others an id that exists) and in all the
    integer query parameters at once, as a seated player and as a director: never a 500; for an
    id a 4xx (mostly 404) with a machine-readable code, for a parameter read a 400 with one. An
    existing id written in Arabic-Indic digits names nothing either (it once showed player 3)."""
    from tournaments.models import League, Player, Tournament

    # an id that exists, for each path parameter that is not the near number (the table's game...)
    model = {"games": Game, "tournaments": Tournament, "leagues": League, "players": Player}
    found = model.get(operation.path.split("/")[2])
    known = str(found.objects.order_by("pk").values_list("pk", flat=True).first()) if found else "1"
    ids = {name: known if name in ("id", "game_id", "league_id", "player_id") else "1" for name in path}
    body = {"body": {}, "media_type": "application/json"} if operation.method in ("post", "patch") else {}
    for headers in (player_headers, _director_headers()):
        for value in [*NEAR_NUMBERS, None]:  # None: each existing id in other digits
            tries = [({**ids, name: value or ids[name].translate(OTHER_DIGITS)}, {}) for name in path]
            value = value or known.translate(OTHER_DIGITS)
            if query:
                tries.append((ids, dict.fromkeys(query, value)))
            for path_parameters, query_parameters in tries:
                case = operation.Case(path_parameters=path_parameters, query=query_parameters, **body)
                response = case.call(headers=headers)
                where = (case.formatted_path, query_parameters and value[:8], response.status_code)
                assert response.status_code < 500, (where, response.content[:300])
                if query_parameters:  # a 400 invalid_parameter, or ignored (the schema lists a few where unread)
                    assert response.status_code < 300 or response.json().get("code"), (where, response.content[:300])
                else:  # no such thing (a 404), not yours (401/403), or a body refused first (400)
                    assert 400 <= response.status_code < 500, (where, response.content[:300])
                    assert response.json().get("code"), (where, response.content[:300])


# --- throttling -----------------------------------------------------------------------------------


@pytest.fixture
def tight_rates(monkeypatch):
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"auth": "3/minute", "commands": "4/minute", "analysis": "4/minute"}
    )
    keys = ["throttle_auth_127.0.0.1"]
    cache.delete_many(keys)
    yield keys
    cache.delete_many(keys)


def test_commands_over_the_rate_get_429_with_a_code(tight_rates):
    game, people, clients = seated_table()
    # user ids come back in a new test database: forget what earlier tests' users were counted
    tight_rates.extend(f"throttle_commands_{person.user_id}" for person in people[:2])
    cache.delete_many(tight_rates)
    view = eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda s: s.view(0))
    body = {**next_command(view), "command_id": "same"}
    codes = [clients[0].post(f"/api/games/{game.pk}/commands/", body, format="json").status_code for _ in range(6)]
    assert codes[:4] == [200] * 4 and codes[4:] == [429, 429]
    refused = clients[0].post(f"/api/games/{game.pk}/commands/", body, format="json")
    assert refused.json()["code"] == "throttled" and "Retry-After" in refused.headers
    # another player's commands are counted separately
    other = clients[1].post(f"/api/games/{game.pk}/commands/", {"type": "pass", "cards": []}, format="json")
    assert other.status_code != 429


def test_auth_over_the_rate_gets_429_with_a_code(tight_rates, api_client):
    PlayerFactory()
    codes = [
        api_client.post(
            "/api/auth/token", {"username": "nobody", "password": "wrong-password"}, format="json"
        ).status_code
        for _ in range(5)
    ]
    assert codes[:3] == [401, 401, 401] and codes[3:] == [429, 429]
    refused = api_client.post("/api/auth/guest", {"device_id": "device-0123456789abcdef"}, format="json")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert client_for(PlayerFactory()).get("/api/games/").status_code == 200  # reading is not throttled


# --- stateful: sequences of calls that follow the schema's links ------------------------------------

APIWorkflow = schema.as_state_machine()


@pytest.mark.parametrize("role", ["player", "director"])
def test_no_sequence_of_linked_requests_makes_a_500(role, player_headers):
    """schemathesis's state machine over the whole schema: each step feeds a response's values
    (ids, seqs) into the requests its links lead to (links in the schema, and those schemathesis
    infers from it), as a player seated at a live table and as a director (staff). Each scenario
    starts from the same database (a savepoint rolled back after it) and empty throttles, so that
    Hypothesis can replay what it found."""
    from django.db import transaction

    from tests.conftest import clear_process_caches

    headers = player_headers if role == "player" else _director_headers()

    class Workflow(APIWorkflow):
        def setup(self):
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)
            cache.clear()
            clear_process_caches()

        def get_call_kwargs(self, case):
            return {"headers": headers}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=[not_a_server_error])

    Workflow.run(
        settings=hypothesis_settings(
            max_examples=60,
            stateful_step_count=10,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )


def _director_headers():
    from rest_framework.authtoken.models import Token

    director = PlayerFactory(user__is_staff=True)
    token, _ = Token.objects.get_or_create(user=director.user)
    return {"Authorization": f"Token {token.key}"}
