"""``manage.py seed_demo``: a demo club, league, members and CPU players (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from engine import bots
from tournaments.clubs.services import player_get_or_create_cpu, player_register
from tournaments.models import Club, League, Player

DEMO_MEMBERS = ["alice", "bruno", "carmen", "dmitri", "elena", "farid"]
DEMO_PASSWORD = "hearts-demo"


class Command(BaseCommand):
    help = "Load demo data: a club, a league, a few members (password 'hearts-demo') and CPU players."

    @transaction.atomic
    def handle(self, *args, **options):
        club, _ = Club.objects.get_or_create(slug="demo-club", defaults={"name": "Demo Hearts Club"})
        League.objects.get_or_create(club=club, slug="thursday-league", defaults={"name": "Thursday League"})
        User = get_user_model()
        for username in DEMO_MEMBERS:
            if not User.objects.filter(username=username).exists():
                player_register(
                    username=username, password=DEMO_PASSWORD, display_name=username.capitalize(), club=club
                )
        for kind in bots.KINDS:
            player_get_or_create_cpu(bot_kind=kind)
        if not User.objects.filter(username="director").exists():
            User.objects.create_superuser("director", "director@example.org", DEMO_PASSWORD)
        self.stdout.write(
            self.style.SUCCESS(
                f"demo data: {Club.objects.count()} club(s), {League.objects.count()} league(s), "
                f"{Player.objects.count()} players; log in as director / {DEMO_PASSWORD}"
            )
        )
