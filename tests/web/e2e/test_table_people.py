"""The table as people come back to it: watching without an account, a guest's name, leaving,
the kitty's reveal, the seats of 3, 4 and 5 players at three widths (no two boxes overlap),
a hand played by keyboard alone, and axe-core on the pages."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tests.web.e2e.conftest import pytestmark, screenshot  # noqa: F401 - the skip marker applies here

AXE = Path(__file__).with_name("vendor") / "axe-core" / "axe.min.js"

CREATE = """async ([rules, seats]) => {
    const m = await import('/static/web/api.js');
    await m.ensureSession();
    const game = await m.api('/api/games/', {method: 'POST', body: {rules, seats, device_id: m.deviceId()}});
    return game.id;
}"""


def _cpus(count, bot="rule"):
    return [{"kind": "cpu", "bot": bot}] * count


def _new_table(page, rules, seats) -> int:
    page.goto("/")
    game_id = page.evaluate(CREATE, [rules, seats])
    page.goto(f"/tables/{game_id}/")
    page.wait_for_function("document.querySelector('#table').dataset.connection === 'open'")
    return game_id


def _state(page) -> dict:
    return page.evaluate(
        "(id) => fetch(`/api/games/${id}/`).then((r) => r.json())",
        int(page.locator("#table").get_attribute("data-game")),
    )


def _wait_my_turn(page):
    page.wait_for_function("""() => {
        const t = document.querySelector('#table');
        return t.dataset.myTurn === 'true' && t.dataset.pending === 'false';
    }""")


def _play_a_legal_card(page):
    seq = int(page.locator("#table").get_attribute("data-seq"))
    page.locator("#hand button.card.legal").first.click()
    page.wait_for_function("(seq) => Number(document.querySelector('#table').dataset.seq) > seq", arg=seq)


def _boxes(page, selector) -> list[dict]:
    return page.locator(selector).evaluate_all("""(els) => els.map((e) => {
        const r = e.getBoundingClientRect();
        return {seat: e.dataset.seat, x: r.left, y: r.top, w: r.width, h: r.height};
    })""")


def _overlap(a, b) -> bool:
    across = a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
    return across and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


def _centre(box):
    return box["x"] + box["w"] / 2, box["y"] + box["h"] / 2


def _turn(origin, a, b) -> float:
    """The angle between the directions origin->a and origin->b (radians, 0 to pi)."""
    first = math.atan2(a[1] - origin[1], a[0] - origin[0])
    second = math.atan2(b[1] - origin[1], b[0] - origin[0])
    return abs((first - second + math.pi) % (2 * math.pi) - math.pi)


def test_watching_a_table_creates_no_account(browser, live_server_url, page):
    game_id = _new_table(page, {"players": 4, "end_score": 30}, _cpus(4))
    people = page.request.get("/api/players/?cpu=false").json()["count"]
    watcher = browser.new_context(base_url=live_server_url["url"], viewport={"width": 1100, "height": 900})
    try:
        view = watcher.new_page()
        view.goto(f"/tables/{game_id}/")
        view.wait_for_function("document.querySelector('#table').dataset.connection === 'open'")
        view.wait_for_function("Number(document.querySelector('#table').dataset.seq) > 5")
        assert view.locator("#hand").inner_text().strip() == "You are watching this table."
        assert view.locator("body").get_attribute("data-player-id") == ""
        assert view.get_by_role("link", name="Sign in").is_visible()
        assert not [c for c in watcher.cookies() if c["name"] == "sessionid"]
        assert view.locator("#leave button").count() == 0  # nothing to leave
    finally:
        watcher.close()
    assert page.request.get("/api/players/?cpu=false").json()["count"] == people


def test_a_guest_picks_a_name_changes_it_leaves_and_comes_back(page):
    page.goto("/")
    page.get_by_role("button", name="Play against the CPU").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    game_id = int(page.locator("#table").get_attribute("data-game"))
    panel = page.locator("#name-panel")
    panel.wait_for(state="visible")  # a new guest is asked once
    panel.get_by_label("Name others see").fill("\u202eevil")
    panel.get_by_role("button", name="Save name").click()
    page.wait_for_function("document.querySelector('#name-panel .error').textContent.length > 0")
    panel.get_by_label("Name others see").fill("Marta")
    panel.get_by_role("button", name="Save name").click()
    panel.wait_for(state="hidden")
    assert "Marta" in page.locator("#who").inner_text()
    assert any(s["name"] == "Marta" for s in _state(page)["seats"])
    # the lobby calls the CPUs by strength, never "CPU (rule) (CPU)"
    seats = page.locator(".seat .seat-name").all_inner_texts()
    assert any("Medium CPU" in name for name in seats) and not any("(CPU)" in name for name in seats)
    page.get_by_role("button", name="Change name").click()
    panel.get_by_label("Name others see").fill("Marta R")
    panel.get_by_role("button", name="Save name").click()
    panel.wait_for(state="hidden")
    assert "Marta R" in page.locator("#who").inner_text()

    # Leaving asks first; "Stay" keeps the seat.
    page.get_by_role("button", name="Leave table").click()
    assert "A CPU will play your seat" in page.locator("#leave-question").inner_text()
    page.get_by_role("button", name="Stay").click()
    assert page.get_by_role("button", name="Leave table").is_visible()
    page.get_by_role("button", name="Leave table").click()
    page.get_by_role("button", name="Yes, leave").click()
    page.wait_for_url(re.compile(r"/\?left=\d+$"))
    detail = page.request.get(f"/api/games/{game_id}/").json()
    mine = next(s for s in detail["seats"] if s["name"] == "Marta R")
    assert mine["away"] is True  # a CPU plays it meanwhile
    screenshot(page, "lobby-after-leaving")
    page.locator(f'a[href="/tables/{game_id}/"]').first.click()
    page.wait_for_function("document.querySelector('#table').dataset.connection === 'open'")
    page.wait_for_function(
        "(id) => fetch(`/api/games/${id}/`).then((r) => r.json()).then((g) => g.seats.every((s) => !s.away))",
        arg=game_id,
    )
    assert page.locator("#table").get_attribute("data-seat") == "0"


def test_the_kitty_is_face_down_until_the_first_trick_then_face_up_with_who_took_it(page):
    _new_table(
        page, {"players": 3, "leftover": "kitty", "passing": "off", "end_score": 100}, [{"kind": "me"}, *_cpus(2)]
    )
    page.wait_for_function("document.querySelector('#table').dataset.phase === 'playing'")
    kitty = page.locator("#kitty")
    assert kitty.get_attribute("data-revealed") == "false"
    assert kitty.locator(".card.back").count() == 1 and kitty.locator(".card.face").count() == 0
    assert page.locator("#trick-log-list li").count() == 0
    while not page.locator("#trick-log-list li").count():
        _wait_my_turn(page)
        if page.locator("#trick-log-list li").count():
            break
        _play_a_legal_card(page)
    page.wait_for_function("document.querySelector('#kitty').dataset.revealed === 'true'")
    state = _state(page)["state"]
    assert kitty.locator(".card.face").evaluate_all("(els) => els.map((e) => e.dataset.card)") == state["kitty"]
    taker = state["kitty_taken_by"]
    text = kitty.inner_text()
    assert "taken by" in text and ("You" if taker == 0 else "Medium CPU") in text
    first = page.locator('#trick-log-list li[data-trick="1"]')
    page.locator("#trick-log summary").click()
    assert "With the kitty" in first.inner_text()
    screenshot(page, "table-kitty-revealed")
    assert _axe(page) == []  # a seated table with its kitty, log and hand


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_played_card_lies_in_front_of_its_player_at_three_widths(page, players):
    _new_table(page, {"players": players, "passing": "off", "end_score": 100}, [{"kind": "me"}, *_cpus(players - 1)])
    if players != 4:
        page.wait_for_function("document.querySelectorAll('#deal-info .removed .card').length > 0")
        assert page.locator("#deal-info .removed").inner_text().startswith("Out of the deck")
    _wait_my_turn(page)
    while not _state(page)["state"]["tricks"]:
        _play_a_legal_card(page)
        _wait_my_turn(page)
    if page.locator("#last-trick").is_visible():
        page.locator("#last-trick").click()
    page.wait_for_function("(n) => document.querySelectorAll('#trick .card').length === n", arg=players)
    assert page.locator("#trick .card.led").count() == 1  # the trick's leader is marked
    # a card arriving slides in, except for those who asked for less motion (a trick just taken
    # by this seat is shown nodding toward it instead: that class is taken off to look at arrival)
    animated = (
        "(el) => { el.classList.remove('to-winner'); el.classList.add('arrive');"
        " return getComputedStyle(el).animationName; }"
    )
    assert page.locator("#trick .card").first.evaluate(animated) == "arrive"
    page.emulate_media(reduced_motion="reduce")
    assert page.locator("#trick .card").first.evaluate(animated) == "none"
    page.emulate_media(reduced_motion="no-preference")
    for width, height in [(1280, 900), (768, 1000), (390, 844)]:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)
        screenshot(page, f"table-{players}-seats-{width}")
        cards, seats = _boxes(page, "#trick .card"), _boxes(page, "#seats .seat")
        assert len(cards) == players and len(seats) == players
        every = cards + seats
        for i, a in enumerate(every):
            for b in every[i + 1 :]:
                assert not _overlap(a, b), (players, width, a, b)
        felt = page.locator(".felt").bounding_box()
        middle = (felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2)
        for card in cards:  # seen from the middle of the table, each card points at its own player
            nearest = min(seats, key=lambda seat: _turn(middle, _centre(card), _centre(seat)))
            assert nearest["seat"] == card["seat"], (players, width, card, seats)
        assert all(b["x"] >= felt["x"] - 1 and b["x"] + b["w"] <= felt["x"] + felt["width"] + 1 for b in every)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), width
        assert page.evaluate(
            "(() => { const s = document.querySelector('#scores .scroll');"
            " return s.scrollWidth <= s.clientWidth + 1; })()"
        ), width


def test_a_whole_hand_played_with_the_keyboard_alone(page):
    _new_table(page, {"players": 4, "end_score": 100}, [{"kind": "me"}, *_cpus(3)])
    page.wait_for_function("document.querySelector('#table').dataset.canPass === 'true'")
    assert page.get_by_role("button", name="Sound: off").get_attribute("aria-pressed") == "false"  # off by default
    for _ in range(60):  # Tab until the hand has focus: it is a single tab stop
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#hand') !== null"):
            break
    assert page.evaluate("document.activeElement.closest('#hand') !== null")
    assert page.locator("#hand button.card[tabindex='0']").count() == 1
    first = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert re.fullmatch(r"(\d+|Jack|Queen|King|Ace) of (clubs|diamonds|spades|hearts)", first), first
    for _ in range(3):  # pick three cards to pass: Enter, then the next card
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowRight")
    assert page.locator('#hand button.card[aria-pressed="true"]').count() == 3
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "pass-button"
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#table').dataset.phase === 'playing'")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('#hand') !== null")
    plays = 0
    while True:
        page.wait_for_function("""() => {
            const t = document.querySelector('#table');
            return (t.dataset.myTurn === 'true' && t.dataset.pending === 'false')
                || document.querySelectorAll('#scores tbody tr:not(.current)').length >= 1;
        }""")
        if page.locator("#scores tbody tr:not(.current)").count() >= 1:
            break
        assert page.evaluate("document.activeElement.closest('#hand') !== null"), "focus stays in the hand"
        page.keyboard.press("Home")
        for _ in range(14):
            if page.evaluate("document.activeElement.classList.contains('legal')"):
                break
            page.keyboard.press("ArrowRight")
        seq = int(page.locator("#table").get_attribute("data-seq"))
        page.keyboard.press("Enter")
        page.wait_for_function("(seq) => Number(document.querySelector('#table').dataset.seq) > seq", arg=seq)
        plays += 1
    assert plays == 13
    assert page.locator("#announce p").count() >= 1  # plays are read out
    assert re.search(r"played the (\d+|Jack|Queen|King|Ace) of", page.locator("#announce").inner_text())


def _axe(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})
        .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                               target: v.nodes[0] && v.nodes[0].target})))""")
    return [v for v in result if v["impact"] in ("serious", "critical")]


