"""Invitations to a seat: the invitee lists, accepts (and sits down) or declines. Thin."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from hearts_league.api import DomainError
from tournaments.games import selectors
from tournaments.games import services as game_services
from tournaments.models import SeatInvitation


class InvitationSerializer(serializers.ModelSerializer):
    status = serializers.SerializerMethodField()
    invited_by = serializers.CharField(source="invited_by.display_name", default=None, allow_null=True)

    class Meta:
        model = SeatInvitation
        fields = ["id", "game", "seat", "status", "invited_by", "created_at", "expires_at", "answered_at"]

    def get_status(self, invitation) -> str:
        if invitation.status == SeatInvitation.Status.PENDING and invitation.expires_at <= timezone.now():
            return SeatInvitation.Status.EXPIRED
        return invitation.status


class AnswerSerializer(serializers.Serializer):
    device_id = serializers.CharField(max_length=128, required=False, allow_blank=True, default="")


class InvitationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Your invitations to a seat (a table's creator invites by player id when creating it)."""

    serializer_class = InvitationSerializer
    permission_classes = [IsAuthenticated]
    queryset = SeatInvitation.objects.none()  # the schema's path type; get_queryset gives yours

    def get_queryset(self):
        return selectors.invitations_for(_player(self.request))

    @extend_schema(request=AnswerSerializer, responses={200: InvitationSerializer})
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        """Accept: you sit down in the held seat (the table starts once every seat is taken)."""
        return self._answer(request, pk, accept=True)

    @extend_schema(request=None, responses={200: InvitationSerializer})
    @action(detail=True, methods=["post"])
    def decline(self, request, pk=None):
        """Decline: the seat opens for anyone."""
        return self._answer(request, pk, accept=False)

    def _answer(self, request, pk, *, accept: bool):
        data = AnswerSerializer(data=request.data if accept else {})
        data.is_valid(raise_exception=True)
        invitation = game_services.invitation_answer(
            invitation_id=_invitation_id(pk),
            player=_player(request),
            accept=accept,
            device_id=data.validated_data["device_id"],
        )
        return Response(InvitationSerializer(invitation).data)


def _player(request):
    player = getattr(request.user, "player", None)
    if player is None:
        raise DomainError("no_player_profile", "This account has no player profile.", status=403)
    return player


def _invitation_id(pk) -> int:
    text = str(pk)  # ASCII digits: str.isdigit also takes '²', which int refuses; int refuses 4300+ digits
    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 19 else 0
    if not 0 < value < 2**63:
        raise DomainError("invitation_not_found", f"You have no invitation {pk}.", status=404)
    return value
