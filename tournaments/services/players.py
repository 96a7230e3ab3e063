"""Creating players: registered members, guests and CPUs."""

from django.contrib.auth import get_user_model
from django.db import transaction

from tournaments.models import Club, Player


@transaction.atomic
def player_register(*, username: str, password: str, display_name: str = "", club: Club | None = None,
                    email: str = "") -> Player:
    """Create a user account and its player profile."""
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    return Player.objects.create(user=user, display_name=display_name or username, club=club)


def player_get_or_create_cpu(*, bot_kind: str, display_name: str = "") -> Player:
    """The shared CPU player of a bot kind (CPUs are players too, so seats can point at them)."""
    if bot_kind not in Player.BotKind.values or not bot_kind:
        raise ValueError(f"unknown bot kind {bot_kind!r}")
    name = display_name or f"CPU ({bot_kind})"
    player, _ = Player.objects.get_or_create(bot_kind=bot_kind, display_name=name)
    return player


@transaction.atomic
def player_guest_for_device(*, device_id: str, display_name: str) -> Player:
    """The guest player bound to a device (created on first visit); casual tables only."""
    import hashlib
    import secrets

    device_hash = hashlib.sha256(device_id.encode()).hexdigest()
    player = Player.objects.select_for_update().filter(is_guest=True, guest_device_hash=device_hash).first()
    if player is not None:
        if display_name and player.display_name != display_name:
            player.display_name = display_name
            player.save(update_fields=["display_name"])
        return player
    user = get_user_model().objects.create_user(username=f"guest-{secrets.token_hex(8)}")
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return Player.objects.create(user=user, display_name=display_name or "Guest", is_guest=True,
                                 guest_device_hash=device_hash)