def test_axe_finds_no_serious_or_critical_violation(page):
    page.goto("/")
    page.wait_for_function("!document.querySelector('#open-tables').textContent.includes('Loading')")
    assert _axe(page) == []
    game_id = page.evaluate(CREATE, [{"players": 4, "end_score": 1}, _cpus(4)])
    page.goto(f"/tables/{game_id}/")
    page.wait_for_function("Number(document.querySelector('#table').dataset.seq) > 5")
    assert _axe(page) == []
    page.wait_for_function(
        "(id) => fetch(`/api/games/${id}/`).then((r) => r.json()).then((g) => g.status === 'finished')", arg=game_id
    )
    page.goto(f"/games/{game_id}/replay/")
    page.wait_for_function("document.querySelector('#replay').dataset.at !== ''")
    assert _axe(page) == []
    rules = page.request.get("/rules/")
    if rules.status == 200:  # the rules page, where this branch has it
        page.goto("/rules/")
        assert _axe(page) == []


def _play_to_the_end(page):
    while page.locator("#table").get_attribute("data-status") != "finished":
        page.wait_for_function(
            """() => {
            const t = document.querySelector('#table');
            return t.dataset.status === 'finished' || (t.dataset.myTurn === 'true' && t.dataset.pending === 'false');
        }""",
            timeout=60000,
        )
        if page.locator("#table").get_attribute("data-status") == "finished":
            break
        _play_a_legal_card(page)


