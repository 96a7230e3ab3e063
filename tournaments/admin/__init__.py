"""Django admin for the tournaments app: ``core`` (clubs, players, games and their logs) and
``competitions`` (seasons, tournaments, rounds and tables)."""

from tournaments.admin import competitions, core  # noqa: F401  (registers the ModelAdmins)
