"""The tournaments API: create and run a club tournament, register, standings, rounds, tables
and results exports. Thin: parse, call a service or selector, serialize. Directors are staff."""

from __future__ import annotations

import csv
import io
import json

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from engine import bots
from hearts_league.api import MAX_ID, DomainError, int_query_param
from tournaments.clubs import api as views
from tournaments.clubs.auth import requester
from tournaments.clubs.serializers import LeagueSerializer
from tournaments.competitions import selectors, services
from tournaments.competitions.board import board_for_tournament
from tournaments.models import Club, League, Player, Round, Season, Table, Tournament
from tournaments.models.competitions import TABLE_SIZE_CHOICES

# --- serializers ----------------------------------------------------------------------------


class TournamentSerializer(serializers.ModelSerializer):
    players_count = serializers.IntegerField(read_only=True, default=None)

    class Meta:
        model = Tournament
        fields = [
            "id",
            "league",
            "season",
            "name",
            "status",
            "format",
            "round_mode",
            "hands_per_round",
            "rounds_planned",
            "seeding",
            "rules_overrides",
            "rules",
            "preferred_table_size",
            "prefer",
            "allow_cpu_fill",
            "cpu_bot",
            "duplicate_deals",
            "points_by_place",
            "final_table_size",
            "auto_advance",
            "turn_seconds",
            "players_count",
            "created_at",
            "started_at",
            "finished_at",
        ]


class TournamentCreateSerializer(serializers.Serializer):
    league = serializers.IntegerField()
    season = serializers.IntegerField(required=False, allow_null=True, default=None)
    name = serializers.CharField(max_length=120)
    format = serializers.ChoiceField(choices=Tournament.Format.values, default=Tournament.Format.SWISS)
    round_mode = serializers.ChoiceField(choices=Tournament.RoundMode.values, default=Tournament.RoundMode.FULL_GAME)
    hands_per_round = serializers.IntegerField(default=4, min_value=1, max_value=50)
    rounds_planned = serializers.IntegerField(default=5, min_value=1, max_value=50)
    seeding = serializers.ChoiceField(
        choices=Tournament.Seeding.values,
        default=Tournament.Seeding.LEAGUE,
        help_text="a Swiss round 1: by rating (league pool, global pool) or by lot",
    )
    rules_overrides = serializers.DictField(default=dict, help_text="engine Rules fields over the league's")
    preferred_table_size = serializers.ChoiceField(choices=TABLE_SIZE_CHOICES, default=4)
    prefer = serializers.ChoiceField(choices=Tournament.Prefer.values, default="smaller")
    allow_cpu_fill = serializers.BooleanField(default=False)
    cpu_bot = serializers.ChoiceField(choices=bots.KINDS, default="rule")
    duplicate_deals = serializers.BooleanField(default=False)
    points_by_place = serializers.DictField(default=dict, help_text='e.g. {"4": [4, 2, 1, 0]}')
    final_table_size = serializers.ChoiceField(choices=[0, 3, 4, 5], default=0)
    auto_advance = serializers.BooleanField(default=False)
    turn_seconds = serializers.ChoiceField(choices=[30, 60], required=False, allow_null=True, default=None)
    seed = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=-MAX_ID,
        max_value=MAX_ID,
        help_text="fixes the draws; a bigint",
    )


class PlayerChoiceSerializer(serializers.Serializer):
    player_id = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="staff only: another player (default: yourself)",
    )


class TournamentRegisterSerializer(PlayerChoiceSerializer):
    make_account = serializers.BooleanField(
        default=False, help_text="directors: turn a guest (player_id) into an account of the club, then register"
    )


