"""``manage.py simulate_tournament``: a whole tournament of CPU players through the real
services (seating, games and their event logs, results, standings), so a director can try a
format before the evening."""

from __future__ import annotations

import time
from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from engine import bots
from hearts_league.api import DomainError
from tournaments.competitions.selectors import standings_for_tournament
from tournaments.competitions.services import (
    table_play_cpus,
    tournament_create,
    tournament_register,
    tournament_start_round,
)
from tournaments.dispatch import scheduler
from tournaments.models import Club, League, Player, Tournament


@contextmanager
def _quiet_live():
    """No WebSocket notifications or Celery tasks for the simulated games: moves are made here."""
    original = scheduler.game_advanced
    scheduler.game_advanced = lambda *args, **kwargs: None
    try:
        yield
    finally:
        scheduler.game_advanced = original


class Command(BaseCommand):
    help = "Simulate a tournament of CPU players through the real services and print the standings."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=40)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--bots", choices=bots.KINDS, default="rule")
        parser.add_argument("--format", choices=Tournament.Format.values, default=Tournament.Format.SWISS)
        parser.add_argument(
            "--hands",
            type=int,
            default=4,
            help="hands per round (fixed-hands rounds); 0: whole games to the end score",
        )
        parser.add_argument("--end-score", type=int, default=100)
        parser.add_argument("--table-size", type=int, choices=[3, 4, 5], default=4)
        parser.add_argument("--prefer", choices=["smaller", "larger"], default="smaller")
        parser.add_argument("--cpu-fill", action="store_true", help="fill tables to the preferred size")
        parser.add_argument("--duplicate", action="store_true", help="duplicate deals")
        parser.add_argument("--final", type=int, default=0, help="a final table of the top N (3-5)")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **options):
        started = time.monotonic()
        try:
            tournament = self._tournament(options)
            with _quiet_live():
                self._play(tournament, options)
        except DomainError as error:
            raise CommandError(f"{error.error_code}: {error.detail}") from None
        self._print_standings(tournament, time.monotonic() - started)

    def _tournament(self, options) -> Tournament:
        club, _ = Club.objects.get_or_create(slug="simulations", defaults={"name": "Simulations"})
        league, _ = League.objects.get_or_create(club=club, slug="simulations", defaults={"name": "Simulations"})
        hands = options["hands"]
        tournament = tournament_create(
            league=league,
            name=f"Simulation ({options['players']} {options['bots']} CPUs, {options['format']})",
            format=options["format"],
            rounds_planned=options["rounds"],
            round_mode=Tournament.RoundMode.FIXED_HANDS if hands else Tournament.RoundMode.FULL_GAME,
            hands_per_round=hands or 4,
            rules_overrides={"end_score": options["end_score"]},
            preferred_table_size=options["table_size"],
            prefer=options["prefer"],
            allow_cpu_fill=options["cpu_fill"],
            cpu_bot=options["bots"],
            duplicate_deals=options["duplicate"],
            final_table_size=options["final"],
            seed=options["seed"],
        )
        for i in range(1, options["players"] + 1):
            # Distinct CPU players, so each is an entrant with its own standing.
            player = Player.objects.create(
                display_name=f"{options['bots'].capitalize()} CPU {tournament.pk}.{i}",
                bot_kind=options["bots"],
            )
            tournament_register(tournament_id=tournament.pk, player=player)
        return tournament

    def _play(self, tournament: Tournament, options) -> None:
        # file: the stream self.stderr wraps (django-stubs types OutputWrapper's other attributes as Callable)
        bar = tqdm(  # type: ignore[call-overload]
            total=tournament.total_rounds,
            unit="round",
            disable=options["no_progress"],
            file=self.stderr._out,
            desc=tournament.name[:40],
        )
        for _ in range(tournament.total_rounds):
            round_ = tournament_start_round(tournament_id=tournament.pk)
            tables = list(round_.tables.order_by("number"))
            for i, table in enumerate(tables, start=1):
                bar.set_postfix_str(f"round {round_.number} table {i}/{len(tables)}")
                table_play_cpus(table_id=table.pk)
            bar.update(1)
        bar.close()

    def _print_standings(self, tournament: Tournament, seconds: float) -> None:
        tournament.refresh_from_db()
        lines = standings_for_tournament(tournament)
        games = sum(round_.tables.count() for round_ in tournament.rounds.all())
        self.stdout.write(
            f"{tournament.name}: {tournament.rounds.count()} rounds, {games} tables, "
            f"status {tournament.status}, {seconds:.1f} s"
        )
        mp = tournament.duplicate_deals
        self.stdout.write(
            f"{'rank':>5}  {'player':<28} {'table pts':>9} {'hearts':>7} {'opp.str':>8}"
            + (f" {'matchpts':>8}" if mp else "")
            + f" {'games':>5}"
        )
        for line in lines:
            self.stdout.write(
                f"{line.rank_label:>5}  {line.name[:28]:<28} {line.table_points:>9.2f} "
                f"{line.hearts_points:>7} {line.opponents_strength:>8.2f}"
                + (f" {line.matchpoints:>8.1f}" if mp else "")
                + f" {line.games:>5}"
            )
