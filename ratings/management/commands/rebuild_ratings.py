"""``manage.py rebuild_ratings [--league ID] [--model NAME]``: recompute ratings from the games."""

import json

from django.core.management.base import BaseCommand, CommandError

from ratings.rating import MODELS
from ratings.services import ratings_rebuild
from tournaments.models import League


class Command(BaseCommand):
    help = (
        "Recompute ratings from finished ranked games in order (finished_at, id): every pool, or one "
        "league's. Deterministic: gives exactly the values the games produced one by one."
    )

    def add_arguments(self, parser):
        parser.add_argument("--league", type=int, help="only this league's pool")
        parser.add_argument(
            "--model", choices=sorted(MODELS), help="switch the pool(s) to this rating model (default: the stored one)"
        )
        parser.add_argument("--params", default="{}", help="model parameters as JSON, e.g. '{\"k\": 4}'")

    def handle(self, *args, league=None, model=None, params="{}", **options):
        if league is not None and not League.objects.filter(pk=league).exists():
            raise CommandError(f"There is no league {league}.")
        try:
            model_params = json.loads(params)
        except json.JSONDecodeError as error:
            raise CommandError(f"--params is not JSON: {error}") from None
        if model_params and not model:
            raise CommandError("--params needs --model.")
        for report in ratings_rebuild(league_id=league, model_name=model, model_params=model_params):
            pool = f"league {report.league_id}" if report.league_id is not None else "global"
            self.stdout.write(f"{pool}: {report.games} games, {report.players} players ({report.model_name})")
