from rest_framework import serializers

from tournaments.models import League, Player


class LeagueSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.name", read_only=True)

    class Meta:
        model = League
        fields = ["id", "name", "slug", "club", "default_rules", "rate_games_with_cpus", "created_at"]


class PlayerSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.name", read_only=True, default=None, allow_null=True)
    is_cpu = serializers.BooleanField(read_only=True)

    class Meta:
        model = Player
        fields = ["id", "display_name", "club", "bot_kind", "is_cpu", "is_guest", "created_at"]
