"""OpenAPI links: which response values feed which requests (drf-spectacular postprocessing hook).

A link tells a client (and schemathesis's stateful fuzzing) that, say, the ``id`` in the 201 of
``POST /api/games/`` is the ``{id}`` of the game's commands, events and join. Declared here by
operationId, so the views stay as they are.
"""

from __future__ import annotations

GAME = {"id": "$response.body#/id"}
TOURNAMENT = {"id": "$response.body#/id"}
PLAYER = {"id": "$response.body#/player_id"}
PLAYER_PATH = {"player_id": "$response.body#/player_id"}

# (operation, status) -> {link name: (target operation, parameters, request body or None)}
LINKS: dict[tuple[str, str], dict[str, tuple[str, dict, dict | None]]] = {
    ("games_create", "201"): {
        "GetGame": ("games_retrieve", GAME, None),
        "PlayTheNextMove": ("games_commands_create", GAME, {"expected_seq": "$response.body#/seq"}),
        "GetEvents": ("games_events_retrieve", GAME, None),
        "Join": ("games_join_create", GAME, None),
        "Leave": ("games_leave_create", GAME, None),
        "GetWsTicket": ("games_ws_ticket_create", GAME, None),
    },
    ("games_commands_create", "200"): {
        "GetGame": ("games_retrieve", {"id": "$request.path.id"}, None),
        "GetEvents": ("games_events_retrieve", {"id": "$request.path.id"}, None),
    },
    ("tournaments_create", "201"): {
        "GetTournament": ("tournaments_retrieve", TOURNAMENT, None),
        "Register": ("tournaments_register_create", TOURNAMENT, None),
        "Withdraw": ("tournaments_withdraw_create", TOURNAMENT, None),
        "SeatRound": ("tournaments_seat_round_create", TOURNAMENT, None),
        "StartRound": ("tournaments_start_round_create", TOURNAMENT, None),
        "Standings": ("tournaments_standings_list", TOURNAMENT, None),
        "Rounds": ("tournaments_rounds_list", TOURNAMENT, None),
    },
    ("tournaments_start_round_create", "201"): {
        "Tables": (
            "tournaments_rounds_tables_list",
            {"id": "$request.path.id", "number": "$response.body#/number"},
            None,
        ),
        "FinishRound": ("tournaments_finish_round_create", {"id": "$request.path.id"}, None),
    },
    ("leagues_create", "201"): {
        "GetLeague": ("leagues_retrieve", {"id": "$response.body#/id"}, None),
        "Leaderboard": ("leagues_leaderboard_retrieve", {"league_id": "$response.body#/id"}, None),
        "CreateTournament": ("tournaments_create", {}, {"league": "$response.body#/id"}),
    },
    **{
        (operation, status): {
            "GetPlayer": ("players_retrieve", PLAYER, None),
            "PlayerGames": ("players_games_list", PLAYER_PATH, None),
            "PlayerRatings": ("players_ratings_list", PLAYER_PATH, None),
        }
        for operation, status in (
            ("auth_register_create", "201"),
            ("auth_token_create", "200"),
            ("auth_guest_create", "200"),
        )
    },
}


def add_links(result, generator, request, public):
    """Add :data:`LINKS` to the responses of the generated schema (only links whose operations exist)."""
    operations = {
        op["operationId"]: op
        for path in result.get("paths", {}).values()
        for op in path.values()
        if isinstance(op, dict) and "operationId" in op
    }
    for (source, status), links in LINKS.items():
        response = operations.get(source, {}).get("responses", {}).get(status)
        if response is None:
            continue
        for name, (target, parameters, body) in links.items():
            if target not in operations:
                continue
            link = {"operationId": target, "parameters": parameters}
            if body is not None:
                link["requestBody"] = body
            response.setdefault("links", {})[name] = link
    return result
