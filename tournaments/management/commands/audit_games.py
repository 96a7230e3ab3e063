"""``manage.py audit_games [--all | ID ...]``: replay stored logs and check their hash chains."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from tournaments.games.eventstore import audit_game
from tournaments.models import Game


class Command(BaseCommand):
    help = "Audit games: hash chain, deal commitments, and a replay through the engine."

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", type=int, help="game ids")
        parser.add_argument("--all", action="store_true", help="every game that has started")

    def handle(self, *args, ids, all, **options):
        if not ids and not all:
            raise CommandError("Give game ids or --all.")
        games = Game.objects.filter(seq__gt=0).order_by("pk")
        if ids:
            games = games.filter(pk__in=ids)
            missing = set(ids) - set(games.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"No started game with id {sorted(missing)}.")
        failures = 0
        for game in tqdm(games.iterator(), total=games.count(), unit="game", disable=options["verbosity"] < 1):
            report = audit_game(game)
            if not report.ok:
                failures += 1
                self.stderr.write(f"game {game.pk}: first bad event {report.first_bad_seq}: {report.reason}")
        if failures:
            raise CommandError(f"{failures} game(s) failed the audit.")
        self.stdout.write(self.style.SUCCESS("every game audited clean"))
