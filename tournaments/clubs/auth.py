"""Accounts: register, token login, and guests bound to a device."""

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from hearts_league.api import DomainError
from hearts_league.logins import client_ip
from tournaments.clubs.services import player_guest_for_device, player_register
from tournaments.models import Player
from tournaments.names import InvalidName, clean_display_name, normalise_username


class AuthThrottle(AnonRateThrottle):
    """Token, registration and guest requests per client address (``THROTTLE_AUTH``)."""

    scope = "auth"

    def get_ident(self, request):
        return client_ip(request)


def requester(request) -> Player:
    """The player behind a request (403 ``no_player_profile`` for anonymous callers and for
    accounts without one, such as a bare staff login)."""
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    if player is None:
        raise DomainError("no_player_profile", "This account has no player profile.", status=403)
    return player


def _checked(check, value):
    try:
        return check(value)
    except InvalidName as error:
        raise serializers.ValidationError(str(error), code=error.code) from None


class DisplayNameField(serializers.CharField):
    """A display name: NFKC, no invisible or text-steering characters (``tournaments.names``)."""

    def __init__(self, **kwargs):
        super().__init__(max_length=60, required=False, allow_blank=True, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return _checked(clean_display_name, value) if value.strip() else ""


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150, help_text="3-150 of a-z A-Z 0-9 . @ + - _ (NFKC first); unique whatever the case"
    )
    password = serializers.CharField(write_only=True, min_length=8, max_length=128)
    display_name = DisplayNameField(help_text="default: the username; unique whatever the case")
    email = serializers.EmailField(required=False, allow_blank=True)

    def validate_username(self, value):
        return _checked(normalise_username, value)

    def validate(self, attrs):
        validate_password(attrs["password"], get_user_model()(username=attrs["username"]))
        return attrs


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, write_only=True)


class GuestSerializer(serializers.Serializer):
    device_id = serializers.CharField(
        min_length=16, max_length=128, help_text="a random id the client keeps (e.g. a UUID)"
    )
    display_name = DisplayNameField()


TokenResponse = inline_serializer(
    "TokenResponse",
    {
        "token": serializers.CharField(),
        "player_id": serializers.IntegerField(
            allow_null=True, help_text="null: an account without a player profile (e.g. a director's)"
        ),
        "display_name": serializers.CharField(),
        "is_guest": serializers.BooleanField(),
    },
)


def _token_response(user, status_code=status.HTTP_200_OK):
    token, _ = Token.objects.get_or_create(user=user)
    player = getattr(user, "player", None)
    return Response(
        {
            "token": token.key,
            "player_id": player.pk if player else None,
            "display_name": player.display_name if player else user.get_username(),
            "is_guest": bool(player and player.is_guest),
        },
        status=status_code,
    )


class RegisterView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]

    @extend_schema(request=RegisterSerializer, responses={201: TokenResponse})
    def post(self, request):
        """Create an account; returns its API token."""
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_register(**data.validated_data)
        return _token_response(player.user, status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]

    @extend_schema(request=TokenRequestSerializer, responses={200: TokenResponse})
    def post(self, request):
        """Username and password in, API token out."""
        data = TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # the Django request: django-axes marks a locked-out address on it, and LockoutMiddleware
        # answers 429 for it (hearts_league.logins)
        user = authenticate(request._request, **data.validated_data)
        if user is None:  # wrong password, an inactive account, or a locked-out address (429 then)
            raise DomainError("invalid_credentials", "Wrong username or password.", status=401)
        # any active account, with or without a player profile: a director manages tournaments
        # over the API without playing
        return _token_response(user)


class GuestView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]

    @extend_schema(request=GuestSerializer, responses={200: TokenResponse})
    def post(self, request):
        """Play without an account: a token bound to this device (casual tables only)."""
        data = GuestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_guest_for_device(
            device_id=data.validated_data["device_id"], display_name=data.validated_data.get("display_name", "")
        )
        return _token_response(player.user)
