from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings and ranked play"

    def ready(self):
        from ratings import checks  # noqa: F401  (registers the settings checks)