def test_spectators_are_listed_and_the_same_players_play_again(browser, live_server_url, page):
    def context():
        return browser.new_context(base_url=live_server_url["url"], viewport={"width": 1100, "height": 900})

    game_id = _new_table(
        page,
        {"players": 3, "passing": "off", "end_score": 1},
        [{"kind": "me"}, {"kind": "open"}, {"kind": "cpu", "bot": "rule"}],
    )
    other_context, fan_context, anonymous_context = context(), context(), context()
    try:
        other = other_context.new_page()
        other.goto(f"/tables/{game_id}/")  # watching first: no account yet
        other.get_by_role("button", name="Sit here").click()  # sitting down makes a guest
        other.wait_for_function("document.querySelector('#table').dataset.seat === '1'")
        other.get_by_role("button", name="Not now").click()
        # the second player leaves at once: a CPU plays their seat
        other.get_by_role("button", name="Leave table").click()
        other.get_by_role("button", name="Yes, leave").click()
        other.wait_for_url(re.compile(r"/\?left=\d+$"))

        fan = fan_context.new_page()
        fan.goto("/")
        fan.evaluate("""async () => {
            const m = await import('/static/web/api.js');
            await m.ensureSession();
            await m.api('/api/players/me/', {method: 'PATCH', body: {display_name: 'Watcher Wu'}});
        }""")
        fan.goto(f"/tables/{game_id}/")
        anonymous = anonymous_context.new_page()
        anonymous.goto(f"/tables/{game_id}/")
        spectators = page.locator("#spectators")
        page.wait_for_function("document.querySelector('#spectators').dataset.count === '2'")
        assert spectators.inner_text() == "Watching: Watcher Wu, 1 without an account"
        screenshot(page, "table-spectators")
        anonymous_context.close()
        page.wait_for_function("document.querySelector('#spectators').dataset.count === '1'")

        _play_to_the_end(page)
        other.goto(f"/tables/{game_id}/")  # back at the finished table
        other.wait_for_function("document.querySelector('#table').dataset.status === 'finished'")
        assert other.get_by_role("button", name="Play again").is_visible()
        assert fan.get_by_role("button", name="Play again").count() == 0  # a spectator is not offered it
        page.get_by_role("button", name="Play again").click()
        page.wait_for_url(lambda url: re.search(r"/tables/\d+/$", url) and f"/tables/{game_id}/" not in url)
        rematch = int(page.locator("#table").get_attribute("data-game"))
        assert rematch != game_id
        page.wait_for_function("document.querySelector('#seating').textContent.includes('held for')")
        # the other player's page is told (socket push) and offers the new table
        other.get_by_role("button", name="Join the new table").click()
        other.wait_for_url(f"**/tables/{rematch}/")
        for each in (page, other):
            each.wait_for_function("document.querySelector('#table').dataset.status === 'active'")
        assert other.locator("#table").get_attribute("data-seat") == "1"
        fan.wait_for_function("document.querySelector('#after-game a[href^=\"/tables/\"]') !== null")
        screenshot(page, "table-played-again")
    finally:
        for each in (other_context, fan_context):
            each.close()
