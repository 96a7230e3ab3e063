"""The replay viewer steps through a finished game; tournament, leaderboard and player pages
show what the API holds."""

from __future__ import annotations

import json
import re
import time

from tests.web.e2e.conftest import manage, pytestmark, screenshot  # noqa: F401 - the skip marker applies here

CREATE_CPU_GAME = """async () => {
    const m = await import('/static/web/api.js');
    await m.ensureSession();
    const game = await m.api('/api/games/', {method: 'POST', body: {
        rules: {players: 4, end_score: 1},
        seats: Array(4).fill({kind: 'cpu', bot: 'rule'})}});
    return game.id;
}"""


def _history(game, mu_before, mu_after, day, provisional=True):
    """A history row as the API gives it, on glicko-elo's scale (a newcomer is 1500 ± 80)."""
    return {
        "game": game,
        "league": None,
        "seat": 0,
        "total": 20,
        "place": 1,
        "rated_players": 4,
        "mu_before": mu_before,
        "sigma_before": 80.0 - 4 * (game - 1),
        "mu_after": mu_after,
        "sigma_after": 76.0 - 4 * (game - 1),
        "played_at": f"2026-11-{day:02d}T20:00:00Z",
        "provisional": provisional,
    }


RATINGS = {
    "count": 3,
    "next": None,
    "previous": None,
    "player": 1,
    "results": [
        _history(3, 1560.0, 1610.0, 3, provisional=False),
        _history(2, 1470.0, 1560.0, 2),
        _history(1, 1500.0, 1470.0, 1),
    ],
    "ratings": [
        {
            "league": None,
            "league_name": None,
            "mu": 1610.0,
            "sigma": 68.0,
            "conservative": 1406.0,
            "inactive_days": 0,
            "games": 3,
            "provisional": False,
            "last_played_at": "2026-11-03T20:00:00Z",
            "model": "glicko-elo",
        }
    ],
}


def _board_row(rank, name, mu, sigma, rank_range):
    return {
        "rank": rank,
        "rank_range": rank_range,
        "player_id": rank,
        "name": name,
        "mu": mu,
        "sigma": sigma,
        "conservative": mu - 3 * sigma,
        "inactive_days": 0,
        "games": 40,
        "last_played_at": "2026-11-03T20:00:00Z",
    }


LEADERBOARD = {
    "league": None,
    "model": "glicko-elo",
    "min_games": 3,
    "active_days": 90,
    "provisional_games": 10,
    "ranked": [
        _board_row(1, "Ann", 1700.0, 20.0, [1, 2]),
        _board_row(2, "Bob", 1680.0, 25.0, [1, 2]),
        _board_row(3, "Cat", 1500.0, 20.0, [3, 3]),
    ],
    "provisional": [{**_board_row(None, "Dan", 1600.0, 67.0, None), "games": 4}],
}


def _finished_cpu_game(page) -> int:
    page.goto("/")
    game_id = page.evaluate(CREATE_CPU_GAME)
    deadline = time.monotonic() + 60
    while page.request.get(f"/api/games/{game_id}/").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the CPU game did not finish in 60 s"
        time.sleep(0.3)
    return game_id


def _at(page) -> int:
    return int(page.locator("#replay").get_attribute("data-at"))


def _wait_at(page, value: int):
    page.wait_for_function("(n) => document.querySelector('#replay').dataset.at === String(n)", arg=value)


def test_the_replay_viewer_steps_through_a_finished_game(page):
    game_id = _finished_cpu_game(page)
    page.goto(f"/games/{game_id}/replay/")
    page.wait_for_selector("#replay[data-at]:not([data-at=''])")
    start = _at(page)
    last = int(page.locator("#replay").get_attribute("data-last"))
    assert start < last
    # All four hands are shown, 13 cards each, right after the deal.
    for seat in range(4):
        assert page.locator(f'#seats .seat[data-seat="{seat}"] .card').count() == 13
    assert re.search(rf"[?&]at={start}\b", page.url)

    page.get_by_role("button", name="Next event").click()
    _wait_at(page, start + 1)
    assert f"at={start + 1}" in page.url and f"at={start + 1}" in page.locator("#share").inner_text()
    page.get_by_role("button", name="Previous event").click()
    _wait_at(page, start)
    page.keyboard.press("ArrowRight")
    _wait_at(page, start + 1)

    # Trick by trick: the trick is shown with its winner.
    page.get_by_role("button", name="Next trick").click()
    page.wait_for_function("(n) => Number(document.querySelector('#replay').dataset.at) > n", arg=start + 1)
    assert "took trick 1" in page.locator("#trick-caption").inner_text()
    assert page.locator("#trick .card").count() == 4
    trick_one = _at(page)
    page.get_by_role("button", name="Next trick").click()
    page.wait_for_function("(n) => Number(document.querySelector('#replay').dataset.at) > n", arg=trick_one)
    assert "took trick 2" in page.locator("#trick-caption").inner_text()
    assert page.locator('#seats .seat[data-seat="0"] .card:not(.played)').count() == 11
    screenshot(page, "replay")

    # A shared link opens the same step; the end shows the final scores.
    shared = _at(page)
    page.goto(f"/games/{game_id}/replay/?at={trick_one}")
    _wait_at(page, trick_one)
    assert "took trick 1" in page.locator("#trick-caption").inner_text()
    page.get_by_role("button", name="Last event").click()
    _wait_at(page, last)
    assert page.locator("#scores tbody tr").count() >= 1
    assert page.get_by_role("button", name="Next event").is_disabled()
    page.select_option("#hand-select", index=0)
    _wait_at(page, start)

    assert shared > trick_one
    assert not page.console_errors, page.console_errors


