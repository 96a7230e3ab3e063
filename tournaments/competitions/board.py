"""The live board of a tournament's round: what the director's console, the projector screen
and the players' tournament page show, pushed over ``ws/tournaments/<id>/``.

Public information only, the same for every viewer: who sits where, each table's hand number,
running totals, who is to act and since when, and whether a seat waits on an absent player or
is played by a CPU. Never a card.

A sealed table (its deals are being played at other tables of a duplicate round) shows, until
the round is over, only what tells nothing of its play: its identity (``id``, ``number``,
``game``), its seats (players, names, CPU, away / connected), its ``status`` (seated, playing,
finished) and ``sealed: true``. Everything read from its game's progress is ``null``: the
totals, the hand number, the phase, who is to act (the seat that held the 2♣ after the pass,
each trick's winner, a moon shooter choosing), since when (the pace of play), who is awaited
and whether a CPU is: each of these would tell the other tables about the deals.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max

import engine
from tournaments.competitions.selectors import player_names, standings_for_tournament
from tournaments.games import eventstore
from tournaments.models import Game, GameEvent, GameSeat, Round, Tournament


def _progress(state) -> dict:
    return {"hand_number": state.hand_number, "phase": state.phase, "to_act": list(state.to_act)}


# The fields of a table read from its game's progress: all None at a hidden (sealed) table.
PROGRESS_FIELDS = ("hand_number", "phase", "to_act", "since", "waiting_on_absent", "cpu_to_act", "totals")


def board_for_tournament(tournament: Tournament) -> dict:
    """The board: the tournament, its latest round's tables, and the standings."""
    round_ = tournament.rounds.order_by("-number").first()
    board: dict[str, Any] = {
        "tournament": {
            "id": tournament.pk,
            "name": tournament.name,
            "status": tournament.status,
            "rounds_planned": tournament.total_rounds,
        },
        "round": None,
        "tables": [],
        "standings": [line.to_dict() for line in standings_for_tournament(tournament)],
    }
    if round_ is None:
        return board
    board["round"] = {
        "number": round_.number,
        "status": round_.status,
        "is_final": round_.is_final,
        "started_at": round_.started_at.isoformat() if round_.started_at else None,
    }
    tables = list(round_.tables.select_related("game").order_by("number"))
    games = {t.game_id: t.game for t in tables if t.game_id}
    names = player_names(pid for t in tables for pid in t.players)
    seats = {
        (s.game_id, s.seat): s
        for s in GameSeat.objects.filter(game_id__in=games)
        .select_related("player")
        .annotate(connections=Count("open_connections"))
    }
    last_event = dict(
        GameEvent.objects.filter(game_id__in=games)
        .values("game_id")
        .annotate(at=Max("recorded_at"))
        .values_list("game_id", "at")
    )
    totals: dict[int, list[int]] = {}
    hands: dict[int, int] = {}
    scored = GameEvent.objects.filter(game_id__in=games, type="HandScored").order_by("game_id", "seq")
    for game_id, payload in scored.values_list("game_id", "payload"):
        totals[game_id] = list(payload["totals"])
        hands[game_id] = payload["hand_number"]
    round_over = round_.status == Round.Status.FINISHED
    for table in tables:
        # a table without its game yet (game_id None) finds nothing in these dicts
        game = games.get(table.game_id)  # type: ignore[arg-type]
        hidden = game is not None and game.sealed and not round_over
        progress: dict[str, Any] = {"hand_number": 0, "phase": "seated", "to_act": []}
        if game is not None and not hidden:  # a hidden table's game state is not even read
            if game.status == Game.Status.ACTIVE:
                progress = eventstore.read_engine_game(game, _progress)
            elif game.status == Game.Status.FINISHED:
                progress = {"hand_number": hands.get(game.pk, 0), "phase": engine.Phase.GAME_OVER, "to_act": []}
        table_seats = []
        for seat, pid in enumerate(table.players):
            row = seats.get((table.game_id, seat))  # type: ignore[arg-type]  # no game: no seat rows
            cpu = seat in table.cpu_fill or bool(row and row.player and row.player.is_cpu)
            table_seats.append(
                {
                    "seat": seat,
                    "player_id": pid,
                    "name": names.get(pid, ""),
                    "cpu_fill": seat in table.cpu_fill,
                    "away": bool(row and row.away),  # a CPU plays the seat until the player is back
                    "disconnected": bool(row and row.disconnected_since),
                    "connected": bool(row and row.connections),  # the table open on some device
                    "cpu": cpu,
                }
            )
        # to act, a person, and neither at the table nor yet replaced by a CPU
        waiting = [
            s
            for s in progress["to_act"]
            if not table_seats[s]["cpu"] and not table_seats[s]["away"] and not table_seats[s]["connected"]
        ]
        since = last_event.get(table.game_id)
        entry: dict[str, Any] = {
            "id": table.pk,
            "number": table.number,
            "status": table.status,
            "game": table.game_id,
            "seats": table_seats,
            "hand_number": progress["hand_number"],
            "phase": progress["phase"],
            "to_act": progress["to_act"],
            "since": since.isoformat() if since and progress["to_act"] else None,
            "waiting_on_absent": waiting,
            "cpu_to_act": any(table_seats[s]["cpu"] or table_seats[s]["away"] for s in progress["to_act"]),
            "totals": totals.get(table.game_id),  # type: ignore[arg-type]  # no game: None
            "sealed": hidden,
        }
        if hidden:  # the same shape, none of its play: the other tables are playing these deals
            entry.update(dict.fromkeys(PROGRESS_FIELDS))
        board["tables"].append(entry)
    return board
