"""Django admin for the tournaments app: each wing registers its own ModelAdmins."""

from tournaments.clubs import admin as clubs_admin  # noqa: F401  (registers the ModelAdmins)
from tournaments.competitions import admin as competitions_admin  # noqa: F401  (registers the ModelAdmins)
from tournaments.games import admin as games_admin  # noqa: F401