def test_tournament_leaderboard_and_player_pages(page, live_server_url):
    manage(
        live_server_url["env"],
        "simulate_tournament",
        "--players",
        "8",
        "--rounds",
        "2",
        "--hands",
        "1",
        "--no-progress",
        "--seed",
        "7",
    )
    page.goto("/tournaments/")
    page.locator("#tournaments a").first.click()
    page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    page.wait_for_selector("#standings-table")
    assert page.locator("#standings-table tbody tr").count() == 8
    page.wait_for_selector("#rounds h3")
    assert page.locator("#rounds h3").count() == 2
    replays = page.get_by_role("link", name=re.compile(r"Replay table \d"))
    assert replays.count() == 4
    screenshot(page, "standings")

    replays.first.click()
    page.wait_for_url(re.compile(r"/games/\d+/replay/"))
    page.wait_for_selector("#replay[data-at]:not([data-at=''])")

    page.goto("/tournaments/")
    page.locator("#tournaments a").first.click()
    page.wait_for_selector("#standings-table")
    # The rating history chart: the ratings API's answer is stubbed (tournament CPUs are not rated).
    page.route(
        re.compile(r".*/api/players/\d+/ratings.*"),
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(RATINGS)),
    )
    page.locator("#standings-table tbody a").first.click()
    page.wait_for_url(re.compile(r"/players/\d+/$"))
    page.wait_for_function("document.querySelector('#games').children.length > 0")
    assert page.locator("#p-name").inner_text().startswith("Rule CPU")
    assert page.locator("#chart svg path.line").count() == 1
    assert page.locator("#chart svg circle").count() == 4  # the start and three games
    assert "3 rated games" in page.locator("#chart svg desc").text_content()
    # provisional at the start and after the first two games: one shaded stretch, three hollow points
    assert page.locator("#chart svg rect.provisional").count() == 1
    assert page.locator("#chart svg circle[data-provisional]").count() == 3
    assert "Provisional after 2 of them" in page.locator("#chart svg desc").text_content()
    screenshot(page, "player")
    page.unroute(re.compile(r".*/api/players/\d+/ratings.*"))

    page.goto("/leaderboard/")
    page.wait_for_function("!document.querySelector('#leaderboard').textContent.includes('Loading')")
    assert page.locator("#pool option").count() >= 2
    # Each ranked player's rank range (the leaderboard is stubbed: tournament CPUs are not rated).
    page.route(
        re.compile(r".*/api/leaderboard.*"),
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(LEADERBOARD)),
    )
    page.reload()
    page.wait_for_function("document.querySelectorAll('#leaderboard tbody tr').length === 4")
    ranked = page.locator("#leaderboard table").first
    assert "Rank range" in ranked.locator("thead").inner_text()
    assert [ranked.locator("tbody tr").nth(i).locator("td").nth(1).inner_text() for i in range(3)] == [
        "1–2",
        "1–2",
        "3",
    ]
    assert page.locator("#leaderboard table").nth(1).locator("tbody tr td").nth(1).inner_text() == "–"
    screenshot(page, "leaderboard")
    page.unroute(re.compile(r".*/api/leaderboard.*"))
    assert not page.console_errors, page.console_errors


def test_an_analysed_replay_shows_each_decision_s_class_the_better_card_and_the_seats(page):
    game_id = _finished_cpu_game(page)
    page.goto(f"/games/{game_id}/replay/")
    page.wait_for_selector("#replay[data-at]:not([data-at=''])")
    start = page.get_by_role("button", name="Analyse this game")
    start.click()  # the embedded worker reviews it; the page polls its progress
    page.wait_for_selector("#analysis[data-state='done']", timeout=120_000)
    assert page.locator("#analysis-progress").is_hidden()
    assert page.locator("#analysis-summary tbody tr").count() == 4
    assert page.locator("#analysis-chart svg g[data-seat]").count() >= 1
    body = page.request.get(f"/api/games/{game_id}/analysis").json()
    assert body["status"] == "done" and len(body["decisions"]) == body["decisions_total"]
    # the step of a decision says its class (and, if it was not the best, the better option)
    decision = next((d for d in body["decisions"] if d["grade"] != "good"), body["decisions"][-1])
    page.goto(f"/games/{game_id}/replay/?at={decision['seq']}")
    _wait_at(page, decision["seq"])
    page.wait_for_selector("#analysis[data-state='done']")
    step = page.locator("#analysis-step")
    assert decision["grade"] in step.inner_text()
    if decision["grade"] != "good":
        assert "Better:" in step.inner_text()
        flagged = page.locator(f"#analysis-flagged tr[data-seq='{decision['seq']}']")
        assert flagged.count() == 1
    screenshot(page, "replay-analysis")
    assert not page.console_errors, page.console_errors
