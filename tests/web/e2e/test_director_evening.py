"""A whole club evening in Chromium: the director creates a Swiss tournament in the console,
12 players (browser contexts) take part over 3 rounds with one late entry and one withdrawal,
tables of 4 and 3 by the seating rule, the live board changes as tables finish, and the final
standings (worked out here from the results export) are the API's and the projector screen's.
Screenshots of the console, the board, a player's page and the screen are kept."""

from __future__ import annotations

import csv
import io
import time
from collections import defaultdict
from fractions import Fraction

from tests.web.e2e.conftest import pytestmark, screenshot  # noqa: F401 - the skip marker applies here

PASSWORD = "evening password 12"
POINTS = {3: (4, 2, 0), 4: (4, 2, 1, 0)}  # the defaults (tournaments.competitions.standings.DEFAULT_POINTS_BY_PLACE)


class Player:
    """One player's browser: a signed-in page and an API token for playing their seat."""

    def __init__(self, browser, base: str, name: str):
        self.context = browser.new_context(base_url=base, viewport={"width": 1100, "height": 800})
        self.context.set_default_timeout(15000)
        self.name = name
        created = self.context.request.post(
            "/api/auth/register", data={"username": name.lower(), "password": PASSWORD, "display_name": name}
        )
        assert created.status == 201, created.text()
        body = created.json()
        self.token, self.player_id = body["token"], body["player_id"]
        self.page = self.context.new_page()
        self.page.goto("/tournaments/")
        self.page.evaluate(
            """async (token) => {
            const m = await import('/static/web/api.js');
            await m.api('/web/session', {method: 'POST', body: {token}});
        }""",
            self.token,
        )

    def api(self, method: str, path: str, body=None):
        # the session (signed in above) authenticates first: it needs the CSRF token on writes
        csrf = next((c["value"] for c in self.context.cookies() if c["name"] == "csrftoken"), "")
        headers = {"Authorization": f"Token {self.token}", "X-CSRFToken": csrf}
        response = self.context.request.fetch(path, method=method, data=body, headers=headers)
        assert response.ok, (path, response.status, response.text())
        return response.json()


def _legal(state: dict) -> dict:
    if state["phase"] == "passing":
        return {"type": "pass", "cards": state["hand"][:3]}
    if state["phase"] == "moon_choice":
        return {"type": "moon_choice", "choice": "add_to_others"}
    return {"type": "play", "card": state["legal_plays"][0]}


def play_table(table: dict, players: dict[int, Player]) -> None:
    """Every seated player plays their turn through the API until the table's game is over (the
    next to act is guessed as the seat after the last one, and asked when the guess is wrong)."""
    game = table["game"]
    seated = {seat["seat"]: players[seat["player_id"]] for seat in table["seats"]}
    guess = 0
    for step in range(400):
        body = seated[guess].api("GET", f"/api/games/{game}/")
        if body["status"] == "finished":
            return
        seat = body["state"]["to_act"][0]
        state = body["state"] if seat == guess else seated[seat].api("GET", f"/api/games/{game}/")["state"]
        seated[seat].api("POST", f"/api/games/{game}/commands/", {**_legal(state), "command_id": f"e{game}-{step}"})
        guess = (seat + 1) % len(seated)
    raise AssertionError(f"table {table['number']} did not finish")


def wait_for(page, script: str, arg=None, timeout=30000):
    page.wait_for_function(script, arg=arg, timeout=timeout)


def worked_standings(rows: list[dict]) -> list[tuple[str, float, int]]:
    """Table points by place (shared places share their points) and Hearts points, summed per
    player: (name, table points, Hearts points), best first, as the standings order them."""
    tables = defaultdict(list)
    for row in rows:
        tables[(row["round"], row["table"])].append(row)
    points, hearts = defaultdict(Fraction), defaultdict(int)
    for seats in tables.values():
        scale = POINTS[len(seats)]
        totals = sorted(int(s["hearts_points"]) for s in seats)
        for seat in seats:
            mine = int(seat["hearts_points"])
            first = totals.index(mine)
            tied = totals.count(mine)
            points[seat["player"]] += Fraction(sum(scale[first : first + tied]), tied)
            hearts[seat["player"]] += mine
    return sorted(((name, float(points[name]), hearts[name]) for name in points), key=lambda line: (-line[1], line[2]))


