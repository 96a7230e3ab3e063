"""Who sees what, proven from the outside: generated games x every kind of viewer x every door
x every moment.

Hypothesis draws a game (3, 4 or 5 players; a kitty or removed cards; passing or not; CPU
seats; a player who leaves mid-game and perhaps comes back; a director's swap of a seat; a
seat filled by invitation; someone who sat at the waiting table and left; every socket
reconnecting part-way, and later resuming from positions drawn in the game so far, closed-out
viewers who may watch again connecting anew; or a duplicate tournament round of two tables). The game is played
to its end, command by command. Viewers: anonymous, a signed-in member, a guest, staff, the
player at each seat, a former occupant, a newcomer who takes a seat over, and a player at
the other table of a duplicate round. Each one keeps a WebSocket open the whole game (every
frame checked) and, after every command, some of them ask REST doors; at a few moments every
viewer asks every door: game detail and list, events, replay at positions inside and between
commands, export, audit, command replies and refusals, tournament rounds, tables, standings
and results, the table and replay pages, the admin's game and event pages.

Every byte that comes back is checked by ``oracle.check`` against what that viewer may know
after the event it describes (docs/reliability.md, "Who sees what"). ``HEARTS_MATRIX_GAMES``
sets how many games (``make test``: a few; CI: 200).
"""

from __future__ import annotations

import html
import json
import os
import random
import re
from dataclasses import dataclass, field
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from analysis import services as analysis_services
from analysis.models import GameAnalysis
from hearts_league.asgi import application
from tests.factories import LeagueFactory, PlayerFactory
from tests.tournaments.helpers import client_for
from tests.tournaments.reliability.oracle import Secrets, Truth, check
from tournaments.autoplay.moves import game_cpu_move
from tournaments.autoplay.sweeper import game_run_finished_hooks
from tournaments.clubs.services import player_guest_for_device
from tournaments.competitions import services as competitions
from tournaments.dispatch import scheduler as dispatch_scheduler
from tournaments.games import eventstore
from tournaments.games.services import (
    SeatSpec,
    game_create,
    game_execute_command,
    game_join,
    game_leave,
    game_reassign_seat,
    invitation_answer,
)
from tournaments.games.tickets import ws_ticket_issue
from tournaments.models import Game, GameEvent, GameSeat, Player, Round, Table

MATRIX_GAMES = int(os.environ.get("HEARTS_MATRIX_GAMES", "6"))
RULING_REASON = "Claimed late at table one"
SEALED = (
    "seq",
    "turn_deadline",
    "final_totals",
    "winner_seat",
    "started_at",
    "finished_at",
)  # null to whoever may not watch
TINY_ANALYSIS = {"play_samples": 2, "pass_screen": 2, "pass_finalists": 1, "pass_samples": 2}


@dataclass(frozen=True)
class Scenario:
    players: int
    kitty: bool
    passing: str
    hands: int
    cpus: tuple[int, ...]
    duplicate: bool
    rival_is_staff: bool  # the other table's player is staff too: a player there, not staff
    leaver: bool
    comes_back: bool
    swap: bool
    swap_mid_pass: bool  # the swap: at a seat that has passed, before the cards change hands
    invitation: bool
    former: bool
    reconnect: bool
    seed: int


@st.composite
def scenarios(draw) -> Scenario:
    players = draw(st.sampled_from([3, 4, 5]))
    duplicate = draw(st.booleans()) and draw(st.booleans())  # a quarter of the games
    cpus = () if duplicate else tuple(sorted(draw(st.sets(st.integers(1, players - 1), max_size=players - 2))))
    humans_besides_creator = players - 1 - len(cpus)
    passing = draw(st.sampled_from(["cycle", "off"]))
    return Scenario(
        players=players,
        kitty=players != 4 and draw(st.booleans()),
        passing=passing,
        hands=draw(st.sampled_from([1, 1, 2])),
        cpus=cpus,
        duplicate=duplicate,
        rival_is_staff=duplicate and draw(st.booleans()),
        leaver=draw(st.booleans()),
        comes_back=draw(st.booleans()),
        swap=draw(st.booleans()),
        swap_mid_pass=passing != "off" and draw(st.booleans()),
        invitation=not duplicate and humans_besides_creator > 0 and draw(st.booleans()),
        former=not duplicate and humans_besides_creator > 0 and draw(st.booleans()),
        reconnect=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32)),
    )


@dataclass
class Moment:
    """What the test knows of a game between two actions (read once, used by every check)."""

    game: Game
    truth: Truth
    secrets: Secrets
    holders: dict[int, int]  # player id -> seat held now
    everything: bool


@dataclass
class Viewer:
    label: str
    player: Player | None  # None: anonymous
    api: APIClient
    browser: Client
    device: str = ""
    socket: WebsocketCommunicator | None = None
    frames: list = field(default_factory=list)
    last_seq: int = 0
    last_state: int = -1
    closed: tuple[str, int] | None = None  # (error code, close code) of a refused socket
    seen_events: int = 0


