"""The games API: tables, commands, events, replay, audit and export. Thin: parse, call a
service or selector, serialize."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle

from hearts_league.api import DomainError
from tournaments import eventstore, selectors
from tournaments.models import Game
from tournaments.services import games as game_services
from tournaments.services.tickets import TICKET_SECONDS, ws_ticket_issue
from tournaments.visibility import viewer_seat, visible_event

# --- serializers ----------------------------------------------------------------------------


class SeatSpecSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["me", "open", "cpu", "player"])
    bot = serializers.ChoiceField(choices=["random", "rule", "montecarlo"], required=False)
    player_id = serializers.IntegerField(required=False)


class GameCreateSerializer(serializers.Serializer):
    rules = serializers.DictField(required=False, default=dict,
                                  help_text="engine Rules fields, e.g. {\"players\": 4, \"end_score\": 50}")
    turn_seconds = serializers.ChoiceField(choices=[30, 60], required=False, allow_null=True, default=None)
    ranked = serializers.BooleanField(required=False, default=False)
    league = serializers.IntegerField(required=False, allow_null=True, default=None)
    seats = SeatSpecSerializer(many=True, required=False)
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class JoinSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=4, default=None)
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class StrictCharField(serializers.CharField):
    """A string field that refuses numbers instead of turning them into strings."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class CommandSerializer(serializers.Serializer):
    """A command, the same over REST and WebSocket."""

    type = serializers.ChoiceField(choices=["pass", "play", "moon_choice"])
    card = StrictCharField(max_length=4, required=False, help_text='e.g. "QS", "TH", "2C"')
    cards = serializers.ListField(child=StrictCharField(max_length=4), required=False, max_length=3,
                                  min_length=0)
    choice = serializers.ChoiceField(choices=["add_to_others", "subtract_from_self"], required=False)
    command_id = StrictCharField(max_length=64, required=False, allow_blank=True, default="",
                                 help_text="a client id: a retry with the same id appends nothing")
    expected_seq = serializers.IntegerField(required=False, allow_null=True, min_value=0, default=None)

    def validate(self, attrs):
        needed = {"play": "card", "pass": "cards", "moon_choice": "choice"}[attrs["type"]]
        if needed not in attrs:
            raise serializers.ValidationError({needed: f"A {attrs['type']} command needs '{needed}'."})
        return attrs


_COMMAND = CommandSerializer()


def parse_command(data) -> tuple[dict, str, int | None]:
    """A command body as ``(command, command_id, expected_seq)``, checked by one shared
    CommandSerializer: building a serializer deep-copies its fields, a cost on every live play.

    Raises ``serializers.ValidationError`` with the errors ``is_valid`` would give.
    """
    if data is None:  # an empty or JSON null body: the error is_valid gives, not the field's
        raise serializers.ValidationError({"non_field_errors": ["No data provided"]}, code="null")
    values = dict(_COMMAND.run_validation(data))
    return values, values.pop("command_id"), values.pop("expected_seq")


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player_id = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    cpu = serializers.BooleanField()
    away = serializers.BooleanField()


class GameSerializer(serializers.ModelSerializer):
    seats = serializers.SerializerMethodField()
    players = serializers.IntegerField(source="players_count", read_only=True)

    class Meta:
        model = Game
        fields = ["id", "status", "ranked", "turn_seconds", "league", "rules", "players", "seq", "seats",
                  "turn_deadline", "final_totals", "winner_seat", "created_at", "started_at", "finished_at"]

    @extend_schema_field(SeatSerializer(many=True))
    def get_seats(self, game) -> list[dict]:
        return [
            {"seat": s.seat, "player_id": s.player_id, "name": s.player.display_name if s.player else None,
             "cpu": bool(s.player and s.player.is_cpu), "away": s.away}
            for s in game.seats.all()  # prefetched by the list selector and by _detail
        ]


# --- views ------------------------------------------------------------------------------------


class CommandThrottle(UserRateThrottle):
    scope = "commands"


MAX_ID = 2**63 - 1  # the largest bigint


def _seat_param(request, name="seat"):
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise DomainError("invalid_parameter", f"'{name}' must be a seat number.") from None


