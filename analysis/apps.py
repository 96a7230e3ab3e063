from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "Post-game analysis"
    default_auto_field = "django.db.models.BigAutoField"
