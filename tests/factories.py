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


class GameFactory(factory.django.DjangoModelFactory):
    """A game row (no event log): ratings tests build finished ranked games this way."""

    class Meta:
        model = "tournaments.Game"

    rules = factory.LazyFunction(lambda: {"players": 4})
    ranked = True
    status = "finished"


class GameSeatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.GameSeat"

    game = factory.SubFactory(GameFactory)
    seat = factory.Sequence(lambda n: n % 4)
    player = factory.SubFactory(PlayerFactory)


def _elo_params():
    from ratings.rating import make_model

    return make_model("elo").params


def _now():
    from django.utils import timezone

    return timezone.now()


class RatingFactory(factory.django.DjangoModelFactory):
    """A global-pool rating (pass ``league=`` for a league's) with the default model."""

    class Meta:
        model = "ratings.Rating"

    player = factory.SubFactory(PlayerFactory)
    league = None
    model_name = "elo"
    model_params = factory.LazyFunction(lambda: _elo_params())
    mu = 1500.0
    sigma = 100.0
    conservative = factory.LazyAttribute(lambda r: r.mu - 3 * r.sigma)
    games = 20
    provisional = False
    last_played_at = factory.LazyFunction(lambda: _now())


# --- club competitions (tournaments.models.competitions) ----------------------------------------


class SeasonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.Season"

    league = factory.SubFactory(LeagueFactory)
    name = factory.Sequence(lambda n: f"Season {n}")


class TournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.Tournament"

    league = factory.SubFactory(LeagueFactory)
    name = factory.Sequence(lambda n: f"Tournament {n}")
    seed = factory.Sequence(lambda n: n + 1)


class RegistrationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.Registration"

    tournament = factory.SubFactory(TournamentFactory)
    player = factory.SubFactory(CpuPlayerFactory)


class RoundFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.Round"

    tournament = factory.SubFactory(TournamentFactory)
    number = factory.Sequence(lambda n: n + 1)
    seed = 1
    status = "finished"


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.Table"

    round = factory.SubFactory(RoundFactory)
    number = factory.Sequence(lambda n: n + 1)
    players = factory.LazyFunction(list)
    status = "finished"


class TableResultFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "tournaments.TableResult"

    table = factory.SubFactory(TableFactory)
    seat = 0
    player = factory.SubFactory(CpuPlayerFactory)
    hearts_points = 0
    table_points = 0.0
