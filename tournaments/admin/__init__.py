"""Django admin for the tournaments app: ``core`` (clubs, players, games and their logs)."""

from tournaments.admin import core  # noqa: F401  (registers the ModelAdmins)