class RegistrationSerializer(serializers.Serializer):
    tournament = serializers.IntegerField(source="tournament_id")
    player_id = serializers.IntegerField()
    status = serializers.CharField()
    joined_round = serializers.IntegerField()
    withdrawn_after_round = serializers.IntegerField(allow_null=True)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    rank_label = serializers.CharField(help_text='"3", or "=3" when shared')
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    table_points = serializers.FloatField()
    hearts_points = serializers.IntegerField()
    opponents_strength = serializers.FloatField()
    head_to_head = serializers.FloatField(allow_null=True)
    matchpoints = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class RoundSerializer(serializers.ModelSerializer):
    """A round. With duplicate deals: the commitment to its deals from the start, the deals
    and the salt once every table has finished (never the seed, which would tell the next)."""

    tables_count = serializers.IntegerField(read_only=True, default=None)
    deals_commitment = serializers.SerializerMethodField()
    deals = serializers.SerializerMethodField()
    deals_salt = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = [
            "number",
            "status",
            "is_final",
            "tables_count",
            "deals_commitment",
            "deals",
            "deals_salt",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_deals_commitment(self, round_) -> str | None:
        started = round_.status != Round.Status.SEATED
        return round_.deals_commitment if started and round_.deals_commitment else None

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_deals(self, round_) -> dict | None:
        return round_.deals if round_.status == Round.Status.FINISHED and round_.deals else None

    def get_deals_salt(self, round_) -> str | None:
        return round_.deals_salt if round_.status == Round.Status.FINISHED and round_.deals_salt else None


class ResultSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField(source="player.display_name")
    cpu_fill = serializers.BooleanField()
    hearts_points = serializers.IntegerField()
    table_points = serializers.FloatField()
    matchpoints = serializers.FloatField(allow_null=True)
    hands_played = serializers.IntegerField()
    ruling = serializers.SerializerMethodField(help_text="the reason of a director's ruling on this seat, if any")

    def get_ruling(self, result) -> str:
        rulings = [r for r in result.table.rulings.all() if r.seat == result.seat]
        return rulings[-1].reason if rulings else ""


class TableSerializer(serializers.ModelSerializer):
    """A round's table. A sealed table's results and finish time (its game shares deals with
    tables still playing) are shown only to the tournament's directors who play in none of the
    round's tables (``selectors.sees_sealed_results``) until the round is over."""

    results = serializers.SerializerMethodField()
    seats = serializers.SerializerMethodField()

    class Meta:
        model = Table
        fields = ["id", "number", "status", "game", "seats", "results", "finished_at"]

    def to_representation(self, table):
        body = super().to_representation(table)
        if self._sealed_from_viewer(table):
            body["finished_at"] = None  # when it finished tells its pace, as its result its deals
        return body

    def _sealed_from_viewer(self, table) -> bool:
        return table.game is not None and table.game.sealed and not self.context.get("sees_sealed")

    @extend_schema_field(ResultSerializer(many=True))
    def get_results(self, table) -> list[dict]:
        if self._sealed_from_viewer(table):
            return []
        # many=True: a list (ReturnList) at run time
        return ResultSerializer(table.results.all(), many=True).data  # type: ignore[return-value]

    def get_seats(self, table) -> list[dict]:
        names = self.context["names"]
        return [
            {"seat": seat, "player_id": pid, "name": names.get(pid, ""), "cpu_fill": seat in table.cpu_fill}
            for seat, pid in enumerate(table.players)
        ]


class WalkInSerializer(serializers.Serializer):
    display_name = serializers.CharField(max_length=60, help_text="the walk-in player's name at the club")
    password = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        default="",
        max_length=128,
        help_text="optional: they sign in with it (and the username answered)",
    )

    def validate_password(self, value):
        if value:
            from django.contrib.auth.password_validation import validate_password

            if len(value) < 8:
                raise serializers.ValidationError("At least 8 characters.")
            validate_password(value)
        return value


class WalkInRegistrationSerializer(RegistrationSerializer):
    username = serializers.CharField(help_text="the walk-in's account: they sign in with it")


class SwapSerializer(serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="the table's id")
    player_out = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="who leaves the seat")
    player_in = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="who takes it: from another table, or a registered player sitting out"
    )
    correction = serializers.BooleanField(default=False, help_text="the round has started: correct who sits where")


class RulingCreateSerializer(serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="the finished table's id")
    seat = serializers.IntegerField(min_value=0, max_value=4)
    hearts_points = serializers.IntegerField(min_value=-10_000, max_value=10_000, help_text="the adjusted score")
    reason = serializers.CharField(max_length=500)


class RulingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="table.round.number")
    table = serializers.IntegerField(source="table.number")
    seat = serializers.IntegerField()
    player_id = serializers.IntegerField()
    hearts_points_before = serializers.IntegerField()
    hearts_points = serializers.IntegerField()
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class LeagueCreateSerializer(serializers.Serializer):
    club = serializers.IntegerField()
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(max_length=120)
    default_rules = serializers.DictField(default=dict)
    rate_games_with_cpus = serializers.BooleanField(default=False)


