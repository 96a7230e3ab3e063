"""The analysis API: ``/api/games/{id}/analysis``. Thin: check who asks, call a service, serialize."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from analysis.models import AnalysedDecision, GameAnalysis
from analysis.services import analysis_check_visible, analysis_request
from hearts_league.api import MAX_ID, DomainError
from tournaments.models import Game

NOT_ANALYSED = "none"
OPTIONS_SHOWN = 5  # the best options of each decision in a response (the rest stay stored)


class AnalysisThrottle(UserRateThrottle):
    """Starting analyses fills the workers: ``THROTTLE_ANALYSIS`` per user (default 10/hour)."""

    scope = "analysis"


class OptionSerializer(serializers.Serializer):
    option = serializers.JSONField(help_text="a card, three cards (a pass) or a moon choice")
    expected = serializers.FloatField(allow_null=True, help_text="expected points this hand (lower is better)")
    samples = serializers.IntegerField()
    equivalent = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="plays: cards worth the same as this one"
    )


class DecisionSerializer(serializers.ModelSerializer):
    options = serializers.SerializerMethodField()
    grade = serializers.ChoiceField(
        choices=AnalysedDecision.Grade.choices,
        help_text="good (loss under 1), inaccuracy (from 1), mistake (from 3), blunder (from 6 expected points)",
    )

    class Meta:
        model = AnalysedDecision
        fields = [
            "position",
            "seq",
            "seat",
            "kind",
            "hand_number",
            "trick_number",
            "total_before",
            "taken",
            "taken_expected",
            "best",
            "best_expected",
            "loss",
            "loss_se",
            "grade",
            "forced",
            "options",
            "samples",
        ]

    @extend_schema_field(OptionSerializer(many=True))
    def get_options(self, row) -> list[dict]:
        return row.options[:OPTIONS_SHOWN]


class SummarySerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    decisions = serializers.IntegerField()
    choices = serializers.IntegerField(help_text="decisions that were not forced")
    total_loss = serializers.FloatField()
    mean_loss = serializers.FloatField(help_text="expected points given away per decision")
    mean_loss_per_choice = serializers.FloatField()
    counts = serializers.SerializerMethodField()

    def get_counts(self, row) -> dict[str, int]:
        return {grade: getattr(row, grade) for grade in AnalysedDecision.Grade.values}


class AnalysisSerializer(serializers.ModelSerializer):
    game = serializers.IntegerField(source="game_id")
    status = serializers.ChoiceField(choices=[(NOT_ANALYSED, "Not analysed yet"), *GameAnalysis.Status.choices])
    progress = serializers.FloatField(help_text="share of the decisions reviewed, 0 to 1")
    summaries = serializers.SerializerMethodField()
    decisions = serializers.SerializerMethodField()

    class Meta:
        model = GameAnalysis
        fields = [
            "game",
            "status",
            "progress",
            "decisions_total",
            "decisions_done",
            "version",
            "seed_key",
            "budget",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "summaries",
            "decisions",
        ]

    def get_summaries(self, analysis) -> list[dict] | None:
        """Per seat, once done (else null)."""
        if analysis.status != GameAnalysis.Status.DONE:
            return None
        # many=True: a list (ReturnList) at run time
        return SummarySerializer(analysis.summaries.all(), many=True).data  # type: ignore[return-value]

    def get_decisions(self, analysis) -> list[dict] | None:
        """Every decision in the game's order, once done (else null)."""
        if analysis.status != GameAnalysis.Status.DONE:
            return None
        # many=True: a list (ReturnList) at run time
        return DecisionSerializer(analysis.decisions.all(), many=True).data  # type: ignore[return-value]


def _game(game_id: int) -> Game:
    if not 0 < game_id <= MAX_ID:
        raise DomainError("game_not_found", f"There is no game {game_id}.", status=404)
    return get_object_or_404(Game, pk=game_id)


class GameAnalysisView(APIView):
    """The CPU's review of every decision of a finished game, from each seat's view at the time.

    Shown only to whoever may see the whole game: 409 ``game_not_over`` while it is live,
    409 ``round_not_over`` for a sealed duplicate table whose round is still played, 403
    ``hidden_until_round_over`` for those who may not watch it at all.
    """

    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_throttles(self):
        return [AnalysisThrottle()] if self.request.method == "POST" else []

    @extend_schema(
        responses={200: AnalysisSerializer, 409: OpenApiResponse(description="game_not_over / round_not_over")}
    )
    def get(self, request, game_id: int):
        """Progress while it runs; once done, every decision and the per-seat summaries; status
        ``none`` if nobody has started one."""
        game = _game(game_id)
        analysis_check_visible(game, request.user)
        analysis = GameAnalysis.objects.filter(game=game).first()
        if analysis is None:  # not an error: a replay page asks before anyone has started one
            analysis = GameAnalysis(game=game, status=NOT_ANALYSED, version=0, seed_key="", budget={})
        return Response(AnalysisSerializer(analysis).data)

    @extend_schema(
        request=None,
        responses={
            202: AnalysisSerializer,
            200: AnalysisSerializer,
            409: OpenApiResponse(description="game_not_over / round_not_over"),
        },
    )
    def post(self, request, game_id: int):
        """Start the analysis (202 with its progress), or continue one that stopped; 200 if it was done."""
        game = _game(game_id)
        analysis_check_visible(game, request.user)
        was_done = GameAnalysis.objects.filter(game=game, status=GameAnalysis.Status.DONE).exists()
        analysis = analysis_request(game=game, user=request.user)
        analysis.refresh_from_db()
        return Response(
            AnalysisSerializer(analysis).data, status=status.HTTP_200_OK if was_done else status.HTTP_202_ACCEPTED
        )
