"""A guest plays a hand against three CPUs in a real browser: pass, play every card by clicking
highlighted cards, an illegal click, a reload and a dropped connection in mid-hand, the scores."""

from __future__ import annotations

import re

from tests.web.e2e.conftest import pytestmark, screenshot  # noqa: F401 - the skip marker applies here

TABLE = "#table"


def _table(page):
    return page.locator(TABLE)


def _wait_for_my_turn_or_score(page, hand_number: int):
    """Until it is my turn to play, or the hand has been scored."""
    page.wait_for_function(
        """(hand) => {
            const t = document.querySelector('#table');
            const scored = document.querySelectorAll('#scores tbody tr:not(.current)').length >= hand;
            return scored || (t.dataset.myTurn === 'true' && t.dataset.pending === 'false');
        }""",
        arg=hand_number,
    )
    return page.locator("#scores tbody tr:not(.current)").count() >= hand_number


def _hand_cards(page) -> list[str]:
    return page.locator("#hand button.card").evaluate_all("(els) => els.map((e) => e.dataset.card)")


def _trick_cards(page) -> list[str]:
    return page.locator("#trick .card").evaluate_all("(els) => els.map((e) => e.dataset.card)")


def _play_one_legal_card(page) -> str:
    seq = int(_table(page).get_attribute("data-seq"))
    card = page.locator("#hand button.card.legal").first
    name = card.get_attribute("data-card")
    card.click()
    page.wait_for_function("(seq) => Number(document.querySelector('#table').dataset.seq) > seq", arg=seq)
    return name


def test_play_a_hand_against_three_cpus(page):
    page.goto("/")
    page.get_by_role("button", name="Play against the CPU").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    table = _table(page)
    page.wait_for_function("document.querySelector('#table').dataset.canPass === 'true'")
    assert table.get_attribute("data-phase") == "passing"
    assert page.locator("#hand button.card").count() == 13
    assert (
        page.locator("#hand button.card")
        .first.get_attribute("aria-label")
        .endswith(("of clubs", "of diamonds", "of spades", "of hearts"))
    )

    # Choose three cards to pass; the pass button says where they go.
    pass_button = page.locator("#pass-button")
    assert pass_button.is_disabled()
    cards = page.locator("#hand button.card")
    for index in range(3):
        cards.nth(index).click()
    assert page.locator('#hand button.card[aria-pressed="true"]').count() == 3
    passed = page.locator('#hand button.card[aria-pressed="true"]').evaluate_all(
        "(els) => els.map((e) => e.dataset.card)"
    )
    pass_button.click()
    page.wait_for_function("document.querySelector('#table').dataset.phase === 'playing'")
    hand_now = _hand_cards(page)
    assert not set(passed) & set(hand_now)
    assert len(hand_now) == 13
    assert page.locator("#hand .received").count() == 3

    # An illegal click: the server's message shows in the alert region and nothing is played.
    illegal_checked = False
    plays = 0
    scored = False
    while not scored:
        scored = _wait_for_my_turn_or_score(page, 1)
        if scored:
            break
        if not illegal_checked and page.locator("#hand button.card.illegal").count():
            seq = _table(page).get_attribute("data-seq")
            page.locator("#hand button.card.illegal").first.click()
            page.wait_for_function("document.querySelector('#table').dataset.lastError !== undefined")
            message = page.locator("#error").inner_text()
            assert message, "an illegal card shows a message"
            assert page.locator("#error").get_attribute("role") == "alert"
            assert _table(page).get_attribute("data-seq") == seq
            illegal_checked = True
            screenshot(page, "table-illegal-move")
        if plays == 5:
            screenshot(page, "table-mid-hand")
            # A reload in mid-hand resumes where it was: same cards, same trick, still my turn.
            before_hand = _hand_cards(page)
            before_trick = _trick_cards(page)
            page.reload()
            page.wait_for_function("document.querySelector('#table').dataset.connection === 'open'")
            _wait_for_my_turn_or_score(page, 1)
            assert _hand_cards(page) == before_hand
            assert _trick_cards(page) == before_trick
        if plays == 8:
            # A dropped connection reconnects by itself and catches up from the last seq.
            page.evaluate("window.heartsTable.dropConnection()")
            page.wait_for_function("document.querySelector('#table').dataset.connection === 'closed'")
            page.wait_for_function("document.querySelector('#table').dataset.connection === 'open'")
        _play_one_legal_card(page)
        plays += 1

    assert plays == 13
    assert illegal_checked, "some turn had a card that could not be played"
    # The scores: hand 1 per seat, totals; 26 points went somewhere (or the moon was shot).
    page.wait_for_function("document.querySelectorAll('#scores tbody tr:not(.current)').length >= 1")
    row = page.locator("#scores tbody tr:not(.current)").first
    points = [int(cell.split()[0]) for cell in row.locator("td").all_inner_texts()]
    assert sum(points) in (26, 78)
    assert page.locator("#scores tfoot td").count() == 4
    page.wait_for_function("document.querySelector('#table').dataset.hand === '2'")
    screenshot(page, "table")
    # On a phone: the hand wraps and every card stays a large enough tap target.
    page.set_viewport_size({"width": 390, "height": 844})
    sizes = page.locator("#hand button.card").evaluate_all(
        "(els) => els.map((e) => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
    )
    assert sizes and all(w >= 44 and h >= 44 for w, h in sizes)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    screenshot(page, "table-phone")
    assert not page.console_errors, page.console_errors