def _int_param(request, name, default=None, minimum=0):
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise DomainError("invalid_parameter", f"'{name}' must be an integer.") from None
    if value < minimum:
        raise DomainError("invalid_parameter", f"'{name}' must be at least {minimum}.")
    if value > MAX_ID:  # the database would refuse it (a 500) rather than find nothing
        raise DomainError("invalid_parameter", f"'{name}' must be at most {MAX_ID}.")
    return value


def _requester(request):
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    if player is None:
        raise DomainError("no_player_profile", "This account has no player profile.", status=403)
    return player


@extend_schema(parameters=[
    OpenApiParameter("player", OpenApiTypes.INT), OpenApiParameter("status", OpenApiTypes.STR,
                                                                   enum=["waiting", "active", "finished"]),
    OpenApiParameter("ranked", OpenApiTypes.BOOL), OpenApiParameter("league", OpenApiTypes.INT),
    OpenApiParameter("created_after", OpenApiTypes.DATETIME),
    OpenApiParameter("created_before", OpenApiTypes.DATETIME),
])
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
        from django.utils.dateparse import parse_datetime

        dates = {}
        for name in ("created_after", "created_before"):
            if params.get(name):
                # issue 18 (hostile-input branch): parse_datetime raises ValueError for a well-formed
                # but impossible date (2026-02-30, hour 25): that was a 500
                try:
                    parsed = parse_datetime(params[name])
                except ValueError:
                    parsed = None
                if parsed is None:
                    raise DomainError("invalid_parameter", f"'{name}' must be an ISO 8601 date-time.")
                dates[name] = parsed
        return selectors.games_list(player_id=_int_param(self.request, "player"), status=status_filter,
                                    ranked=ranked, league_id=_int_param(self.request, "league"), **dates)

    @extend_schema(request=GameCreateSerializer, responses={201: GameSerializer})
    def create(self, request):
        """Create a table: rules, turn time, ranked or casual, and who sits where."""
        data = GameCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        league = None
        if values["league"] is not None:
            from tournaments.models import League

            league = League.objects.filter(pk=values["league"]).first()
            if league is None:
                raise DomainError("invalid_league", f"There is no league {values['league']}.")
        seats = [game_services.SeatSpec(**spec) for spec in values["seats"]] if "seats" in values else None
        game = game_services.game_create(creator=_requester(request), rules=values["rules"], seats=seats,
                                         ranked=values["ranked"], turn_seconds=values["turn_seconds"],
                                         league=league, device_id=values["device_id"])
        return Response(self._detail(game), status=status.HTTP_201_CREATED)

    def retrieve(self, request, pk=None):
        """The game as the requester may see it: your own hand only; spectators see none."""
        return Response(self._detail(self.get_object()))

    def _detail(self, game):
        game = Game.objects.prefetch_related("seats__player").get(pk=game.pk)
        user_id = self.request.user.pk if self.request.user.is_authenticated else None
        seat = next((s.seat for s in game.seats.all() if s.player and s.player.user_id == user_id), None)
        body = GameSerializer(game).data
        body["your_seat"] = seat
        body["state"] = (eventstore.read_engine_game(game, lambda state: state.view(seat))
                         if game.status != Game.Status.WAITING else None)
        return body

    @extend_schema(request=JoinSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def join(self, request, pk=None):
        """Take a seat (or take your seat back from the same device)."""
        data = JoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = game_services.game_join(game_id=self._game_id(pk), player=_requester(request),
                                       **data.validated_data)
        return Response(self._detail(game))

    @extend_schema(request=None, responses={200: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def leave(self, request, pk=None):
        """Leave: before the start the seat opens; during play a CPU plays it."""
        game = game_services.game_leave(game_id=self._game_id(pk), player=_requester(request))
        return Response(self._detail(game))

    @extend_schema(request=CommandSerializer, responses={200: inline_serializer("CommandResult", {
        "seq": serializers.IntegerField(), "duplicate": serializers.BooleanField(),
        "events": serializers.ListField(child=serializers.DictField())})})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated],
            throttle_classes=[CommandThrottle])
    def commands(self, request, pk=None):
        """Pass, play or choose the moon result, for the seat you sit at (never from the body)."""
        values, command_id, expected_seq = parse_command(request.data)
        result = game_services.game_execute_command(
            game_id=self._game_id(pk), player=_requester(request), command=values,
            command_id=command_id, expected_seq=expected_seq)
        game = result.game
        seat = viewer_seat(game, request.user)
        return Response({"seq": game.seq, "duplicate": result.duplicate,
                         "events": [visible_event(row, seat, game.is_over) for row in result.events]})

    @extend_schema(request=None, responses={201: inline_serializer("WsTicket", {
        "ticket": serializers.CharField(), "expires_in": serializers.IntegerField(),
        "url": serializers.CharField()})})
    @action(detail=True, methods=["post"], url_path="ws-ticket", permission_classes=[IsAuthenticated])
    def ws_ticket(self, request, pk=None):
        """A single-use ticket (valid 60 s) to open this game's WebSocket without a session cookie."""
        game = self.get_object()
        ticket = ws_ticket_issue(user_id=request.user.pk, game_id=game.pk)
        return Response({"ticket": ticket, "expires_in": TICKET_SECONDS,
                         "url": f"/ws/games/{game.pk}/?ticket={ticket}"}, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[OpenApiParameter("after", OpenApiTypes.INT, description="last seq seen")])
    @action(detail=True, methods=["get"])
    def events(self, request, pk=None):
        """Events after ``after``: redacted for the requester while the game is live."""
        game = self.get_object()
        after = _int_param(request, "after", default=0)
        seat = viewer_seat(game, request.user)
        rows = selectors.game_events_after(game, after, up_to=game.seq)
        return Response({"seq": game.seq, "status": game.status,
                         "events": [visible_event(row, seat, game.is_over) for row in rows]})

    @extend_schema(parameters=[OpenApiParameter("at", OpenApiTypes.INT, description="state after event N"),
                               OpenApiParameter("seat", OpenApiTypes.INT, description="whose view")])
    @action(detail=True, methods=["get"])
    def replay(self, request, pk=None):
        """The game as it was after event ``at``, from ``seat``'s view; all hands once it is over."""
        game = self.get_object()
        if game.seq == 0:
            raise DomainError("game_not_started", "This game has not started yet.", status=409)
        at = _int_param(request, "at", default=game.seq, minimum=1)
        if at > game.seq:
            raise DomainError("invalid_parameter", f"'at' must be between 1 and {game.seq}.")
        seat = _seat_param(request)
        if seat is not None and not 0 <= seat < game.players_count:
            raise DomainError("invalid_seat", f"This table has seats 0 to {game.players_count - 1}.")
        mine = viewer_seat(game, request.user)
        if not game.is_over and seat is not None and seat != mine:
            raise DomainError("hidden_until_over", "Other seats' views are hidden until the game is over.",
                              status=403)
        state = eventstore.rebuild_engine_game(game, up_to_seq=at)
        body = {"at": at, "last_seq": game.seq, "seat": seat, "view": state.view(seat)}
        if game.is_over:
            body["hands"] = [[str(card) for card in state.hand(s)] for s in range(game.players_count)]
            body["views"] = [state.view(s) for s in range(game.players_count)]
        event = game.events.get(seq=at)
        body["event"] = visible_event(event, seat if not game.is_over else None, game.is_over)
        return Response(body)

    @extend_schema(responses={200: inline_serializer("AuditReport", {
        "game": serializers.IntegerField(), "ok": serializers.BooleanField(),
        "events_checked": serializers.IntegerField(),
        "first_bad_seq": serializers.IntegerField(allow_null=True), "reason": serializers.CharField()})})
    @action(detail=True, methods=["get"])
    def audit(self, request, pk=None):
        """Replay the stored log through the engine and check the hash chain and deal commitments."""
        return Response(eventstore.audit_game(self.get_object()).to_dict())

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """A finished game's complete log, one JSON object per line."""
        game = self.get_object()
        if not game.is_over:
            raise DomainError("game_not_over", "Only finished games can be exported.", status=409)
        lines = (json.dumps(visible_event(row, None, True)) + "\n" for row in game.events.order_by("seq"))
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.ndjson"'
        return response

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
