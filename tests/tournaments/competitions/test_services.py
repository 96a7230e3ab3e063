"""Club tournaments through the services: seating wired to games, duplicate deals, standings,
withdrawal and late entry, the finished-game hook, swaps and a simulated tournament."""

import io
from collections import Counter

import pytest
from django.core.management import call_command

from hearts_league.api import DomainError
from tests.factories import (
    CpuPlayerFactory,
    LeagueFactory,
    PlayerFactory,
    RegistrationFactory,
    RoundFactory,
    TableFactory,
    TableResultFactory,
    TournamentFactory,
)
from tournaments.autoplay import tasks
from tournaments.autoplay.moves import game_cpu_move
from tournaments.competitions import services
from tournaments.competitions.seating import meeting_pairs, repeat_meetings
from tournaments.competitions.selectors import standings_for_tournament
from tournaments.games.eventstore import audit_game
from tournaments.games.services import game_leave
from tournaments.models import Game, GameEvent, Registration, Round, Table, TableResult, Tournament

pytestmark = pytest.mark.django_db


def _tournament(n_players, **options):
    options.setdefault("seed", 11)
    tournament = services.tournament_create(league=LeagueFactory(), name="Club night", **options)
    players = [CpuPlayerFactory() for _ in range(n_players)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    return tournament, players


def _play_round(round_):
    for table in round_.tables.order_by("number"):
        services.table_play_cpus(table_id=table.pk)
    round_.refresh_from_db()
    return round_


def _seated(round_):
    return [
        pid for table in round_.tables.all() for seat, pid in enumerate(table.players) if seat not in table.cpu_fill
    ]


def test_a_started_round_seats_every_player_once_at_tables_of_three_to_five_with_matching_games():
    tournament, players = _tournament(10)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    tables = list(round_.tables.order_by("number"))
    assert [t.size for t in tables] == [4, 3, 3]  # the preferred 4s, then 3s ("smaller")
    assert sorted(_seated(round_)) == sorted(p.pk for p in players)
    for table in tables:
        assert table.status == Table.Status.PLAYING
        assert table.game.status == Game.Status.ACTIVE
        assert table.game.rules["players"] == table.size
        assert list(table.game.seats.order_by("seat").values_list("player_id", flat=True)) == table.players
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.rules and "players" not in tournament.rules  # fixed at the start, per table size


def test_cpu_fill_only_when_allowed_makes_every_table_the_preferred_size():
    tournament, players = _tournament(10, allow_cpu_fill=True)
    round_ = services.tournament_seat_round(tournament_id=tournament.pk)
    tables = list(round_.tables.all())
    assert [t.size for t in tables] == [4, 4, 4]
    assert sum(len(t.cpu_fill) for t in tables) == 2
    assert sorted(_seated(round_)) == sorted(p.pk for p in players)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    assert round_.status == Round.Status.PLAYING


def test_duplicate_deals_are_the_same_at_every_table_of_a_size_in_a_round():
    tournament, _ = _tournament(11, duplicate_deals=True, round_mode="fixed_hands", hands_per_round=3)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    assert sorted(round_.deals) == ["3", "4"] and len(round_.deals["4"]) == 3
    tables = list(round_.tables.select_related("game"))
    assert sorted(t.size for t in tables) == [3, 4, 4]
    fours = [t for t in tables if t.size == 4]
    dealt = [
        GameEvent.objects.get(game=t.game, type="HandDealt", payload__hand_number=1).payload["hands"] for t in fours
    ]
    assert dealt[0] == dealt[1]
    assert [sorted(hand) for hand in dealt[0]] == [sorted(hand) for hand in round_.deals["4"][0]]
    three = next(t for t in tables if t.size == 3)
    hands3 = GameEvent.objects.get(game=three.game, type="HandDealt", payload__hand_number=1).payload["hands"]
    assert [sorted(h) for h in hands3] == [sorted(h) for h in round_.deals["3"][0]]


def test_duplicate_results_are_compared_seat_by_seat_in_matchpoints():
    tournament, _ = _tournament(8, duplicate_deals=True, round_mode="fixed_hands", hands_per_round=1)
    round_ = _play_round(services.tournament_start_round(tournament_id=tournament.pk))
    assert round_.status == Round.Status.FINISHED
    results = TableResult.objects.filter(table__round=round_)
    assert all(r.matchpoints is not None for r in results)
    # 2 tables of 4: each seat is compared with the same seat at the other table, 1 point per pair.
    assert sum(r.matchpoints for r in results) == 4.0
    by_seat = {}
    for r in results:
        by_seat.setdefault(r.seat, []).append(r)
    for pair in by_seat.values():
        low, high = sorted(pair, key=lambda r: r.hearts_points)
        assert low.matchpoints == (0.5 if low.hearts_points == high.hearts_points else 1.0)
    lines = standings_for_tournament(tournament)
    assert sum(line.matchpoints for line in lines) == 4.0


def test_standings_and_tiebreaks_match_a_worked_example():
    """Round 1: A 40, B 40, C 75, D 102 -> 3, 3, 1, 0 table points (A and B share 1st and 2nd).
    Round 2: C 20, A 30, B 30, D 90 -> 4, 1.5, 1.5, 0. Totals: C 5 (95 hearts), A 4.5 (70),
    B 4.5 (70), D 0. A and B are level on every tiebreak (same opponents, same head to head):
    they share 2nd place. E, registered late with no result yet, is level with D on table points
    and ahead on Hearts points (0 against 192)."""
    tournament = TournamentFactory()
    a, b, c, d, e = (CpuPlayerFactory(display_name=name) for name in "ABCDE")
    for player in (a, b, c, d, e):
        RegistrationFactory(tournament=tournament, player=player)
    for number, totals in ((1, {a: 40, b: 40, c: 75, d: 102}), (2, {c: 20, a: 30, b: 30, d: 90})):
        table = TableFactory(round=RoundFactory(tournament=tournament, number=number), players=[p.pk for p in totals])
        for seat, (player, hearts) in enumerate(totals.items()):
            TableResultFactory(table=table, seat=seat, player=player, hearts_points=hearts)
    lines = standings_for_tournament(tournament)
    assert [(line.rank_label, line.name, line.table_points, line.hearts_points) for line in lines] == [
        ("1", "C", 5.0, 95),
        ("=2", "A", 4.5, 70),
        ("=2", "B", 4.5, 70),
        ("4", "E", 0.0, 0),
        ("5", "D", 0.0, 192),
    ]
    assert lines[1].opponents_strength == lines[2].opponents_strength
    assert lines[1].head_to_head == lines[2].head_to_head == 4.5
    assert lines[0].games == 2 and lines[3].games == 0


def test_points_by_place_are_configurable_and_a_tie_is_half_a_win():
    tournament = TournamentFactory(points_by_place={"3": [6, 3, 0]})
    a, b, c = (CpuPlayerFactory() for _ in range(3))
    table = TableFactory(round=RoundFactory(tournament=tournament), players=[a.pk, b.pk, c.pk])
    for seat, (player, hearts) in enumerate(((a, 10), (b, 10), (c, 80))):
        TableResultFactory(table=table, seat=seat, player=player, hearts_points=hearts)
    points = {line.player_id: line.table_points for line in standings_for_tournament(tournament)}
    assert points == {a.pk: 4.5, b.pk: 4.5, c.pk: 0.0}


def test_withdrawal_and_late_entry_keep_the_next_round_valid():
    tournament, players = _tournament(6, round_mode="fixed_hands", hands_per_round=1)
    round1 = _play_round(services.tournament_start_round(tournament_id=tournament.pk))
    assert round1.status == Round.Status.FINISHED

    gone = players[0]
    services.tournament_withdraw(tournament_id=tournament.pk, player=gone)
    late = [CpuPlayerFactory(), CpuPlayerFactory()]
    for player in late:
        registration = services.tournament_register(tournament_id=tournament.pk, player=player)
        assert registration.joined_round == 2
    round2 = services.tournament_seat_round(tournament_id=tournament.pk)
    expected = {p.pk for p in players[1:] + late}
    assert sorted(_seated(round2)) == sorted(expected)
    assert sorted(t.size for t in round2.tables.all()) == [3, 4]

    # A withdrawal while the round is only seated: it is seated again without them.
    services.tournament_withdraw(tournament_id=tournament.pk, player=late[0])
    round2.refresh_from_db()
    assert sorted(_seated(round2)) == sorted(expected - {late[0].pk})
    assert sorted(t.size for t in round2.tables.all()) == [3, 3]
    round2 = services.tournament_start_round(tournament_id=tournament.pk)
    assert round2.number == 2 and round2.tables.filter(game__isnull=True).count() == 0

    lines = {line.player_id: line for line in standings_for_tournament(tournament)}
    assert lines[gone.pk].withdrawn and lines[gone.pk].games == 1
    assert lines[late[1].pk].games == 0 and not lines[late[1].pk].withdrawn
    assert Registration.objects.get(player=gone).withdrawn_after_round == 1


def test_the_finished_game_hook_records_the_table_once_and_auto_advances():
    tournament, _ = _tournament(3, rules_overrides={"end_score": 5}, rounds_planned=2, auto_advance=True)
    round1 = services.tournament_start_round(tournament_id=tournament.pk)
    game = round1.tables.get().game
    for _ in range(5000):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        game_cpu_move(game_id=game.pk, seq=game.seq)
    tasks.game_finished(game.pk)
    tasks.game_finished(game.pk)  # redelivered: changes nothing
    round1.refresh_from_db()
    assert round1.status == Round.Status.FINISHED
    assert TableResult.objects.filter(table__round=round1).count() == 3
    assert (
        list(TableResult.objects.filter(table__round=round1).order_by("seat").values_list("hearts_points", flat=True))
        == game.final_totals
    )
    round2 = Round.objects.get(tournament=tournament, number=2)
    assert round2.status == Round.Status.PLAYING  # auto-advance seated and started it


def test_a_fixed_hands_table_stops_its_game_after_its_last_hand_and_counts_those_totals():
    tournament, _ = _tournament(4, round_mode="fixed_hands", hands_per_round=1)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    table = services.table_play_cpus(table_id=round_.tables.get().pk)
    assert table.status == Table.Status.FINISHED
    table.game.refresh_from_db()
    assert table.game.status == Game.Status.FINISHED  # stopped by the hand limit, not the end score
    assert GameEvent.objects.filter(game=table.game, type="HandLimitReached").exists()
    scored = GameEvent.objects.filter(game=table.game, type="HandScored").order_by("seq").first().payload
    assert [r.hearts_points for r in table.results.order_by("seat")] == scored["totals"]
    assert all(r.hands_played == 1 for r in table.results.all())
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING  # 4 of 5 rounds still to play


def test_finish_round_refuses_while_tables_are_playing():
    tournament, _ = _tournament(3, round_mode="fixed_hands", hands_per_round=1)
    services.tournament_start_round(tournament_id=tournament.pk)
    with pytest.raises(DomainError) as refused:
        services.tournament_finish_round(tournament_id=tournament.pk)
    assert refused.value.error_code == "round_incomplete"
    with pytest.raises(DomainError) as again:
        services.tournament_start_round(tournament_id=tournament.pk)
    assert again.value.error_code == "round_in_progress"


def test_swap_players_before_the_start_and_only_as_a_correction_after():
    tournament, players = _tournament(8, format="random")
    round_ = services.tournament_seat_round(tournament_id=tournament.pk)
    t1, t2 = round_.tables.order_by("number")
    a, b = t1.players[0], t2.players[2]
    services.table_swap_player(
        table_id=t1.pk,
        player_out=players[[p.pk for p in players].index(a)],
        player_in=players[[p.pk for p in players].index(b)],
    )
    t1.refresh_from_db(), t2.refresh_from_db()
    assert t1.players[0] == b and t2.players[2] == a
    services.tournament_start_round(tournament_id=tournament.pk)
    t1.refresh_from_db()
    by_pk = {p.pk: p for p in players}
    with pytest.raises(DomainError) as refused:
        services.table_swap_player(table_id=t1.pk, player_out=by_pk[t1.players[0]], player_in=by_pk[t1.players[1]])
    assert refused.value.error_code == "table_started"
    first, second = t1.players[0], t1.players[1]
    with pytest.raises(DomainError) as seen:  # each has seen their own hand: never each other's seat
        services.table_swap_player(table_id=t1.pk, player_out=by_pk[first], player_in=by_pk[second], correction=True)
    assert seen.value.error_code == "knows_another_seat"
    t1.refresh_from_db(), t2.refresh_from_db()
    assert t1.players[:2] == [first, second]
    other = t2.players[0]
    services.table_swap_player(table_id=t1.pk, player_out=by_pk[first], player_in=by_pk[other], correction=True)
    t1.refresh_from_db(), t2.refresh_from_db()
    assert t1.players[0] == other and t2.players[0] == first
    for table in (t1, t2):
        assert list(table.game.seats.order_by("seat").values_list("player_id", flat=True)) == table.players


def _played_round(tournament, players, size):
    """Round 1 as if played: tables of ``size`` in registration order, lower ids fewer points."""
    round1 = RoundFactory(tournament=tournament, number=1)
    for i in range(0, len(players), size):
        at_table = players[i : i + size]
        table = TableFactory(round=round1, players=[p.pk for p in at_table])
        for seat, player in enumerate(at_table):
            TableResultFactory(table=table, seat=seat, player=player, hearts_points=10 * seat)
    return round1


def test_swiss_rounds_avoid_repeat_meetings_through_the_services():
    tournament, players = _tournament(12, rounds_planned=2)
    round1 = _played_round(tournament, players, 4)
    round2 = services.tournament_seat_round(tournament_id=tournament.pk)
    assert round2.number == 2
    rounds = [[t.players for t in r.tables.all()] for r in (round1, round2)]
    # 4 players from 3 tables of round 1: each new table has at least one pair who met already,
    # so 3 repeats is the least possible; the Swiss seating finds it.
    assert repeat_meetings(rounds) == 3
    assert max(Counter(meeting_pairs(rounds[0] + rounds[1])).values()) == 2


def test_a_final_table_seats_the_top_of_the_standings():
    tournament, players = _tournament(6, rounds_planned=1, final_table_size=3)
    _played_round(tournament, players, 3)
    top = [line.player_id for line in standings_for_tournament(tournament)[:3]]
    final = services.tournament_seat_round(tournament_id=tournament.pk)
    assert final.is_final and [t.players for t in final.tables.all()] == [top]


def test_invalid_settings_are_refused_with_a_code():
    league = LeagueFactory()
    for options, code in (
        ({"format": "knockout"}, "invalid_format"),
        ({"rules_overrides": {"end_score": 0}}, "invalid_rules"),
        ({"points_by_place": {"4": [4, 2, 1]}}, "invalid_points"),
        ({"final_table_size": 2}, "invalid_final"),
    ):
        with pytest.raises(DomainError) as refused:
            services.tournament_create(league=league, name="x", **options)
        assert refused.value.error_code == code


def test_simulate_tournament_runs_end_to_end_and_every_game_it_played_passes_the_audit():
    out = io.StringIO()
    call_command("simulate_tournament", players=6, rounds=2, hands=1, seed=5, no_progress=True, stdout=out)
    tournament = Tournament.objects.get()
    assert tournament.status == Tournament.Status.FINISHED
    lines = standings_for_tournament(tournament)
    assert len(lines) == 6 and all(line.games == 2 for line in lines)
    assert sum(line.table_points for line in lines) == 2 * 2 * (4 + 2 + 0)
    assert "2 rounds, 4 tables, status finished" in out.getvalue()
    games = Game.objects.filter(competition_table__round__tournament=tournament)
    assert games.count() == 4 and all(audit_game(game).ok for game in games)
    # every move is a CPU command with the CPU task's deterministic id (a redelivery appends nothing)
    moves = GameEvent.objects.filter(game__in=games, type__in=["CardPlayed", "CardsPassed"])
    assert moves.exists() and all(
        e.cause == GameEvent.Cause.CPU and e.command_id == f"cpu:{e.seq - 1}:{e.actor_seat}" for e in moves
    )


def test_playing_cpu_tables_refuses_a_table_awaiting_a_human_and_changes_nothing():
    tournament, _ = _tournament(3, round_mode="fixed_hands", hands_per_round=1)
    services.tournament_register(tournament_id=tournament.pk, player=PlayerFactory())
    table = services.tournament_start_round(tournament_id=tournament.pk).tables.get()
    started_at = table.game.seq
    with pytest.raises(DomainError) as refused:
        services.table_play_cpus(table_id=table.pk)
    assert refused.value.error_code == "not_cpu_table" and refused.value.status_code == 409
    table.refresh_from_db()
    table.game.refresh_from_db()
    assert table.game.seq == started_at and table.status == Table.Status.PLAYING  # the CPUs' passes too


def test_playing_cpu_tables_plays_an_away_players_seat_with_the_stand_in():
    tournament, _ = _tournament(3, round_mode="fixed_hands", hands_per_round=1)
    human = PlayerFactory()
    services.tournament_register(tournament_id=tournament.pk, player=human)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    table = round_.tables.get()
    game_leave(game_id=table.game_id, player=human)
    table = services.table_play_cpus(table_id=table.pk)
    assert table.status == Table.Status.FINISHED
    seat = table.players.index(human.pk)
    assert table.results.get(seat=seat).player_id == human.pk
    assert (
        GameEvent.objects.filter(game=table.game, actor_seat=seat, type="CardPlayed", cause=GameEvent.Cause.CPU).count()
        == 13
    )


def test_swiss_round_one_spreads_the_strongest_rated_players_over_the_tables():
    """A snake draft by rating (the league's pool before the global one): the four strongest
    sit at four different tables; unrated players come after every rated one."""
    from tests.factories import RatingFactory

    tournament, players = _tournament(16)
    strength = {p.pk: 1500 + 10 * i for i, p in enumerate(players[:12])}  # the last four unrated
    for player in players[:12]:
        RatingFactory(player=player, mu=1000)  # global: overridden by the league's pool
        RatingFactory(player=player, league=tournament.league, mu=strength[player.pk])
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    tables = [set(t.players) for t in round_.tables.order_by("number")]
    strongest = sorted(strength, key=strength.get, reverse=True)
    assert [sum(pid in table for pid in strongest[:4]) for table in tables] == [1, 1, 1, 1]
    assert [sum(pid in table for pid in strongest[4:8]) for table in tables] == [1, 1, 1, 1]
    unrated = {p.pk for p in players[12:]}
    assert [len(unrated & table) for table in tables] == [1, 1, 1, 1]


def test_swiss_round_one_by_the_global_pool_ignores_the_league_pool_and_by_lot_ignores_both():
    """The same ratings, three seedings: the global pool's four strongest are spread over the
    four tables; the league's pool (reversed strengths) would spread another four; by lot
    the ratings are not asked for at all."""
    from tests.factories import RatingFactory

    for seeding in ("global", "league"):
        tournament, players = _tournament(16, seeding=seeding)
        for i, player in enumerate(players):
            RatingFactory(player=player, mu=1500 + 10 * i)
            RatingFactory(player=player, league=tournament.league, mu=1500 - 10 * i)
        round_ = services.tournament_start_round(tournament_id=tournament.pk)
        tables = [set(t.players) for t in round_.tables.order_by("number")]
        strongest = [p.pk for p in (players[-4:] if seeding == "global" else players[:4])]
        assert [sum(pid in table for pid in strongest) for table in tables] == [1, 1, 1, 1], seeding


def test_swiss_round_one_by_lot_does_not_call_the_ratings_hook(settings):
    settings.HEARTS_SEEDING_RATINGS = "tests.tournaments.competitions.test_services.refuse_to_rate"
    tournament, _ = _tournament(8, seeding="lot")
    assert services.tournament_start_round(tournament_id=tournament.pk).tables.count() == 2
    rated, _ = _tournament(8, seeding="league")
    with pytest.raises(AssertionError, match="asked for ratings"):
        services.tournament_start_round(tournament_id=rated.pk)


def refuse_to_rate(**kwargs):
    raise AssertionError("asked for ratings")


def test_cpu_fill_is_never_ranked_and_never_moves_anyone_down():
    """A table of 3 players and a CPU fill seat where the CPU scores best: the players are
    ranked 1, 2, 3 among themselves (the CPU's place still counts for the table points)."""
    tournament = TournamentFactory(allow_cpu_fill=True)
    a, b, c = (CpuPlayerFactory(display_name=name) for name in "ABC")
    cpu = CpuPlayerFactory(display_name="CPU")
    for player in (a, b, c):
        RegistrationFactory(tournament=tournament, player=player)
    table = TableFactory(
        round=RoundFactory(tournament=tournament, number=1), players=[cpu.pk, a.pk, b.pk, c.pk], cpu_fill=[0]
    )
    for seat, (player, hearts) in enumerate(((cpu, 5), (a, 30), (b, 30), (c, 80))):
        TableResultFactory(table=table, seat=seat, player=player, hearts_points=hearts, cpu_fill=seat == 0)
    lines = standings_for_tournament(tournament)
    assert [(line.rank_label, line.name, line.table_points) for line in lines] == [
        ("=1", "A", 1.5),
        ("=1", "B", 1.5),
        ("3", "C", 0.0),
    ]
    assert [line.rank for line in lines] == [1, 1, 3]