# --- helpers --------------------------------------------------------------------------------


def require_director(request, league_id: int | None = None) -> None:
    """Staff, or (for a league's tournaments) one of the league's directors; else 403."""
    if league_id is None:
        allowed = request.user.is_authenticated and request.user.is_staff
    else:
        allowed = selectors.directs(request.user, league_id)
    if not allowed:
        raise DomainError("director_only", "Only a tournament director may do this.", status=403)


def _player_for(request, player_id: int | None, league_id: int | None = None) -> Player:
    """Yourself, or (directors only) the given player."""
    if player_id is None:
        return requester(request)
    mine = getattr(request.user, "player", None)
    if mine is not None and mine.pk == player_id:
        return mine
    require_director(request, league_id)
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise DomainError("player_not_found", f"There is no player {player_id}.", status=404)
    return player


def _is_id(pk) -> bool:
    """Whether a path's ``pk`` is an id: ASCII digits (``str.isdigit`` also takes '²' and '١٢',
    which ``int`` refuses) no larger than a bigint (``int`` refuses over 4300 digits)."""
    text = str(pk)
    return text.isascii() and text.isdigit() and len(text) <= 19 and int(text) <= MAX_ID


# --- views ----------------------------------------------------------------------------------


@extend_schema(
    parameters=[
        OpenApiParameter("league", OpenApiTypes.INT),
        OpenApiParameter("status", OpenApiTypes.STR, enum=Tournament.Status.values),
    ]
)
class TournamentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Club tournaments: directors (staff) create and run them; players register themselves."""

    serializer_class = TournamentSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]

    def get_queryset(self):
        league = int_query_param(self.request, "league")
        status_filter = self.request.query_params.get("status") or None
        if status_filter and status_filter not in Tournament.Status.values:
            raise DomainError("invalid_parameter", f"'status' is one of {', '.join(Tournament.Status.values)}.")
        return selectors.tournaments_list(league_id=league, status=status_filter)

    def get_object(self) -> Tournament:
        pk = self.kwargs["pk"]
        if not _is_id(pk):
            raise DomainError("tournament_not_found", f"There is no tournament {pk}.", status=404)
        return get_object_or_404(selectors.tournaments_list(), pk=int(pk))

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer})
    def create(self, request):
        """Create a tournament (staff, or the league's directors)."""
        if not selectors.directs(request.user):
            require_director(request)
        data = TournamentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        league = League.objects.filter(pk=values.pop("league")).first()
        require_director(request, league.pk if league else None)
        if league is None:
            raise DomainError("invalid_league", "There is no such league.")
        season_id = values.pop("season")
        season = None
        if season_id is not None:
            season = Season.objects.filter(pk=season_id).first()
            if season is None:
                raise DomainError("invalid_season", f"There is no season {season_id}.")
        tournament = services.tournament_create(
            league=league, season=season, created_by=getattr(request.user, "player", None), **values
        )
        tournament.players_count = 0
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TournamentRegisterSerializer, responses={201: RegistrationSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def register(self, request, pk=None):
        """Register yourself (a director may register anyone, and turn a guest into an account
        with ``make_account``). Late entries play from the next round."""
        data = TournamentRegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = self.get_object()
        player = _player_for(request, data.validated_data["player_id"], tournament.league_id)
        if player.is_guest and data.validated_data["make_account"]:
            require_director(request, tournament.league_id)
            registration = services.tournament_register_guest(tournament_id=tournament.pk, player=player)
            return Response(RegistrationSerializer(registration).data, status=status.HTTP_201_CREATED)
        if player.is_guest:  # a tournament's standings and results need someone who can sign in again
            raise DomainError("account_required", "Tournaments need a registered account.", status=403)
        registration = services.tournament_register(tournament_id=tournament.pk, player=player)
        return Response(RegistrationSerializer(registration).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PlayerChoiceSerializer, responses={200: RegistrationSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def withdraw(self, request, pk=None):
        """Withdraw yourself (a director may withdraw anyone) from the next round on."""
        data = PlayerChoiceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = self.get_object()
        player = _player_for(request, data.validated_data["player_id"], tournament.league_id)
        registration = services.tournament_withdraw(tournament_id=tournament.pk, player=player)
        return Response(RegistrationSerializer(registration).data)

    @extend_schema(request=WalkInSerializer, responses={201: WalkInRegistrationSerializer})
    @action(detail=True, methods=["post"], url_path="walk-in", permission_classes=[IsAuthenticated])
    def walk_in(self, request, pk=None):
        """Register a walk-in player in one step: a new account of the club under this name
        (directors only). 409 ``display_name_taken`` if someone plays under it already."""
        tournament = self.get_object()
        require_director(request, tournament.league_id)
        data = WalkInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registration = services.tournament_register_walk_in(tournament_id=tournament.pk, **data.validated_data)
        body = {**RegistrationSerializer(registration).data, "username": registration.player.user.username}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(request=SwapSerializer, responses={200: TableSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def swap(self, request, pk=None):
        """Put a player in another's seat at a table of the current round (directors only);
        once the round has started only with ``correction``."""
        tournament = self.get_object()
        require_director(request, tournament.league_id)
        data = SwapSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if not Table.objects.filter(pk=values["table"], round__tournament=tournament).exists():
            raise DomainError("table_not_found", f"This tournament has no table {values['table']}.", status=404)
        found = Player.objects.in_bulk([values["player_out"], values["player_in"]])
        missing = [pid for pid in (values["player_out"], values["player_in"]) if pid not in found]
        if missing:
            raise DomainError("player_not_found", f"There is no player {missing[0]}.", status=404)
        table = services.table_swap_player(
            table_id=values["table"],
            player_out=found[values["player_out"]],
            player_in=found[values["player_in"]],
            correction=values["correction"],
        )
        table = Table.objects.select_related("game").prefetch_related("results__player").get(pk=table.pk)
        context = {
            "names": selectors.player_names(table.players),
            "sees_sealed": selectors.sees_sealed_results(request.user, tournament, table.round_id),
        }
        return Response(TableSerializer(table, context=context).data)

    @extend_schema(methods=["get"], responses={200: RulingSerializer(many=True)})
    @extend_schema(methods=["post"], request=RulingCreateSerializer, responses={201: RulingSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None)  # a tournament's few: one list
    def rulings(self, request, pk=None):
        """The directors' rulings (adjusted scores with their reasons); a director posts one on a
        finished table: the table's places and points are worked out again."""
        tournament = self.get_object()
        if request.method == "GET":
            rows = selectors.rulings_for_tournament(tournament, request.user)
            return Response(RulingSerializer(rows, many=True).data)
        require_director(request, tournament.league_id)
        data = RulingCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if not Table.objects.filter(pk=values["table"], round__tournament=tournament).exists():
            raise DomainError("table_not_found", f"This tournament has no table {values['table']}.", status=404)
        ruling = services.table_rule_score(
            table_id=values["table"],
            seat=values["seat"],
            hearts_points=values["hearts_points"],
            reason=values["reason"],
            ruled_by=getattr(request.user, "player", None),
        )
        return Response(RulingSerializer(ruling).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={201: RoundSerializer})
    @action(detail=True, methods=["post"], url_path="seat-round", permission_classes=[IsAuthenticated])
    def seat_round(self, request, pk=None):
        """Draw the next round's tables without starting them (directors only)."""
        tournament = self.get_object()
        require_director(request, tournament.league_id)
        round_ = services.tournament_seat_round(tournament_id=tournament.pk)
        return Response(RoundSerializer(round_).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={201: RoundSerializer})
    @action(detail=True, methods=["post"], url_path="start-round", permission_classes=[IsAuthenticated])
    def start_round(self, request, pk=None):
        """Start the seated round, or seat and start the next one (directors only)."""
        tournament = self.get_object()
        require_director(request, tournament.league_id)
        round_ = services.tournament_start_round(tournament_id=tournament.pk)
        return Response(RoundSerializer(round_).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: RoundSerializer})
    @action(detail=True, methods=["post"], url_path="finish-round", permission_classes=[IsAuthenticated])
    def finish_round(self, request, pk=None):
        """Close the round being played once every table has its result (directors only)."""
        tournament = self.get_object()
        require_director(request, tournament.league_id)
        round_ = services.tournament_finish_round(tournament_id=tournament.pk)
        return Response(RoundSerializer(round_).data)

    @extend_schema(responses={200: StandingSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def standings(self, request, pk=None):
        """Standings: table points, then Hearts points, opponents' strength, head to head."""
        lines = selectors.standings_for_tournament(self.get_object())
        return Response(StandingSerializer([line.to_dict() for line in lines], many=True).data)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def board(self, request, pk=None):
        """The live board of the latest round (the frame ``ws/tournaments/<id>/`` pushes): tables,
        players, hand number, running totals, who is to act and since when, absent seats; standings."""
        return Response(board_for_tournament(self.get_object()))

    @extend_schema(responses={200: RoundSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request, pk=None):
        """The tournament's rounds."""
        return Response(RoundSerializer(selectors.rounds_for_tournament(self.get_object()), many=True).data)

    @extend_schema(
        responses={200: TableSerializer(many=True)},
        parameters=[OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)],
    )
    @action(detail=True, methods=["get"], url_path=r"rounds/(?P<number>[0-9]+)/tables")
    def tables(self, request, pk=None, number=None):
        """A round's tables: who sits where, the game, and the results."""
        tournament = self.get_object()
        tables = selectors.tables_for_round(tournament, int(number)) if _is_id(number) else None
        if tables is None:
            raise DomainError("round_not_found", f"There is no round {number}.", status=404)
        tables = list(tables)
        names = selectors.player_names(pid for table in tables for pid in table.players)
        round_id = tables[0].round_id if tables else None
        context = {"names": names, "sees_sealed": selectors.sees_sealed_results(request.user, tournament, round_id)}
        return Response(TableSerializer(tables, many=True, context=context).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                enum=["csv", "jsonl"],
                description="csv (default) or jsonl (JSON lines)",
            )
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR),
        },
    )
    @action(detail=True, methods=["get"], url_path="results")
    def results(self, request, pk=None):
        """Every seat's result (round, table, player, Hearts points, table points, matchpoints)."""
        tournament = self.get_object()
        kind = request.query_params.get("format", "csv")
        rows = selectors.results_rows(tournament)
        if kind == "csv":
            buffer = io.StringIO()
            writer = csv.DictWriter(buffer, fieldnames=selectors.RESULT_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
            response = HttpResponse(buffer.getvalue(), content_type="text/csv")
            response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-results.csv"'
        elif kind == "jsonl":
            body = "".join(json.dumps(row) + "\n" for row in rows)
            response = HttpResponse(body, content_type="application/x-ndjson")
            response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-results.jsonl"'
        else:
            raise DomainError("invalid_parameter", "'format' is csv or jsonl.")
        return response

    # ``?format=`` is DRF's content negotiation parameter: let the results action read it itself.
    def perform_content_negotiation(self, request, force=False):
        if self.action == "results":
            return super().perform_content_negotiation(request, force=True)
        return super().perform_content_negotiation(request, force)


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = ["id", "league", "name", "starts_on", "ends_on", "created_at"]
        read_only_fields = ["id", "league", "created_at"]


class LeagueViewSet(views.LeagueViewSet):
    """Leagues of every club; directors (staff) create them, and the league's directors its seasons."""

    def get_object(self) -> League:
        pk = self.kwargs["pk"]
        if not _is_id(pk):
            raise DomainError("league_not_found", f"There is no league {pk}.", status=404)
        return get_object_or_404(League, pk=int(pk))

    @extend_schema(methods=["get"], responses={200: SeasonSerializer(many=True)})
    @extend_schema(methods=["post"], request=SeasonSerializer, responses={201: SeasonSerializer})
    @action(detail=True, methods=["get", "post"], permission_classes=[IsAuthenticatedOrReadOnly], pagination_class=None)
    def seasons(self, request, pk=None):
        """The league's seasons; a director of the league (or staff) creates one."""
        league = self.get_object()
        if request.method == "GET":
            return Response(SeasonSerializer(league.seasons.order_by("-starts_on", "name"), many=True).data)
        require_director(request, league.pk)
        data = SeasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        season = services.season_create(league=league, **data.validated_data)
        return Response(SeasonSerializer(season).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LeagueCreateSerializer, responses={201: LeagueSerializer})
    def create(self, request):
        """Create a league for a club (directors only)."""
        require_director(request)
        data = LeagueCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        club = Club.objects.filter(pk=values.pop("club")).first()
        if club is None:
            raise DomainError("invalid_club", "There is no such club.")
        league = services.league_create(club=club, **values)
        return Response(LeagueSerializer(league).data, status=status.HTTP_201_CREATED)
