"""The games API: tables, commands, events, replay, audit and export. Thin: parse, call a
service or selector, serialize."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle

from engine import bots
from hearts_league.api import MAX_ID, DomainError, int_query_param
from tournaments.clubs.auth import requester
from tournaments.games import eventstore, selectors, visibility
from tournaments.games import services as game_services
from tournaments.games.commands import CommandSerializer, parse_command
from tournaments.games.rematch import game_rematch
from tournaments.games.tickets import TICKET_SECONDS, ws_ticket_issue
from tournaments.games.visibility import visible_event
from tournaments.games.watchers import watchers_of
from tournaments.models import Game, League

# --- serializers ----------------------------------------------------------------------------


class SeatSpecSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["me", "open", "cpu", "invite"],
        help_text="invite: the seat is held for player_id until they accept (or decline, or it expires)",
    )
    bot = serializers.ChoiceField(choices=bots.KINDS, required=False)
    player_id = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)

    def validate(self, attrs):
        if attrs["kind"] == "invite" and attrs.get("player_id") is None:
            raise serializers.ValidationError({"player_id": "An invitation names the player invited."})
        return attrs


class GameCreateSerializer(serializers.Serializer):
    rules = serializers.DictField(
        required=False, default=dict, help_text='engine Rules fields, e.g. {"players": 4, "end_score": 50}'
    )
    turn_seconds = serializers.ChoiceField(choices=[30, 60], required=False, allow_null=True, default=None)
    ranked = serializers.BooleanField(
        required=False, default=False, help_text="only false: ranked tables come from the ranked queue and tournaments"
    )
    league = serializers.IntegerField(required=False, allow_null=True, default=None)
    # many=True hands max_length to the ListSerializer; the DRF stubs' __init__ does not list it
    seats = SeatSpecSerializer(many=True, required=False, max_length=5)  # type: ignore[call-arg]
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class RematchSerializer(serializers.Serializer):
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class JoinSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=4, default=None)
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class InvitedSerializer(serializers.Serializer):
    invitation = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    expires_at = serializers.DateTimeField()


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player_id = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    cpu = serializers.BooleanField()
    bot = serializers.ChoiceField(
        choices=bots.KINDS,
        allow_null=True,
        help_text="a CPU seat's player: random (easy), rule (medium), montecarlo (hard)",
    )
    away = serializers.BooleanField()
    invited = InvitedSerializer(allow_null=True, help_text="an open seat held for an invited player")


HIDDEN_FROM_OUTSIDERS = ("seq", "turn_deadline", "final_totals", "winner_seat", "started_at", "finished_at")
"""What ``GameSerializer`` shows as null to a viewer who may not watch the game (a sealed table)."""


class GameSerializer(serializers.ModelSerializer):
    """A game as the requester may see it (``tournaments.games.visibility``): ``watchable`` is false for a
    table of a duplicate round still being played (only its players and staff watch it), whose
    result and progress (``seq``, ``turn_deadline``) are hidden too."""

    seats = serializers.SerializerMethodField()
    players = serializers.IntegerField(source="players_count", read_only=True)
    seq = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="events in the log; null where the game may not be watched"
    )
    turn_deadline = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="when the seat to act runs out of time; null where not watchable"
    )
    watchable = serializers.BooleanField(read_only=True, default=True)

    class Meta:
        model = Game
        fields = [
            "id",
            "status",
            "ranked",
            "turn_seconds",
            "league",
            "rules",
            "players",
            "seq",
            "seats",
            "turn_deadline",
            "final_totals",
            "winner_seat",
            "created_at",
            "started_at",
            "finished_at",
            "watchable",
        ]

    def to_representation(self, game):
        body = super().to_representation(game)
        sight = self.context.get("sight")
        if sight is None:
            request = self.context.get("request")
            sight = visibility.sight(game, request.user if request else None, list(game.seats.all()))
        body["watchable"] = sight.may_watch
        if not sight.may_watch:
            # A sealed table's result is part of its round's secret, and its progress (how many
            # events, whether a clock runs: a person, not a CPU, to act; when it started and
            # finished, its pace) tells how its deals go.
            for hidden in HIDDEN_FROM_OUTSIDERS:
                body[hidden] = None
        return body

    @extend_schema_field(SeatSerializer(many=True))
    def get_seats(self, game) -> list[dict]:
        held = {}
        if game.status == Game.Status.WAITING:
            held = {
                i.seat: {
                    "invitation": i.pk,
                    "player_id": i.player_id,
                    "name": i.player.display_name,
                    "expires_at": i.expires_at,
                }
                for i in selectors.held_invitations(game)
            }
        return [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "name": s.player.display_name if s.player else None,
                "cpu": bool(s.player and s.player.is_cpu),
                "bot": s.player.bot_kind if s.player and s.player.is_cpu else None,
                "away": s.away,
                "invited": held.get(s.seat),
            }
            for s in game.seats.all()  # prefetched by the list selector and by _detail
        ]


# --- views ------------------------------------------------------------------------------------


class CommandThrottle(UserRateThrottle):
    scope = "commands"


@extend_schema(
    parameters=[
        OpenApiParameter("player", OpenApiTypes.INT),
        OpenApiParameter("status", OpenApiTypes.STR, enum=["waiting", "active", "finished"]),
        OpenApiParameter("ranked", OpenApiTypes.BOOL),
        OpenApiParameter("league", OpenApiTypes.INT),
        OpenApiParameter("created_after", OpenApiTypes.DATETIME),
        OpenApiParameter("created_before", OpenApiTypes.DATETIME),
    ]
)
class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Tables and their games. A game is its event log; everything here is derived from it."""

    serializer_class = GameSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]

    def get_queryset(self):
        params = self.request.query_params
        ranked = {"true": True, "1": True, "false": False, "0": False}.get(params.get("ranked", "").lower())
        status_filter = params.get("status") or None
        if status_filter and status_filter not in Game.Status.values:
            raise DomainError("invalid_parameter", f"'status' is one of {', '.join(Game.Status.values)}.")
        dates = {}
        for name in ("created_after", "created_before"):
            if params.get(name):
                try:  # a well-formed but impossible date (2026-02-30, hour 25) raises ValueError
                    parsed = parse_datetime(params[name])
                except ValueError:
                    parsed = None
                if parsed is None:
                    raise DomainError("invalid_parameter", f"'{name}' must be an ISO 8601 date-time.")
                dates[name] = parsed
        return selectors.games_list(
            player_id=int_query_param(self.request, "player"),
            status=status_filter,
            ranked=ranked,
            league_id=int_query_param(self.request, "league"),
            **dates,
        )

    @extend_schema(request=GameCreateSerializer, responses={201: GameSerializer})
    def create(self, request):
        """Create a table: rules, turn time, ranked or casual, and who sits where."""
        data = GameCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if values["ranked"]:
            raise DomainError(
                "ranked_by_queue_only",
                "Ranked tables are made by the ranked queue "
                "(POST /api/ranked/queue) and by tournaments, never by hand.",
                status=403,
            )
        league = None
        if values["league"] is not None:
            league = League.objects.filter(pk=values["league"]).first()
            if league is None:
                raise DomainError("invalid_league", f"There is no league {values['league']}.")
        seats = [game_services.SeatSpec(**spec) for spec in values["seats"]] if "seats" in values else None
        game = game_services.game_create(
            creator=requester(request),
            rules=values["rules"],
            seats=seats,
            ranked=values["ranked"],
            turn_seconds=values["turn_seconds"],
            league=league,
            device_id=values["device_id"],
        )
        return Response(self._detail(game), status=status.HTTP_201_CREATED)

    def retrieve(self, request, pk=None):
        """The game as the requester may see it: your own hand only; spectators see none."""
        return Response(self._detail(self.get_object()))

    def _detail(self, game):
        game = Game.objects.prefetch_related("seats__player").get(pk=game.pk)
        seats = list(game.seats.all())
        sight = visibility.sight(game, self.request.user, seats)
        body = GameSerializer(game, context={"sight": sight}).data
        body["your_seat"] = sight.seat
        body["state"] = (
            eventstore.read_engine_game(game, sight.view)
            if game.status != Game.Status.WAITING and sight.may_watch
            else None
        )
        body["rematch"] = Game.objects.filter(rematch_of=game).values_list("pk", flat=True).first()
        return body

    @extend_schema(request=JoinSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def join(self, request, pk=None):
        """Take a seat (or take your seat back from the same device)."""
        data = JoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = game_services.game_join(game_id=self._game_id(pk), player=requester(request), **data.validated_data)
        return Response(self._detail(game))

    @extend_schema(request=None, responses={200: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def leave(self, request, pk=None):
        """Leave: before the start the seat opens; during play a CPU plays it."""
        game = game_services.game_leave(game_id=self._game_id(pk), player=requester(request))
        return Response(self._detail(game))

    @extend_schema(request=RematchSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def rematch(self, request, pk=None):
        """Play again: the first of a finished casual game's players to ask gets a new table with
        the same rules and seats, the others are invited; a later ask sits you down there."""
        data = RematchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = game_rematch(
            game_id=self._game_id(pk), player=requester(request), device_id=data.validated_data["device_id"]
        )
        return Response(self._detail(game))

    @extend_schema(
        request=CommandSerializer,
        responses={
            200: inline_serializer(
                "CommandResult",
                {
                    "seq": serializers.IntegerField(),
                    "duplicate": serializers.BooleanField(),
                    "events": serializers.ListField(child=serializers.DictField()),
                },
            )
        },
    )
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated], throttle_classes=[CommandThrottle])
    def commands(self, request, pk=None):
        """Pass, play or choose the moon result, for the seat you sit at (never from the body)."""
        values, command_id, expected_seq = parse_command(request.data)
        result = game_services.game_execute_command(
            game_id=self._game_id(pk),
            player=requester(request),
            command=values,
            command_id=command_id,
            expected_seq=expected_seq,
        )
        game = result.game
        sight = visibility.sight(game, request.user)
        events = visibility.visible_events(game, sight, requester(request).pk, list(result.events))
        return Response({"seq": game.seq, "duplicate": result.duplicate, "events": events})

    @extend_schema(
        request=None,
        responses={
            201: inline_serializer(
                "WsTicket",
                {
                    "ticket": serializers.CharField(),
                    "expires_in": serializers.IntegerField(),
                    "url": serializers.CharField(),
                },
            )
        },
    )
    @action(detail=True, methods=["post"], url_path="ws-ticket", permission_classes=[IsAuthenticated])
    def ws_ticket(self, request, pk=None):
        """A single-use ticket (valid 60 s) to open this game's WebSocket without a session cookie."""
        game = self.get_object()
        ticket = ws_ticket_issue(user_id=request.user.pk, game_id=game.pk)
        return Response(
            {"ticket": ticket, "expires_in": TICKET_SECONDS, "url": f"/ws/games/{game.pk}/?ticket={ticket}"},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        responses={
            200: inline_serializer(
                "Spectators",
                {
                    "names": serializers.ListField(child=serializers.CharField()),
                    "anonymous": serializers.IntegerField(),
                },
            )
        }
    )
    @action(detail=True, methods=["get"])
    def spectators(self, request, pk=None):
        """Who watches the table without a seat: signed-in spectators' display names, and how many
        watch without an account. Names only; the ``spectators`` socket frame follows changes."""
        game = self.get_object()
        self._watching(game)
        return Response(watchers_of(game.pk))

    @extend_schema(
        parameters=[OpenApiParameter("after", OpenApiTypes.INT, description="last seq seen")],
        responses={
            200: inline_serializer(
                "GameEvents",
                {
                    "seq": serializers.IntegerField(),
                    "status": serializers.CharField(),
                    "events": serializers.ListField(child=serializers.DictField(), help_text="redacted for you"),
                },
            )
        },
    )
    @action(detail=True, methods=["get"])
    def events(self, request, pk=None):
        """Events after ``after``: redacted for the requester while the game is live."""
        game = self.get_object()
        sight = self._watching(game)
        after = int_query_param(request, "after", default=0)
        rows = list(selectors.game_events_after(game, after, up_to=game.seq))
        events = visibility.visible_events(game, sight, self._player_id(), rows)
        return Response({"seq": game.seq, "status": game.status, "events": events})

    @extend_schema(
        parameters=[
            OpenApiParameter("at", OpenApiTypes.INT, description="state after event N"),
            OpenApiParameter("seat", OpenApiTypes.INT, description="whose view"),
        ],
        responses={
            200: inline_serializer(
                "GameReplay",
                {
                    "at": serializers.IntegerField(),
                    "last_seq": serializers.IntegerField(),
                    "seat": serializers.IntegerField(allow_null=True),
                    "view": serializers.DictField(help_text="the seat's view, as the game's state"),
                    "views": serializers.ListField(
                        child=serializers.DictField(), required=False, help_text="every seat's, once the game is over"
                    ),
                    "hands": serializers.ListField(
                        child=serializers.ListField(child=serializers.CharField()), required=False
                    ),
                    "event": serializers.DictField(help_text="event ``at``, redacted for you"),
                },
            )
        },
    )
    @action(detail=True, methods=["get"])
    def replay(self, request, pk=None):
        """The game as it was after event ``at`` (any event, 1 to the game's seq), from ``seat``'s
        view: yours while the game is live, anyone's (and every hand) once it is over."""
        game = self.get_object()
        sight = self._watching(game)
        if game.seq == 0:
            raise DomainError("game_not_started", "This game has not started yet.", status=409)
        at = int_query_param(request, "at", default=game.seq, minimum=1)
        if at > game.seq:
            raise DomainError("invalid_parameter", f"'at' must be between 1 and {game.seq}.")
        seat = int_query_param(request, "seat")
        if seat is not None and not 0 <= seat < game.players_count:
            raise DomainError("invalid_seat", f"This table has seats 0 to {game.players_count - 1}.")
        if not sight.everything:
            # the seat held once the log was at ``at`` (a newcomer the director seated held none
            # before), and whether its pass by then was theirs (else ``passed`` is null)
            held, passes = visibility.holding_at(game.pk, self._player_id(), at)
            sight = visibility.sight_at(game, sight, held, own_pass=visibility.pass_shown(game, held, passes))
        if not sight.everything and seat is not None and seat != sight.seat:
            raise DomainError("hidden_until_over", "Other seats' views are hidden until the game is over.", status=403)
        shown = visibility.sight_of_seat(game, seat, sight.kind) if sight.everything else sight
        position = eventstore.game_position(game, at)
        body = {"at": at, "last_seq": game.seq, "seat": shown.seat, "view": shown.view(position)}
        views = shown.views_of_every_seat(position, game.players_count)
        if views is not None:
            body["views"] = views
            body["hands"] = [view["hand"] for view in views]
        body["event"] = visible_event(game.events.get(seq=at), shown)
        return Response(body)

    @extend_schema(
        responses={
            200: inline_serializer(
                "AuditReport",
                {
                    "game": serializers.IntegerField(),
                    "ok": serializers.BooleanField(),
                    "events_checked": serializers.IntegerField(),
                    "first_bad_seq": serializers.IntegerField(allow_null=True),
                    "reason": serializers.CharField(),
                },
            )
        }
    )
    @action(detail=True, methods=["get"])
    def audit(self, request, pk=None):
        """Replay the stored log through the engine and check the hash chain and deal commitments."""
        game = self.get_object()
        self._watching(game)
        return Response(eventstore.audit_game(game).to_dict())

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """A finished game's complete log, one JSON object per line."""
        game = self.get_object()
        sight = self._watching(game)
        if not sight.everything:
            code, detail = (
                ("round_not_over", "This game's deals are still being played at other tables.")
                if game.is_over
                else ("game_not_over", "Only finished games can be exported.")
            )
            raise DomainError(code, detail, status=409)
        lines = (json.dumps(visible_event(row, sight)) + "\n" for row in game.events.order_by("seq"))
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.ndjson"'
        return response

    def _watching(self, game: Game) -> visibility.Sight:
        """The requester's sight of the game, refused (403) where they may not watch it."""
        sight = visibility.sight(game, self.request.user)
        if not sight.may_watch:
            raise DomainError(
                "hidden_until_round_over",
                "This table plays deals other tables of its round are "
                "still playing: it can be watched once the round is over.",
                status=403,
            )
        return sight

    def _player_id(self) -> int | None:
        """The requester's player id (None: anonymous, or a user without a player)."""
        player = getattr(self.request.user, "player", None) if self.request.user.is_authenticated else None
        return player.pk if player is not None else None

    def _game_id(self, pk) -> int:
        try:
            value = int(pk)
        except (TypeError, ValueError):
            value = 0
        if not 0 < value <= MAX_ID:
            raise DomainError("game_not_found", f"There is no game {pk}.", status=404)
        return value

    def get_object(self):
        return get_object_or_404(Game, pk=self._game_id(self.kwargs["pk"]))
