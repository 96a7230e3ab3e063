"""Creating players: registered members, guests and CPUs.

Usernames and display names are checked by ``tournaments.names`` and unique in the database
(usernames case-insensitively, display names per club): of two registrations racing for one
name, the database refuses the second, answered 409 ``username_taken`` / ``display_name_taken``.
"""

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from hearts_league.api import DomainError
from tournaments.models import Club, Player
from tournaments.names import display_name_key, normalise_username


def _username_taken(username: str) -> bool:
    return get_user_model().objects.filter(username__iexact=username).exists()


def display_name_taken(display_name: str, club: Club | None, *, exclude: Player | None = None) -> bool:
    """Whether another person of the club (or of no club) goes by this name, whatever its case."""
    others = Player.objects.filter(bot_kind="", club=club, name_key=display_name_key(display_name))
    return others.exclude(pk=exclude.pk if exclude else None).exists()  # type: ignore[misc]  # pk=None: excludes none


def _refuse_taken(username: str | None, display_name: str, club: Club | None) -> None:
    taken = DomainError("username_taken", "This username is taken.", status=409)
    if username is not None and _username_taken(username):
        raise taken
    if display_name_taken(display_name, club):
        # A registration of this username that committed between the two queries took both names:
        # the username is the answer (the second query sees what the first could not).
        if username is not None and _username_taken(username):
            raise taken
        raise DomainError("display_name_taken", "Someone already plays under this name.", status=409)


@transaction.atomic
def player_register(
    *, username: str, password: str | None, display_name: str = "", club: Club | None = None, email: str = ""
) -> Player:
    """Create a user account and its player profile (409 if the username or display name is taken).

    ``username`` is normalised (NFKC); ``display_name`` (default: the username) is stored as given,
    so callers pass it through ``tournaments.names.clean_display_name`` first."""
    username = normalise_username(username)
    display_name = display_name or username
    _refuse_taken(username, display_name, club)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username, password=password, email=email)
            return Player.objects.create(user=user, display_name=display_name, club=club)
    except IntegrityError:  # another registration took the name between the check and the insert
        _refuse_taken(username, display_name, club)
        raise


def player_get_or_create_cpu(*, bot_kind: str, display_name: str = "") -> Player:
    """The shared CPU player of a bot kind (CPUs are players too, so seats can point at them)."""
    if bot_kind not in Player.BotKind.values or not bot_kind:
        raise ValueError(f"unknown bot kind {bot_kind!r}")
    name = display_name or f"CPU ({bot_kind})"
    player, _ = Player.objects.get_or_create(bot_kind=bot_kind, display_name=name)
    return player


@transaction.atomic
def player_rename(*, player: Player, display_name: str) -> Player:
    """Give a person (a guest or a member) another display name, already cleaned by
    ``tournaments.names.clean_display_name``; 409 ``display_name_taken`` if someone else of the
    club goes by it whatever its case. Tables show the new name from their next read."""
    if player.is_cpu:
        raise DomainError("cpu_not_renamed", "CPU players keep their names.", status=403)
    if player.display_name == display_name:
        return player
    if display_name_taken(display_name, player.club, exclude=player):
        raise DomainError("display_name_taken", "Someone already plays under this name.", status=409)
    player.display_name = display_name
    try:
        with transaction.atomic():
            player.save(update_fields=["display_name"])
    except IntegrityError:  # taken between the check and the update
        raise DomainError("display_name_taken", "Someone already plays under this name.", status=409) from None
    return player


def _free_guest_name() -> str:
    while True:
        name = f"Guest {secrets.token_hex(3)}"
        if not display_name_taken(name, None):
            return name


@transaction.atomic
def player_guest_for_device(*, device_id: str, display_name: str) -> Player:
    """The guest player bound to a device (created on first visit); casual tables only.

    A guest's display name is unique among people of no club like anyone's (409
    ``display_name_taken``); without one, a guest is "Guest" and a random tag."""
    device_hash = hashlib.sha256(device_id.encode()).hexdigest()
    player = Player.objects.select_for_update().filter(is_guest=True, guest_device_hash=device_hash).first()
    if player is not None:
        return player_rename(player=player, display_name=display_name) if display_name else player
    if display_name:
        _refuse_taken(None, display_name, None)
    else:
        display_name = _free_guest_name()
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=f"guest-{secrets.token_hex(8)}")
            user.set_unusable_password()
            user.save(update_fields=["password"])
            return Player.objects.create(
                user=user, display_name=display_name, is_guest=True, guest_device_hash=device_hash
            )
    except IntegrityError:
        _refuse_taken(None, display_name, None)
        raise


@transaction.atomic
def player_guest_to_member(*, player: Player, club: Club | None) -> Player:
    """Turn a guest into a member of ``club`` (a director does it at the club: the guest played
    casual tables on a device and now enters a tournament). Their games, ratings and name stay;
    the account has no password until one is set. 409 ``display_name_taken`` if a member of the
    club already goes by the name, ``not_a_guest`` if they are a member already."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if not player.is_guest:
        raise DomainError("not_a_guest", f"{player} already has an account.", status=409)
    if display_name_taken(player.display_name, club, exclude=player):
        raise DomainError("display_name_taken", "Someone already plays under this name.", status=409)
    player.is_guest, player.club, player.guest_device_hash = False, club, ""
    try:
        with transaction.atomic():
            player.save(update_fields=["is_guest", "club", "guest_device_hash"])
    except IntegrityError:
        raise DomainError("display_name_taken", "Someone already plays under this name.", status=409) from None
    return player