class Match:
    """One generated game in play, its viewers, and the truth to check them against."""

    def __init__(self, scenario: Scenario):
        self.s = scenario
        self.rng = random.Random(scenario.seed)
        self.viewers: dict[str, Viewer] = {}
        self.game: Game | None = None
        self.other: Game | None = None  # the other table of a duplicate round
        self.other_people: list[Player] = []
        self.round: Round | None = None
        self.tournament = None
        self.ruled = False  # staff ruled on table 1 once it finished
        self.people: dict[int, Player] = {}  # seat -> the human seated there at the start
        self.truth: Truth | None = None
        self.truths: dict[int, Truth] = {}
        self.moments: dict[int, Moment] = {}
        self.steps = 0
        self.commands = 0

    # --- set-up ------------------------------------------------------------------------------

    def viewer(self, label: str, player: Player | None) -> Viewer:
        api = client_for(player) if player is not None else APIClient()
        browser = Client()
        if player is not None:
            browser.force_login(player.user)
        self.viewers[label] = Viewer(label, player, api, browser, device=f"device-{label}-{self.s.seed}")
        return self.viewers[label]

    def rules(self) -> dict:
        rules = {"players": self.s.players, "passing": self.s.passing}
        if self.s.players != 4:
            rules["leftover"] = "kitty" if self.s.kitty else "remove"
        return rules

    def set_up(self) -> None:
        staff = PlayerFactory(user__is_staff=True, user__is_superuser=True)
        guest = player_guest_for_device(device_id=f"guest-device-{self.s.seed:020d}", display_name=f"Pat {self.s.seed}")
        self.viewer("anonymous", None)
        self.viewer("member", PlayerFactory())
        self.viewer("guest", guest)
        self.viewer("staff", staff)
        if self.s.swap:
            self.viewer("newcomer", PlayerFactory())
        if self.s.duplicate:
            self._duplicate_round(staff)
        else:
            self._casual_table()

    def _duplicate_round(self, staff: Player) -> None:
        n = self.s.players
        self.tournament = competitions.tournament_create(
            league=LeagueFactory(),
            name="Matrix night",
            created_by=staff,
            duplicate_deals=True,
            round_mode="fixed_hands",
            hands_per_round=self.s.hands,
            preferred_table_size=n,
            rules_overrides={k: v for k, v in self.rules().items() if k != "players"},
        )
        people = [PlayerFactory() for _ in range(2 * n)]
        for person in people:
            competitions.tournament_register(tournament_id=self.tournament.pk, player=person)
        self.round = competitions.tournament_start_round(tournament_id=self.tournament.pk)
        first, second = self.round.tables.order_by("number").select_related("game")
        by_id = {p.pk: p for p in people}
        self.game, self.other = first.game, second.game
        self.people = {seat: by_id[pid] for seat, pid in enumerate(first.players)}
        self.other_people = [by_id[pid] for pid in second.players]
        for seat, person in self.people.items():
            self.viewer(f"seat{seat}", person)
        rival = self.other_people[0]
        if self.s.rival_is_staff:
            rival.user.is_staff = rival.user.is_superuser = True
            rival.user.save()
        self.viewer("rival", rival)

    def _casual_table(self) -> None:
        n = self.s.players
        creator = PlayerFactory()
        self.viewer("seat0", creator)
        humans = [seat for seat in range(1, n) if seat not in self.s.cpus]
        invited = humans[0] if self.s.invitation else None
        specs = [SeatSpec("me")]
        for seat in range(1, n):
            if seat in self.s.cpus:
                specs.append(SeatSpec("cpu", bot=self.rng.choice(["random", "rule"])))
            elif seat == invited:
                invitee = PlayerFactory()
                specs.append(SeatSpec("invite", player_id=invitee.pk))
                self.people[seat] = invitee
            else:
                specs.append(SeatSpec("open"))
        self.game = game_create(
            creator=creator,
            rules=self.rules(),
            seats=specs,
            hand_limit=self.s.hands,
            device_id=self.viewers["seat0"].device,
        )
        self.people[0] = creator
        for seat in humans:
            if seat not in self.people:
                self.people[seat] = PlayerFactory()
            self.viewer(f"seat{seat}", self.people[seat])
        if self.s.former:
            self.viewer("former", PlayerFactory())

    def fill_seats_step(self, step: int) -> bool:
        """Seat the casual table's humans one at a time (the former occupant first sits down at
        the last open seat and leaves again). Returns True while there is more to do."""
        self.changed()
        if self.s.duplicate:
            return False
        game = Game.objects.get(pk=self.game.pk)
        if game.status != Game.Status.WAITING:
            return False
        open_seats = [
            s
            for s in self.people
            if s != 0 and not GameSeat.objects.filter(game=game, seat=s, player_id=self.people[s].pk).exists()
        ]
        former = self.viewers.get("former")
        free = [s for s in open_seats if s not in dict(self._invited())]
        if former is not None and step == 0 and len(open_seats) >= 2 and free:  # the table must not start
            game_join(game_id=game.pk, player=former.player, seat=free[-1], device_id=former.device)
            self.former_sat = True
            return True
        if former is not None and step == 1 and getattr(self, "former_sat", False):
            game_leave(game_id=game.pk, player=former.player)
            return True
        seat = open_seats[0]
        person = self.people[seat]
        viewer = self.viewers[f"seat{seat}"]
        if seat in dict(self._invited()):
            invitation = game.invitations.get(seat=seat, status="pending")
            if self.rng.random() < 0.5:
                response = viewer.api.post(
                    f"/api/invitations/{invitation.pk}/accept/", {"device_id": viewer.device}, format="json"
                )
                assert response.status_code == 200, response.content
            else:
                invitation_answer(invitation_id=invitation.pk, player=person, accept=True, device_id=viewer.device)
        else:
            response = viewer.api.post(
                f"/api/games/{game.pk}/join/", {"seat": seat, "device_id": viewer.device}, format="json"
            )
            assert response.status_code == 200, response.content
        return True

    def _invited(self):
        return self.game.invitations.values_list("seat", "player_id")

    # --- truth --------------------------------------------------------------------------------

    def truth_of(self, game: Game | None = None) -> Truth:
        return self.now(game).truth

    def changed(self) -> None:
        """Something happened: read the games again before the next check."""
        self.moments.clear()

    def now(self, game: Game | None = None) -> Moment:
        """The game (default: the observed table) as stored now, its truth and its secrets."""
        pk = (game or self.game).pk
        moment = self.moments.get(pk)
        if moment is not None:
            return moment
        game = Game.objects.get(pk=pk)
        truth = self.truths.setdefault(pk, Truth(self.s.players))
        truth.extend(
            [
                {"seq": r.seq, "type": r.type, "v": r.version, "payload": r.payload}
                for r in GameEvent.objects.filter(game_id=pk, seq__gt=truth.last_seq).order_by("seq")
            ]
        )
        holders = dict(GameSeat.objects.filter(game_id=pk, player__isnull=False).values_list("player_id", "seat"))
        moment = Moment(
            game=game,
            truth=truth,
            secrets=self._secrets(game),
            holders=holders,
            everything=game.status == Game.Status.FINISHED and not game.sealed,
        )
        self.moments[pk] = moment
        if pk == self.game.pk:
            self.truth = truth
        return moment

    def refresh_truth(self) -> Truth:
        self.changed()
        return self.now().truth

    def _secrets(self, game: Game) -> Secrets:
        always = []
        until = [game.deal_salt]
        future: list[set[str]] = []
        table = Table.objects.filter(game=game).select_related("round").first()
        if table is not None:
            round_ = table.round
            always.append(str(round_.seed))
            if round_.status != Round.Status.FINISHED:
                until.append(round_.deals_salt)
                until.append(json.dumps(round_.deals))
        dealt = GameEvent.objects.filter(game=game, type="HandDealt").count()
        players = game.rules["players"]
        for deal in (game.planned_deals or [])[dealt:]:
            # the hands only: a kitty of one or two cards matches short lists by chance (a
            # forced lead's legal_plays ["2C"]); the kitty in play is checked card by card
            future.extend(set(part) for part in deal[:players] if part)
        return Secrets(always=[v for v in always if v], until_everything=[v for v in until if v], future_hands=future)

    def secrets(self, game: Game) -> Secrets:
        return self.now(game).secrets

    def seat_now(self, viewer: Viewer, game: Game | None = None) -> int | None:
        return self.now(game).holders.get(viewer.player.pk) if viewer.player is not None else None

    def everything(self, game: Game | None = None) -> bool:
        return self.now(game).everything

    def may_watch(self, viewer: Viewer, game: Game | None = None) -> bool:
        if not self.now(game).game.sealed:
            return True
        return self.seat_now(viewer, game) is not None or viewer.label == "staff"

    def check(self, viewer: Viewer, payload, door: str, *, seat=..., seq: int | None = None, game=None) -> None:
        moment = self.now(game)
        check(
            payload,
            who=viewer.label,
            door=door,
            truth=moment.truth,
            seat=self.seat_now(viewer, game) if seat is ... else seat,
            seq=moment.truth.last_seq if seq is None else seq,
            everything=moment.everything,
            secrets=moment.secrets,
            player_id=viewer.player.pk if viewer.player is not None else None,
        )

    # --- play ---------------------------------------------------------------------------------

    def awaited(self, game: Game) -> list[int]:
        return eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda state: list(state.to_act))

    def play_one(self, game: Game, people: dict[int, Player]) -> bool:
        """One move at ``game``: a CPU's (or the stand-in's for an away seat) through its task's
        service, a human's through REST or the service. False once the game is over."""
        game = Game.objects.get(pk=game.pk)
        if game.status == Game.Status.FINISHED:
            return False
        seats = {s.seat: s for s in game.seats.select_related("player")}
        to_act = self.awaited(game)
        if not to_act:
            return False
        seat = self.rng.choice(to_act)
        row = seats[seat]
        if row.played_by_cpu:
            assert game_cpu_move(game_id=game.pk, seq=game.seq), "a CPU seat did not move"
            self.changed()
            return True
        holder = row.player
        view = eventstore.read_engine_game(game, lambda state: state.view(seat))
        command = _random_command(view, self.rng)
        self.commands += 1
        command_id = f"m{self.s.seed}-{self.commands}"
        viewer = next((v for v in self.viewers.values() if v.player is not None and v.player.pk == holder.pk), None)
        if viewer is not None and game.pk == self.game.pk and self.rng.random() < 0.5:
            reply = viewer.api.post(
                f"/api/games/{game.pk}/commands/",
                {**command, "command_id": command_id, "expected_seq": game.seq},
                format="json",
            )
            assert reply.status_code == 200, reply.content
            self.changed()
            self.check(viewer, reply.json(), "command reply")
        else:
            game_execute_command(
                game_id=game.pk, player=holder, command=command, command_id=command_id, expected_seq=game.seq
            )
            self.changed()
        return True

    def table_events(self, step: int, total_estimate: int) -> None:
        """Leaving, coming back and a director's swap, at moments drawn from the seed."""
        self.changed()
        if self.now().game.status != Game.Status.ACTIVE:
            return
        if self.s.leaver and step == total_estimate // 4:
            seat = self._human_seat(exclude=getattr(self, "swapped_seat", None))  # not a newcomer's
            if seat is not None:
                self.left = seat
                viewer = self.viewers[f"seat{seat}"]
                left = viewer.api.post(f"/api/games/{self.game.pk}/leave/")
                assert left.status_code == 200, (
                    left.json(),
                    seat,
                    viewer.player.pk,
                    list(self.game.seats.values_list("seat", "player_id", "away")),
                )
        left = getattr(self, "left", None)
        if self.s.leaver and self.s.comes_back and step == total_estimate // 2 and left is not None:
            viewer = self.viewers[f"seat{left}"]
            away = GameSeat.objects.filter(game=self.game, seat=left, away=True, player=viewer.player).exists()
            if away:  # (their socket may have taken it back already, reconnecting from their device)
                back = viewer.api.post(f"/api/games/{self.game.pk}/join/", {"device_id": viewer.device}, format="json")
                assert back.status_code == 200, back.content
        if self.s.swap and not getattr(self, "swapped", False) and self._time_to_swap(step, total_estimate):
            passed = self._passed_seats() if self.s.swap_mid_pass else None
            seat = self._human_seat(exclude=getattr(self, "left", None), among=passed)
            if seat is not None:
                self.swapped, self.swapped_seat = True, seat
                out = self.viewers.pop(f"seat{seat}")
                out.label = "former"
                self.viewers.setdefault("former-swapped", out)
                game_reassign_seat(game_id=self.game.pk, seat=seat, player=self.viewers["newcomer"].player)

    def _time_to_swap(self, step: int, total_estimate: int) -> bool:
        if not self.s.swap_mid_pass:
            return step == (2 * total_estimate) // 3
        return bool(self._passed_seats())  # someone has passed, and someone has not

    def _passed_seats(self) -> list[int]:
        def passing(state):
            seats = list(state.view(None)["passed_seats"])
            return seats if state.phase == "passing" and len(seats) < self.s.players else []

        return eventstore.read_engine_game(Game.objects.get(pk=self.game.pk), passing)

    def _human_seat(self, exclude=None, among=None) -> int | None:
        game = Game.objects.get(pk=self.game.pk)
        if game.status != Game.Status.ACTIVE:
            return None
        candidates = [
            s.seat
            for s in game.seats.select_related("player")
            if s.player and not s.player.is_cpu and not s.away and s.seat != 0 and s.seat != exclude
            if among is None or s.seat in among
        ]
        return self.rng.choice(candidates) if candidates else None

    # --- doors ---------------------------------------------------------------------------------

    def rest_doors(self, viewer: Viewer, *, level: str, game: Game | None = None) -> None:
        """``light``: one of detail, new events, a replay; ``full``: every REST door of the game;
        ``final``: those, the pages (table, replay, admin) and the tournament's doors."""
        game = self.now(game).game
        base = f"/api/games/{game.pk}"
        watch = self.may_watch(viewer, game)
        seat = self.seat_now(viewer, game)
        doors = (
            ["detail", "events", "replay"] if level != "light" else [self.rng.choice(["detail", "events", "replay"])]
        )
        if "detail" in doors:
            detail = viewer.api.get(f"{base}/")
            assert detail.status_code == 200, detail.content
            body = detail.json()
            assert body["your_seat"] == seat, (viewer.label, body["your_seat"], seat)
            if body["state"] is not None:
                assert body["state"]["seat"] == seat
            if not watch:  # nothing of a sealed table's play, result or progress
                assert body["state"] is None and {key: body[key] for key in SEALED} == dict.fromkeys(SEALED), body
            self.check(viewer, body, "game detail", game=game)
        if "events" in doors:
            events = viewer.api.get(f"{base}/events/", {"after": 0 if level != "light" else viewer.seen_events})
            if not watch:
                assert events.status_code == 403 and events.json()["code"] == "hidden_until_round_over"
            else:
                assert events.status_code == 200
                listed = events.json()["events"]
                viewer.seen_events = max([viewer.seen_events, *[e["seq"] for e in listed]])
                truth = self.now(game).truth
                player_id = viewer.player.pk if viewer.player is not None else None
                for event in listed:  # each as it stood, for the seat held at it (not the one held now)
                    self.check(
                        viewer,
                        event,
                        "events",
                        seat=truth.seat_of(player_id, event["seq"]),
                        seq=event["seq"],
                        game=game,
                    )
            rest = {key: value for key, value in events.json().items() if key != "events"}
            self.check(viewer, rest, "events", game=game)  # the rest of the body, as things are now
        if "replay" in doors and game.seq:
            self.replay_door(viewer, game, self.rng.randint(1, game.seq), watch)
        if level == "light":
            return
        if game.seq:
            self.replay_door(viewer, game, game.seq, watch)
            inside = [
                r.seq
                for r in GameEvent.objects.filter(game=game, type__in=["TrickTaken", "PassCompleted", "HandScored"])
            ]
            if inside:
                self.replay_door(viewer, game, self.rng.choice(inside) - 1, watch)
            other = self.rng.randrange(self.s.players)
            peek = viewer.api.get(f"{base}/replay/", {"seat": other})
            if watch and not self.everything(game) and other != seat:
                assert peek.status_code == 403 and peek.json()["code"] == "hidden_until_over"
            self.check(viewer, peek.json(), "replay of another seat", game=game)
        for listing in ("/api/games/", f"/api/players/{self.people[0].pk}/games"):
            listed = viewer.api.get(listing, {"player": self.people[0].pk} if listing == "/api/games/" else {})
            assert listed.status_code == 200
            mine = [g for g in listed.json()["results"] if g["id"] == game.pk]
            assert all(g["watchable"] == watch for g in mine)
            assert watch or all({key: g[key] for key in SEALED} == dict.fromkeys(SEALED) for g in mine), mine
            self.check(viewer, listed.json(), f"game list {listing}", game=game)
        export = viewer.api.get(f"{base}/export/")
        if self.everything(game):
            assert export.status_code == 200
            content = b"".join(export.streaming_content).decode()
            self.check(viewer, [json.loads(line) for line in content.splitlines()], "export", game=game)
        else:
            assert export.status_code in (403, 409)
            self.check(viewer, export.json(), "export refused", game=game)
        audit = viewer.api.get(f"{base}/audit/")
        assert audit.status_code == (200 if watch else 403)
        if watch:
            assert audit.json()["ok"], audit.json()
        self.check(viewer, audit.json(), "audit", game=game)
        # who watches: names only, and only where the table may be watched
        spectators = viewer.api.get(f"{base}/spectators/")
        assert spectators.status_code == (200 if watch else 403), spectators.content
        if watch:
            assert set(spectators.json()) == {"names", "anonymous"}
        self.check(viewer, spectators.json(), "spectators", game=game)
        # play again: refused before the end, to outsiders and for ranked or sealed games (a seated
        # player's rematch is a new game, which this match does not follow)
        if game.status != Game.Status.FINISHED or seat is None:
            again = viewer.api.post(f"{base}/rematch/", {}, format="json")
            assert again.status_code in (401, 403, 409), (viewer.label, again.content)
            self.check(viewer, again.json(), "rematch refused", game=game)
        self.analysis_doors(viewer, game, watch, start=level == "final" and viewer.label in ("staff", "seat0"))
        # a refused command: its error body
        bad = viewer.api.post(f"{base}/commands/", {"type": "play", "card": "ZZ", "command_id": "x"}, format="json")
        assert bad.status_code in (400, 401, 403, 409), bad.content
        self.check(viewer, bad.json(), "refused command", game=game)
        if level != "final":
            return
        for page in (f"/tables/{game.pk}/", f"/tables/{game.pk}/rules/", f"/games/{game.pk}/replay/"):
            html = viewer.browser.get(page)
            assert html.status_code == 200, (page, html.status_code)
            body = html.content.decode()
            if page.endswith("/rules/"):
                body = _without_rule_list(body, game)
            self.check(viewer, body, f"page {page}", game=game)
        events = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("pk", flat=True))
        sampled = self.rng.sample(events, min(3, len(events)))
        staff_outside = viewer.label == "rival" and self.s.rival_is_staff and not watch  # staff, seated in the round
        for page in (
            f"/admin/tournaments/game/{game.pk}/change/",
            f"/admin/tournaments/gameevent/?game__id__exact={game.pk}",
            *[f"/admin/tournaments/gameevent/{pk}/change/" for pk in sampled],
        ):
            html = viewer.browser.get(page)
            expected = 200 if viewer.label == "staff" or (viewer.label == "rival" and self.s.rival_is_staff) else 302
            if staff_outside and "/change/" in page:
                expected = 302  # the admin has no such row for a player of the round: to its index
            assert html.status_code == expected, (viewer.label, page, html.status_code)
            if staff_outside and "/change/" not in page:
                assert "0 game events" in html.content.decode(), page  # nor in a changelist
            self.check(viewer, admin_events(html.content.decode()), f"admin {page}", seat=None, game=game)
        if self.tournament is not None:
            self.tournament_doors(viewer)

    def analysis_doors(self, viewer, game, watch, *, start: bool) -> None:
        """The analysis reads every seat's cards: never served (nor started) for a live or sealed game."""
        door = f"/api/games/{game.pk}/analysis"
        read = viewer.api.get(door)
        if not watch:
            assert read.status_code == 403 and read.json()["code"] == "hidden_until_round_over", read.content
        elif not self.everything(game):
            assert read.status_code == 409 and read.json()["code"] in ("game_not_over", "round_not_over")
        else:
            assert read.status_code == 200, read.content
        self.check(viewer, read.json(), "analysis", game=game)
        if not self.everything(game):
            asked = viewer.api.post(door)
            assert asked.status_code in (401, 403, 409), asked.content
            assert not GameAnalysis.objects.filter(game=game).exists()
            self.check(viewer, asked.json(), "analysis refused", game=game)
        elif start:
            # leaks are checked, not precision; reviewed here, not by the embedded worker's thread
            with (
                override_settings(HEARTS_ANALYSIS_BUDGET=TINY_ANALYSIS),
                mock.patch.object(analysis_services, "scheduler", analysis_services.InlineRunner()),
            ):
                asked = viewer.api.post(door)
            assert asked.status_code in (200, 202), asked.content
            done = viewer.api.get(door).json()
            assert done["status"] == "done", done
            self.check(viewer, done, "analysis", game=game)

    def replay_door(self, viewer, game, at, watch) -> None:
        response = viewer.api.get(f"/api/games/{game.pk}/replay/", {"at": at})
        if not watch:
            assert response.status_code == 403, response.content
            self.check(viewer, response.json(), "replay refused", game=game)
            return
        assert response.status_code == 200, (at, response.content)
        body = response.json()
        # the seat held once the log was at ``at`` (a newcomer the director seated held none before)
        player_id = viewer.player.pk if viewer.player is not None else None
        held = self.now(game).truth.seat_of(player_id, at)
        assert body["view"]["seat"] == (held if not self.everything(game) else None) or self.everything(game)
        if not self.everything(game):
            assert "hands" not in body and "views" not in body
        self.check(viewer, body, f"replay at {at}", seat=held, seq=at, game=game)

    def tournament_doors(self, viewer: Viewer) -> None:
        base = f"/api/tournaments/{self.tournament.pk}"
        # a sealed table's result (its players' scores, a ruling's) is staff's who play nowhere in the round
        sealed = Round.objects.get(pk=self.round.pk).status != Round.Status.FINISHED
        sees_results = not sealed or viewer.label == "staff"
        for path in ("/", "/rounds/", "/rounds/1/tables/", "/standings/", "/rulings/", "/board/"):
            response = viewer.api.get(base + path)
            assert response.status_code == 200, (path, response.content)
            assert '"seed":' not in json.dumps(response.json()), path  # the draws' seed (not "seeding")
            if path == "/rulings/":
                assert (response.json() == []) == (not self.ruled or not sees_results), (viewer.label, response.json())
            if path == "/rounds/1/tables/" and not sees_results:
                assert [t["results"] for t in response.json()] == [[], []], (viewer.label, response.json())
            self.check(viewer, response.json(), f"tournament {path}")
        results = viewer.api.get(base + "/results/", {"format": "jsonl"})
        assert results.status_code == 200
        self.check(viewer, results.content.decode(), "tournament results")
        # the pages: the projector screen (anyone), the director's console and its prints (staff)
        pk = self.tournament.pk
        html = viewer.browser.get(f"/tournaments/{pk}/screen/")
        assert html.status_code == 200
        self.check(viewer, html.content.decode(), "screen page")
        for page in (
            f"/director/tournaments/{pk}/",
            f"/director/tournaments/{pk}/sheet/",
            f"/director/tournaments/{pk}/rounds/1/cards/",
        ):
            html = viewer.browser.get(page)
            allowed = viewer.label == "staff" or (viewer.label == "rival" and self.s.rival_is_staff)
            assert html.status_code == (200 if allowed else 302 if viewer.player is None else 403), (page, viewer.label)
            if allowed and self.ruled:  # the console's list of rulings, the printed sheet's
                assert (RULING_REASON in html.content.decode()) == sees_results or page.endswith("/cards/"), page
            self.check(viewer, html.content.decode(), f"page {page}")


