"""``manage.py analyse_games [ID ...] [--tournament T] [--rebuild] [--queue]``: analyse finished games."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from analysis.models import GameAnalysis
from analysis.services import analysable, analysis_request, analysis_run_inline
from tournaments.models import Game


class Command(BaseCommand):
    help = (
        "Analyse finished games (every decision reviewed from its seat's view): the games given, or "
        "every finished game of a tournament. Runs here with a progress bar, or --queue for the workers."
    )

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", type=int, help="game ids")
        parser.add_argument("--tournament", type=int, help="every finished game of this tournament")
        parser.add_argument("--rebuild", action="store_true", help="drop stored reviews and compute them again")
        parser.add_argument("--queue", action="store_true", help="send the work to the Celery workers instead")

    def handle(self, *args, ids, tournament, rebuild, queue, **options):
        if not ids and tournament is None:
            raise CommandError("Give game ids or --tournament.")
        games = Game.objects.order_by("pk")
        if ids:
            games = games.filter(pk__in=ids)
            missing = set(ids) - set(games.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"No game with id {sorted(missing)}.")
        if tournament is not None:
            games = games.filter(competition_table__round__tournament_id=tournament)
        games = list(games)
        refused = [g.pk for g in games if not analysable(g)]
        if refused and ids:
            raise CommandError(f"Not finished, or sealed until their round is over: games {refused}.")
        games = [g for g in games if analysable(g)]
        if not games:
            raise CommandError("No finished game to analyse.")
        quiet = options["verbosity"] < 1
        if queue:
            for game in games:
                analysis_request(game=game, rebuild=rebuild)
            self.stdout.write(self.style.SUCCESS(f"{len(games)} analysis(es) sent to the workers"))
            return
        failed = 0
        for number, game in enumerate(games, 1):
            with tqdm(total=0, unit="decision", desc=f"game {game.pk} ({number}/{len(games)})", disable=quiet) as bar:

                def progress(done, total, bar=bar):
                    bar.total = total
                    bar.n = done
                    bar.refresh()

                analysis = analysis_run_inline(game=game, rebuild=rebuild, progress=progress)
            if analysis.status != GameAnalysis.Status.DONE:
                failed += 1
                self.stderr.write(f"game {game.pk}: {analysis.status} {analysis.error}")
        if failed:
            raise CommandError(f"{failed} analysis(es) did not complete.")
        self.stdout.write(self.style.SUCCESS(f"{len(games)} game(s) analysed"))
