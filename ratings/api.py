"""The ratings API: leaderboards, a player's ratings and games, the ranked queue. Thin: parse,
call a selector or service, serialize."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from hearts_league.api import DomainError, int_query_param
from ratings import selectors
from ratings.models import QueueEntry
from ratings.services import matchmaking
from tournaments.clubs.auth import requester
from tournaments.games.api import GameSerializer
from tournaments.games.selectors import games_list
from tournaments.models import League, Player
from tournaments.models.competitions import TABLE_SIZE_CHOICES

# --- serializers ----------------------------------------------------------------------------

SIGMA_NOW = (
    "uncertainty as of now: the stored sigma widened by the model for each whole day since "
    "the last rated game (as it will be before the next one)"
)

PROVISIONAL_NOW = (
    "as of now: fewer than RATINGS_PROVISIONAL_GAMES games, or sigma (as of now) above the "
    "pool's provisional sigma (glicko-elo's provisional_sigma, 58 in new pools; other models, "
    "and glicko-elo pools stored before it had one: RATINGS_PROVISIONAL_SIGMA_SHARE of the "
    "model's initial sigma)"
)


class RatingSerializer(serializers.Serializer):
    league = serializers.IntegerField(source="league_id", allow_null=True, help_text="null: the global pool")
    league_name = serializers.CharField(source="league.name", default=None, allow_null=True)
    mu = serializers.FloatField()
    sigma = serializers.FloatField(source="current.sigma", help_text=SIGMA_NOW)
    conservative = serializers.FloatField(
        source="current.conservative", help_text="mu - 3 sigma (sigma as of now): the leaderboard order"
    )
    inactive_days = serializers.IntegerField(help_text="whole days since the last rated game")
    games = serializers.IntegerField()
    provisional = serializers.BooleanField(source="current_provisional", help_text=PROVISIONAL_NOW)
    last_played_at = serializers.DateTimeField(allow_null=True)
    model = serializers.CharField(source="model_name")


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, default=None, help_text="null for provisional players")
    rank_range = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        min_length=2,
        max_length=2,
        allow_null=True,
        default=None,
        help_text="[best, worst]: the ranks the player could hold given everyone's sigma (as of now): 1 + the "
        "ranked players whose mu ± 1.39 sigma lies wholly above theirs, to the ranked count less those "
        "wholly below; always contains rank. Null for provisional players",
    )
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text=SIGMA_NOW)
    conservative = serializers.FloatField(help_text="mu - 3 sigma (sigma as of now): the order")
    inactive_days = serializers.IntegerField(help_text="whole days since the last rated game")
    games = serializers.IntegerField()
    last_played_at = serializers.DateTimeField()


class LeaderboardSerializer(serializers.Serializer):
    league = serializers.IntegerField(source="league_id", allow_null=True)
    model = serializers.CharField(source="model_name")
    min_games = serializers.IntegerField(help_text="games needed to be listed at all")
    active_days = serializers.IntegerField(help_text="listed only with a rated game in this many days")
    provisional_games = serializers.IntegerField(help_text="fewer games than this: provisional")
    ranked = LeaderboardRowSerializer(many=True)
    provisional = LeaderboardRowSerializer(
        many=True, help_text="too few games or too uncertain (sigma as of now), not ranked"
    )


class RatingHistorySerializer(serializers.Serializer):
    game = serializers.IntegerField(source="game_id")
    league = serializers.IntegerField(source="league_id", allow_null=True)
    seat = serializers.IntegerField()
    total = serializers.IntegerField()
    place = serializers.IntegerField()
    rated_players = serializers.IntegerField()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()
    played_at = serializers.DateTimeField()
    provisional = serializers.SerializerMethodField(
        help_text="provisional right after this game (its games so far and sigma_after), by today's rule"
    )

    def get_provisional(self, row) -> bool:
        return selectors.provisional_after(row)


@extend_schema_serializer(many=False)  # one object (a page plus the ratings), not a list to paginate
class PlayerRatingsSerializer(serializers.Serializer):
    """``GET /api/players/{id}/ratings``: a page of the player's rated games (the usual ``count``,
    ``next``, ``previous``, ``results``), their id and their rating in every pool."""

    count = serializers.IntegerField(help_text="rated games (history rows) matching the filters")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RatingHistorySerializer(many=True, help_text="rated games, newest first")
    player = serializers.IntegerField()
    ratings = RatingSerializer(many=True, help_text="the player's rating in every pool, global first")


class QueueJoinSerializer(serializers.Serializer):
    table_size = serializers.ChoiceField(choices=TABLE_SIZE_CHOICES, default=4)
    preset = serializers.ChoiceField(
        choices=list(matchmaking.PRESETS),
        default="standard",
        help_text="standard; short (ends at 50); omnibus (J♦ scores -10)",
    )


class QueueStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["not_queued", *QueueEntry.Status.values],
        help_text="expired: waited longer than the queue timeout; join again. "
        "cancelled: you sat down at another table before a ranked one "
        "formed (see reason, playing_game); join again once it is over",
    )
    table_size = serializers.IntegerField(required=False)
    preset = serializers.CharField(required=False)
    mu = serializers.FloatField(required=False, help_text="your global rating when you joined")
    joined_at = serializers.DateTimeField(required=False)
    waited_seconds = serializers.FloatField(required=False)
    window = serializers.FloatField(required=False, help_text="rating distance you accept now")
    game = serializers.IntegerField(required=False, allow_null=True, help_text="your ranked game once matched")
    matched_at = serializers.DateTimeField(required=False, allow_null=True)
    reason = serializers.ChoiceField(
        choices=QueueEntry.Reason.choices,
        required=False,
        allow_null=True,
        help_text="cancelled: why (already_playing: seated at playing_game)",
    )
    playing_game = serializers.IntegerField(
        required=False, allow_null=True, help_text="cancelled: the unfinished game you sit at"
    )


def _queue_status(entry) -> dict:
    if entry is None:
        return {"status": "not_queued"}
    waited = ((entry.matched_at or entry.left_at or timezone.now()) - entry.joined_at).total_seconds()
    return {
        "status": entry.status,
        "table_size": entry.table_size,
        "preset": entry.preset,
        "mu": entry.mu,
        "joined_at": entry.joined_at,
        "waited_seconds": round(waited, 3),
        "window": matchmaking.match_window(waited_seconds=waited),
        "game": entry.game_id,
        "matched_at": entry.matched_at,
        "reason": entry.reason or None,
        "playing_game": entry.playing_game_id,
    }


def _limit(request) -> int:
    try:  # the project's integer parameter: ASCII digits only (str.isdigit takes '²', int does not)
        limit = int_query_param(request, "limit", minimum=1, maximum=1000)
    except DomainError:
        raise DomainError("invalid_parameter", "'limit' must be a whole number from 1 to 1000.") from None
    return 100 if limit is None else limit


# --- views ----------------------------------------------------------------------------------


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200


LIMIT = OpenApiParameter("limit", OpenApiTypes.INT, description="rows in each list (1-1000, default 100)")


class GlobalLeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[LIMIT], responses={200: LeaderboardSerializer})
    def get(self, request):
        """The global pool: established players by mu - 3 sigma as of now (sigma widened for inactivity);
        provisional players apart."""
        board = selectors.leaderboard(league_id=None, limit=_limit(request))
        return Response(LeaderboardSerializer(board).data)


class LeagueLeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[LIMIT], responses={200: LeaderboardSerializer})
    def get(self, request, league_id: int):
        """A league's pool: established players by mu - 3 sigma as of now (sigma widened for inactivity);
        provisional players apart."""
        league = get_object_or_404(League, pk=league_id)
        board = selectors.leaderboard(league_id=league.pk, limit=_limit(request))
        return Response(LeaderboardSerializer(board).data)


@extend_schema(
    parameters=[
        OpenApiParameter("league", OpenApiTypes.INT, description="history in this league's pool only"),
        OpenApiParameter("pool", OpenApiTypes.STR, enum=["global"], description="history in the global pool only"),
    ],
    responses={200: PlayerRatingsSerializer},
)
class PlayerRatingsView(generics.ListAPIView):
    """A player's rating in every pool (``ratings``) and their rated games, newest first (``results``)."""

    permission_classes = [AllowAny]
    pagination_class = Pagination
    serializer_class = RatingHistorySerializer

    def get_queryset(self):
        params = self.request.query_params
        return selectors.player_rating_history(
            player_id=self.player.pk,
            league_id=int_query_param(self.request, "league"),
            global_only=params.get("pool") == "global",
        )

    def list(self, request, *args, **kwargs):
        self.player = get_object_or_404(Player, pk=kwargs["player_id"])
        page = self.paginate_queryset(self.get_queryset())
        return Response(
            PlayerRatingsSerializer(
                {
                    "count": self.paginator.page.paginator.count,
                    "next": self.paginator.get_next_link(),
                    "previous": self.paginator.get_previous_link(),
                    "results": page,
                    "player": self.player.pk,
                    "ratings": selectors.player_ratings(player_id=self.player.pk),
                }
            ).data
        )


