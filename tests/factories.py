"""factory-boy factories for the models (one place, used by every test package)."""

import factory
from django.contrib.auth import get_user_model

from tournaments.models import Club, League, Player


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"member{n}")
    password = factory.django.Password("correct horse battery staple")


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")


class LeagueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = League

    club = factory.SubFactory(ClubFactory)
    name = factory.Sequence(lambda n: f"League {n}")
    slug = factory.Sequence(lambda n: f"league-{n}")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda p: p.user.username.capitalize() if p.user else "CPU")


class CpuPlayerFactory(PlayerFactory):
    user = None
    bot_kind = Player.BotKind.RULE
    display_name = factory.Sequence(lambda n: f"CPU {n}")