def test_a_directors_evening(browser, live_server_url):
    base = live_server_url["url"]
    director = browser.new_context(base_url=base, viewport={"width": 1280, "height": 1000})
    director.set_default_timeout(15000)
    console = director.new_page()
    console.goto("/web/login?next=/director/")
    console.fill('input[name="username"]', "director")
    console.fill('input[name="password"]', "hearts-demo")
    console.click('form:has(input[name="password"]) button[type="submit"]')  # not the header's language switch
    console.wait_for_url("**/director/")

    # The tournament form: a mistake shows on its field and creates nothing, then the real one.
    console.click("text=New tournament")
    console.select_option('select[name="league"]', label="Demo Hearts Club / Thursday League")
    console.fill('input[name="name"]', "Thursday night")
    console.select_option('select[name="seeding"]', "lot")
    console.fill('input[name="rounds_planned"]', "3")
    console.select_option('select[name="round_mode"]', "fixed_hands")
    console.fill('input[name="hands_per_round"]', "1")
    console.select_option('select[name="rule_passing"]', "off")
    console.fill('input[name="rule_end_score"]', "0")
    console.fill('input[name="seed"]', "20")
    console.click("text=Create the tournament")
    assert console.locator("#field-rule_end_score .errorlist").is_visible()
    screenshot(console, "director-form-error")
    console.fill('input[name="rule_end_score"]', "100")
    console.click("text=Create the tournament")
    console.wait_for_url("**/director/tournaments/*/")
    tournament = int(console.locator("#console").get_attribute("data-tournament"))
    console_url = console.url

    # Eleven players sign up; ten register themselves, the director finds the eleventh.
    names = ["Ana", "Beto", "Clara", "Dario", "Eva", "Fede", "Gala", "Hugo", "Ines", "Juan", "Kiko", "Luz"]
    players = {}
    for name in names[:11]:
        player = Player(browser, base, name)
        players[player.player_id] = player
    for player in list(players.values())[:10]:
        player.api("POST", f"/api/tournaments/{tournament}/register/", {})
    console.goto(console_url + "?q=kiko")
    console.click("#found button:has-text('register')")
    console.wait_for_selector("#registrations tr:has-text('Kiko')")
    assert console.locator("#registrations tbody tr").count() == 11

    screen_context = browser.new_context(base_url=base, viewport={"width": 1920, "height": 1080})
    screen = screen_context.new_page()
    screen.goto(f"/tournaments/{tournament}/screen/")
    for player in players.values():
        player.page.goto(f"/tournaments/{tournament}/")

    def run_round(number: int, sizes: list[int]) -> None:
        console.click("#start-round")
        console.wait_for_url(console_url)
        wait_for(console, "(n) => document.querySelector('#board').dataset.round === String(n)", number)
        board = players[next(iter(players))].api("GET", f"/api/tournaments/{tournament}/board/")
        assert board["round"]["number"] == number
        assert sorted((len(t["seats"]) for t in board["tables"]), reverse=True) == sizes
        # every player of the round is told where to sit, over the socket
        for table in board["tables"]:
            for seat in table["seats"]:
                page = players[seat["player_id"]].page
                wait_for(
                    page,
                    "(at) => { const you = document.getElementById('you'); return !you.hidden && "
                    "you.dataset.table === String(at[0]) && you.dataset.seat === String(at[1]); }",
                    [table["number"], seat["seat"] + 1],
                )
        if number == 1:
            screenshot(players[board["tables"][0]["seats"][1]["player_id"]].page, "director-player-page")
        wait_for(console, f"document.querySelectorAll('#board .board-table').length === {len(sizes)}")
        for index, table in enumerate(board["tables"]):
            play_table(table, players)
            # the board shows this table finished while the others still play
            wait_for(
                console,
                "(n) => { const t = document.querySelector(`#board [data-table='${n}']`); "
                "return t && t.dataset.status === 'finished'; }",
                table["number"],
            )
            if index == 0 and len(board["tables"]) > 1:
                assert console.locator("#board [data-status='playing']").count() == len(sizes) - 1
                if number == 1:
                    screenshot(console, "director-board")
        deadline = time.monotonic() + 30
        while (
            players[next(iter(players))].api("GET", f"/api/tournaments/{tournament}/rounds/")[-1]["status"]
            != "finished"
        ):
            assert time.monotonic() < deadline, f"round {number} did not finish"
            time.sleep(0.3)
        console.goto(console_url)

    run_round(1, [4, 4, 3])  # 11 players: two tables of 4 and one of 3 (the "smaller" rule)

    # A late entry: Luz arrives for round 2; the director registers her from the search.
    luz = Player(browser, base, "Luz")
    players[luz.player_id] = luz
    luz.page.goto(f"/tournaments/{tournament}/")
    console.goto(console_url + "?q=luz")
    console.click("#found button:has-text('register')")
    console.wait_for_selector("#registrations tr:has-text('Luz')")
    run_round(2, [4, 4, 4])

    # A withdrawal before round 3: Beto goes home.
    beto = next(p for p in players.values() if p.name == "Beto")
    console.click(f"#registrations tr[data-player='{beto.player_id}'] button:has-text('withdraw')")
    console.wait_for_selector(f"#registrations tr[data-player='{beto.player_id}']:has-text('Withdrawn')")
    run_round(3, [4, 4, 3])
    screenshot(console, "director-console")

    # The standings: worked out from every seat's result, as the API and the screen give them.
    export = luz.context.request.get(f"/api/tournaments/{tournament}/results/?format=csv").text()
    rows = list(csv.DictReader(io.StringIO(export)))
    assert len(rows) == 11 + 12 + 11
    expected = worked_standings(rows)
    standings = luz.api("GET", f"/api/tournaments/{tournament}/standings/")
    # the order by table points, then Hearts points; players level on both are ordered by the
    # later tiebreaks (opponents' strength, head to head), so they are compared as a group
    assert [(line["table_points"], line["hearts_points"]) for line in standings] == [e[1:] for e in expected]
    by_score = defaultdict(set)
    for name, points, hearts in expected:
        by_score[(points, hearts)].add(name)
    for line in standings:
        assert line["name"] in by_score[(line["table_points"], line["hearts_points"])]
    assert len({line["name"] for line in standings}) == 12
    assert sum(1 for line in standings if line["games"] == 3) == 10  # Luz played 2 rounds, Beto 2
    assert {line["name"]: line["games"] for line in standings}["Luz"] == 2
    assert next(line for line in standings if line["name"] == "Beto")["withdrawn"] is True

    wait_for(
        screen,
        "document.getElementById('screen').dataset.page === 'standings' && "
        "document.querySelectorAll('#s-standings tbody tr').length === 12",
        timeout=40000,
    )
    shown = screen.locator("#s-standings tbody tr td.name").all_inner_texts()
    assert [name.replace(" (withdrawn)", "") for name in shown] == [line["name"] for line in standings]
    assert screen.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    screenshot(screen, "director-screen")
    for context in [director, screen_context, *(p.context for p in players.values())]:
        context.close()