class PlayerGamesView(generics.ListAPIView):
    """A player's games, newest first."""

    permission_classes = [AllowAny]
    pagination_class = Pagination
    serializer_class = GameSerializer

    def get_queryset(self):
        player = get_object_or_404(Player, pk=self.kwargs["player_id"])
        return games_list(player_id=player.pk)


class RankedQueueView(APIView):
    """The ranked queue: join it, see whether you have been matched (and to which game), leave it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: QueueStatusSerializer})
    def get(self, request):
        """Your queue status; once matched, ``game`` is your ranked game."""
        entry = selectors.queue_entry_current(player_id=requester(request).pk)
        return Response(QueueStatusSerializer(_queue_status(entry)).data)

    @extend_schema(request=QueueJoinSerializer, responses={201: QueueStatusSerializer})
    def post(self, request):
        """Wait for a ranked table of this size and rules preset (registered accounts only)."""
        data = QueueJoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = matchmaking.ranked_queue_join(player=requester(request), **data.validated_data)
        return Response(QueueStatusSerializer(_queue_status(entry)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: QueueStatusSerializer})
    def delete(self, request):
        """Leave the queue (too late once matched)."""
        entry = matchmaking.ranked_queue_leave(player=requester(request))
        return Response(QueueStatusSerializer(_queue_status(entry)).data)