_INLINE_ROW = re.compile(
    r'<td class="field-seq">\s*<p>(\d+)</p>.*?<td class="field-visible_payload">\s*<p>(.*?)</p>', re.S
)
_EVENT_PAGE = re.compile(
    r'field-seq.*?<div class="readonly">(\d+)</div>.*?field-visible_payload.*?'
    r'<div class="readonly">(.*?)</div>',
    re.S,
)


def admin_events(page: str) -> dict:
    """An admin page as the oracle reads it: each event payload shown (a game's inline rows, or an
    event's own page) as an event object with its seq, and the rest of the page as text."""
    events = []
    for pattern in (_INLINE_ROW, _EVENT_PAGE):
        for seq, payload in pattern.findall(page):
            events.append({"seq": int(seq), "type": "admin row", "payload": html.unescape(payload)})
        page = pattern.sub("", page)
    return {"events": events, "page": page}


def _without_rule_list(body: str, game: Game) -> str:
    """A table's rules page names cards (the 2♣ leads, the Q♠ scores 13): its rule list must be
    the table's rules alone, nothing of the game's state; the rest of the page meets the oracle."""
    from engine import Rules
    from web.rules import describe

    start, end = body.index('<ul class="rule-list">'), body.index("</ul>", body.index('<ul class="rule-list">'))
    shown = [
        html.unescape(re.sub(r"<[^>]+>", "", item)).strip()
        for item in re.findall(r"<li[^>]*>(.*?)</li>", body[start:end], re.S)
    ]
    row = Game.objects.get(pk=game.pk)
    said = [f"{item.title}: {item.text}" for item in describe(Rules.from_dict(row.rules), hand_limit=row.hand_limit)]
    assert [text.split(" not the default")[0] for text in shown] == said, shown
    return body[:start] + body[end:]


