from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets

from tournaments import selectors
from tournaments.api.serializers import LeagueSerializer, PlayerSerializer


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
