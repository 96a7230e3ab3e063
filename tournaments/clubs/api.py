from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from hearts_league.api import DomainError
from tournaments.clubs import selectors
from tournaments.clubs.auth import DisplayNameField
from tournaments.clubs.serializers import LeagueSerializer, PlayerSerializer
from tournaments.clubs.services import player_rename


class _TextDisplayNameField(DisplayNameField):
    def to_internal_value(self, data):
        if not isinstance(data, str):  # a number is not a name someone typed
            self.fail("invalid")
        return super().to_internal_value(data)


class RenameSerializer(serializers.Serializer):
    display_name = _TextDisplayNameField(
        help_text="1-60 characters, at least one letter or digit, no invisible characters; unique whatever the case"
    )

    def validate(self, attrs):
        if not attrs.get("display_name"):
            raise serializers.ValidationError({"display_name": "A display name is needed."})
        return attrs


class LeagueViewSet(viewsets.ReadOnlyModelViewSet):
    """Leagues of every club."""

    serializer_class = LeagueSerializer

    def get_queryset(self):
        return selectors.leagues_list()


@extend_schema(parameters=[OpenApiParameter("cpu", OpenApiTypes.BOOL, description="only CPUs / only humans")])
class PlayerViewSet(viewsets.ReadOnlyModelViewSet):
    """Players: registered members, guests and CPUs."""

    serializer_class = PlayerSerializer

    def get_queryset(self):
        cpu = self.request.query_params.get("cpu")
        flag = {"true": True, "1": True, "false": False, "0": False}.get((cpu or "").lower())
        return selectors.players_list(cpu=flag)

    @extend_schema(request=RenameSerializer, responses={200: PlayerSerializer})
    @action(detail=False, methods=["get", "patch"], permission_classes=[IsAuthenticated])
    def me(self, request):
        """Your own player profile; PATCH ``display_name`` to change what tables call you."""
        player = getattr(request.user, "player", None)
        if player is None:
            raise DomainError("no_player_profile", "This account has no player profile.", status=403)
        if request.method == "PATCH":
            data = RenameSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            player = player_rename(player=player, display_name=data.validated_data["display_name"])
        return Response(PlayerSerializer(player).data)