def _random_command(view: dict, rng: random.Random) -> dict:
    if view["phase"] == "passing":
        return {"type": "pass", "cards": rng.sample(view["hand"], 3)}
    if view["phase"] == "moon_choice":
        return {"type": "moon_choice", "choice": rng.choice(["add_to_others", "subtract_from_self"])}
    return {"type": "play", "card": rng.choice(view["legal_plays"])}


# --- the WebSocket door --------------------------------------------------------------------------


async def open_socket(match: Match, viewer: Viewer, after: int = 0) -> None:
    query = f"after={after}&device_id={viewer.device}"
    if viewer.player is not None:
        ticket = await database_sync_to_async(ws_ticket_issue)(user_id=viewer.player.user_id, game_id=match.game.pk)
        query += f"&ticket={ticket}"
    viewer.socket = WebsocketCommunicator(
        application,
        f"/ws/games/{match.game.pk}/?{query}",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await viewer.socket.connect(timeout=5)
    assert connected, viewer.label
    viewer.closed = None


async def receive(viewer: Viewer, until_seq: int | None, quiet: float = 0.05) -> list[dict]:
    """The socket's frames up to a state frame at ``until_seq`` (None: until it is quiet)."""
    frames = []
    if viewer.socket is None or viewer.closed is not None:
        return frames
    if until_seq is not None and viewer.last_state >= until_seq:
        quiet = 0.001  # it has it already: take whatever else came, without waiting
        until_seq = None
    while True:
        if until_seq is None and await viewer.socket.receive_nothing(timeout=quiet, interval=min(quiet, 0.01)):
            return frames
        try:
            message = await viewer.socket.receive_output(timeout=5)
        except TimeoutError:
            raise AssertionError(
                f"{viewer.label}'s socket sent no update for seq {until_seq}; it sent {viewer.frames[-3:]}"
            ) from None
        if message["type"] == "websocket.close":
            viewer.closed = (frames[-1]["code"] if frames and frames[-1]["type"] == "error" else "", message["code"])
            return frames
        frame = json.loads(message["text"])
        frames.append(frame)
        viewer.frames.append(frame)
        if frame["type"] == "update":
            viewer.last_seq = max(viewer.last_seq, frame["seq"])
            if frame["state"] is not None:
                viewer.last_state = max(viewer.last_state, frame["seq"])
        if until_seq is not None and frame["type"] == "update" and frame["state"] and frame["seq"] >= until_seq:
            return frames


def check_frames(match: Match, viewer: Viewer, frames: list[dict]) -> None:
    """Each frame against what was hidden after its own seq, for the seat the viewer held then."""
    moment = match.now()
    truth, secrets, everything = moment.truth, moment.secrets, moment.everything
    player_id = viewer.player.pk if viewer.player is not None else None
    for frame in frames:
        seq = frame.get("seq") or 0
        seat = truth.seat_of(player_id, seq) if seq else None
        if frame["type"] == "update":
            # each event against what was hidden after its own seq from the seat held at it (the
            # seat can change inside one update), the state against the update's own seq
            for event in frame["events"]:
                check(
                    event,
                    who=viewer.label,
                    door="websocket update",
                    truth=truth,
                    seat=truth.seat_of(player_id, event["seq"]),
                    seq=event["seq"],
                    everything=everything,
                    secrets=secrets,
                    player_id=player_id,
                )
            if frame["state"] is not None:
                assert frame["state"]["seat"] == seat, (viewer.label, frame["state"]["seat"], seat)
            frame = {key: value for key, value in frame.items() if key != "events"}
        if frame["type"] == "hello" and seq:
            assert frame["seat"] == seat, (viewer.label, frame["seat"], seat)
        check(
            frame,
            who=viewer.label,
            door=f"websocket {frame['type']}",
            truth=truth,
            seat=seat,
            seq=seq,
            everything=everything,
            secrets=secrets,
            player_id=player_id,
        )


async def drain_all(match: Match, seq: int | None) -> None:
    def watching():
        started = match.now().game.seq > 0
        return {label: (match.may_watch(v), started) for label, v in match.viewers.items()}

    flags = await database_sync_to_async(watching)()
    received = {}
    for label, viewer in list(match.viewers.items()):
        watch, started = flags[label]
        received[label] = await receive(viewer, seq if (watch and started and seq) else None)

    def check_all():
        for label, viewer in match.viewers.items():
            check_frames(match, viewer, received[label])
            if not flags[label][0]:
                assert viewer.closed is not None and viewer.closed[1] == 4403, (viewer.label, viewer.closed)

    await database_sync_to_async(check_all)()


async def run(scenario: Scenario) -> Match:
    match = Match(scenario)
    await database_sync_to_async(match.set_up)()
    await database_sync_to_async(match.refresh_truth)()
    for viewer in match.viewers.values():
        await open_socket(match, viewer)
    await drain_all(match, None)
    step = 0
    while await database_sync_to_async(match.fill_seats_step)(step):
        step += 1
        await drain_all(match, None)
    await database_sync_to_async(match.refresh_truth)()
    await drain_all(match, match.truth.last_seq)
    # commands in the game: every card of every hand, and the passes
    estimate = scenario.hands * (52 // scenario.players + (scenario.passing != "off")) * scenario.players

    def act(step):
        match.table_events(step, estimate)
        moved = match.play_one(match.game, match.people)
        match.refresh_truth()
        return moved

    def doors(step, moved):
        # every moment, one viewer asks one door; at two moments some ask every door (the pages
        # and admin pages at the end, staff always among them); each viewer kind is drawn in turn
        # so that over the games every kind asks every door at every kind of moment
        everyone = list(match.viewers.values())
        if moved and step != estimate // 2:
            match.rest_doors(match.rng.choice(everyone), level="light")
            return
        asking = match.rng.sample(everyone, min(3, len(everyone)))
        if not moved and match.viewers["staff"] not in asking:
            asking.append(match.viewers["staff"])
        for viewer in everyone:
            match.rest_doors(viewer, level=("final" if not moved else "full") if viewer in asking else "light")

    for step in range(5000):
        moved = await database_sync_to_async(act)(step)
        if scenario.reconnect and step == estimate // 3:
            for viewer in match.viewers.values():
                if viewer.socket is not None and viewer.closed is None:
                    await viewer.socket.disconnect()
                    after = 0 if viewer.label == "member" else viewer.last_seq
                    viewer.last_state = -1 if after == 0 else viewer.last_state
                    await open_socket(match, viewer, after=after)
            match.changed()  # a seat's player back on their device takes it back (SeatReclaimed)
            await database_sync_to_async(match.refresh_truth)()
        if scenario.reconnect and step == (5 * estimate) // 6:
            await resume_everyone(match)
        await drain_all(match, match.truth.last_seq)
        await database_sync_to_async(doors)(step, moved)
        if not moved:
            break
    else:
        raise AssertionError("the game did not end")
    if scenario.duplicate:
        await finish_duplicate_round(match)
    for viewer in match.viewers.values():
        if viewer.socket is not None:
            await viewer.socket.disconnect()
    return match


async def resume_everyone(match: Match, rounds: int = 3) -> None:
    """Late in the game (after the swap, the leave, the comeback): every open socket resumes,
    ``rounds`` times, from a position drawn in the game so far (the seat a viewer held there is
    the log's, not the one held now), and a viewer closed out earlier who may watch now (a
    newcomer seated at a sealed table) connects again from one. Each event they are sent is
    checked for the seat they held at it, and nobody who may watch is closed."""

    def watchers():
        return {label: match.may_watch(viewer) for label, viewer in match.viewers.items()}

    may_watch = await database_sync_to_async(watchers)()
    reopened = []
    for _ in range(rounds):
        for label, viewer in match.viewers.items():
            after = match.rng.randint(0, max(0, viewer.last_seq - 1))  # before the last: there is an update
            if viewer.socket is not None and viewer.closed is None:
                await viewer.socket.send_to(text_data=json.dumps({"type": "resume", "after": after}))
            elif may_watch[label] and viewer not in reopened:
                await open_socket(match, viewer, after=after)
                reopened.append(viewer)
            else:
                continue
            viewer.last_state = -1  # wait for the state the resume ends with
        await drain_all(match, match.truth.last_seq)
    for viewer in reopened:
        assert viewer.closed is None, (viewer.label, viewer.closed)


async def finish_duplicate_round(match: Match) -> None:
    """Table 1 is over while table 2 plays the same deals: nobody outside table 1 (staff aside)
    sees it, and table 1's players see table 2 only as it may be watched; then the round ends."""

    def play_second_table():
        game_run_finished_hooks(game_id=match.game.pk)
        table = Table.objects.get(game=match.game)
        competitions.table_rule_score(
            table_id=table.pk, seat=0, hearts_points=table.results.get(seat=0).hearts_points + 1, reason=RULING_REASON
        )
        match.ruled = True
        match.changed()
        people = dict(enumerate(match.other_people))
        rival = match.viewers["rival"]
        first = 0
        while match.play_one(match.other, people):
            first += 1
            if first in (1, 10):
                for viewer in match.viewers.values():
                    match.rest_doors(viewer, level="full" if viewer.label in ("staff", "rival", "seat0") else "light")
                    match.rest_doors(viewer, level="light", game=match.other)
        game_run_finished_hooks(game_id=match.other.pk)
        assert Round.objects.get(pk=match.round.pk).status == Round.Status.FINISHED
        match.refresh_truth()
        assert match.everything() and match.may_watch(rival)
        for viewer in match.viewers.values():
            match.rest_doors(viewer, level="final" if viewer.label in ("staff", "rival", "seat0") else "light")

    # the tournament's live board socket (public: one frame for everyone), while table 2 plays
    # table 1's deals
    board = WebsocketCommunicator(
        application,
        f"/ws/tournaments/{match.tournament.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    assert (await board.connect(timeout=5))[0]
    frame = json.loads(await board.receive_from(timeout=5))
    assert frame["type"] == "board"
    await board.disconnect()
    # both tables play the same deals: nothing of their play is on the board, only who sits
    # there and whether they play (docs/websocket.md)
    progress = ("hand_number", "phase", "to_act", "since", "waiting_on_absent", "cpu_to_act", "totals")
    assert [table["sealed"] for table in frame["tables"]] == [True, True]
    for table in frame["tables"]:
        assert {key: table[key] for key in progress} == dict.fromkeys(progress), table

    def check_board():
        match.changed()
        for viewer in match.viewers.values():
            match.check(viewer, frame, "websocket board")
            match.check(viewer, frame, "websocket board", game=match.other)

    await database_sync_to_async(check_board)()
    await database_sync_to_async(play_second_table)()


@pytest.fixture
def quiet_timers(settings, monkeypatch):
    """The test makes every move itself: no CPU task, timer or sweeper acts behind its back;
    no throttle stands in front of a door."""

    class Nothing:
        def __getattr__(self, name):
            return lambda *args, **kwargs: None

    monkeypatch.setattr(dispatch_scheduler, "backend", Nothing())
    # every viewer asks the analysis and command doors at every moment of up to 200 games:
    # the per-user throttles (tested on their own) would answer 429 instead of the door
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {**SimpleRateThrottle.THROTTLE_RATES, "commands": "100000/minute", "analysis": "100000/minute"},
    )
    settings.HEARTS_AWAY_GRACE = 10_000
    settings.HEARTS_SWEEP_GRACE = 10_000
    settings.HEARTS_WS_RATE = 1000.0
    settings.HEARTS_WS_BURST = 1000


@pytest.mark.generated
@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=MATRIX_GAMES,
    deadline=None,
    derandomize=os.environ.get("HEARTS_MATRIX_RANDOM") is None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a whole game is too slow to wait for
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(scenario=scenarios())
@example(  # every run: a duplicate round whose other table's player is staff, with a swap and a leaver
    scenario=Scenario(
        players=4,
        kitty=False,
        passing="cycle",
        hands=1,
        cpus=(),
        duplicate=True,
        rival_is_staff=True,
        leaver=True,
        comes_back=False,
        swap=True,
        swap_mid_pass=True,
        invitation=False,
        former=False,
        reconnect=True,
        seed=20261203,
    )
)
def test_no_viewer_is_shown_a_card_or_secret_it_may_not_know_through_any_door_at_any_moment(scenario, quiet_timers):
    note(repr(scenario))
    match = async_to_sync(run)(scenario)
    assert match.truth.last_seq > 10
    assert eventstore.audit_game(Game.objects.get(pk=match.game.pk)).ok
