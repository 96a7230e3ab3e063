from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Clubs, players, games and tournaments"

    def ready(self):
        from tournaments.clubs import roles  # noqa: F401  (connects its receivers)