SEAT_45 = """
from tournaments.models import League, Player
from tournaments.competitions import services
t = services.tournament_create(league=League.objects.get(slug="thursday-league"), name="Big night", seed=9,
                               round_mode="fixed_hands", hands_per_round=1, seeding="lot")
for i in range(45):
    services.tournament_register(tournament_id=t.pk, player=Player.objects.create(bot_kind="rule",
                                                                              display_name=f"Screen CPU {i:02d}"))
print(t.pk)
"""


def test_the_screen_pages_through_45_players_without_scrolling_at_1920x1080(browser, live_server_url):
    from tests.web.e2e.conftest import manage

    tournament = int(manage(live_server_url["env"], "shell", "-c", SEAT_45).strip().splitlines()[-1])
    context = browser.new_context(base_url=live_server_url["url"], viewport={"width": 1920, "height": 1080})
    screen = context.new_page()
    screen.goto(f"/tournaments/{tournament}/screen/?every=4")
    wait_for(screen, "document.querySelectorAll('#s-standings tbody tr').length === 40")
    assert screen.locator("#s-page").inner_text() == "1 / 2"
    assert screen.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    last = screen.locator("#s-standings tbody tr").last.bounding_box()
    assert last["y"] + last["height"] <= 1080
    screenshot(screen, "director-screen-40")
    wait_for(screen, "document.querySelectorAll('#s-standings tbody tr').length === 5", timeout=20000)
    assert screen.locator("#s-page").inner_text() == "2 / 2"
    # the round starts (CPUs play it): its 12 tables are two more pages of at most 10
    # (through the server: without Redis another process's notifications do not reach its sockets)
    token = context.request.post("/api/auth/token", data={"username": "director", "password": "hearts-demo"})
    started = context.request.post(
        f"/api/tournaments/{tournament}/start-round/", headers={"Authorization": f"Token {token.json()['token']}"}
    )
    assert started.status == 201, started.text()
    wait_for(
        screen,
        "document.getElementById('screen').dataset.page === 'tables' && "
        "document.querySelectorAll('#s-tables article').length === 10",
        timeout=40000,
    )
    assert screen.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    boxes = screen.locator("#s-tables article li").evaluate_all(
        "(els) => els.map((e) => e.getBoundingClientRect().bottom)"
    )
    assert max(boxes) <= 1080
    screenshot(screen, "director-screen-tables")
    context.close()
