"""Every page a viewer can reach by following links, from the site's lobby and the admin's index,
checked for what that viewer may not know: the guard for the doors no one listed.

Django's admin renders rows by name, lists related rows on its delete confirmations, links
filters, sorts, histories and "view on site" redirects; the site's pages link tables, replays,
tournaments and players. The other who-sees-what tests ask the doors they name; this one asks
whatever a page links to, as each kind of viewer, at a duplicate round's two moments that
matter most: the other table in the middle of the deal, and that table finished and ruled on
while this one has not played a card. Every page must answer without a server error, and no
page may show the viewer a card it cannot know (by name: a card it holds, or one played where
it may watch), the round's seed, a salt or a deal, or a sealed table's ruling. Every query
parameter the pages use is then asked again with hostile values, and every id made huge.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import pytest
from django.test import Client

from engine.cards import NAMES
from tests.tournaments.reliability.oracle import card_names
from tests.tournaments.reliability.test_fair_play import _duplicate_round, _play_table
from tests.tournaments.reliability.test_sealed_tables import _move
from tests.tournaments.reliability.test_who_sees_what import _without_rule_list
from tournaments.competitions import services as competitions
from tournaments.games import eventstore
from tournaments.models import Game, GameEvent, Round

RULING_MARKER = "Ruled on at table two: revoke"
ALL_CARDS = frozenset(NAMES)
# Pages with no game state that name cards as the rules do ("the 2♣ leads", the API's examples):
# fetched like any other (no server error, no secret), not read for cards.
RULES_TEXT = re.compile(r"^/(rules|reglas)/$|^/api/(schema|docs|redoc)/$|^/web/jsi18n$")
NOT_FOLLOWED = re.compile(r"logout|^/static/|^/media/|^/web/(session|language)")
PAGES_PER_SHAPE = 40  # an event's pages, a player's: enough of each kind
QUERIES_PER_SHAPE = 4  # a changelist filtered by one value of a filter shows what the others do
PAGES_AT_MOST = 1500
# Sorting a list, its facet counts and the filters a change page carries back to its list show
# the rows the plain list and its filters show.
_SAME_ROWS = frozenset({"o", "_facets", "_changelist_filters"})
# Code, drawings, the names of fields and choices and their help (the lobby's "Black Maria (K♠ 10,
# A♠ 7)", a form's "playing QS breaks hearts", its placeholder "2D 2C"): not state; what a page
# shows of a game is its text and values around them.
_NOT_STATE = re.compile(
    r"<(script|style|svg|label|option)\b.*?</\1>"
    r"|<(div|span|p)\b[^>]*\bclass=\"[^\"]*\bhelp(?:text)?\b[^\"]*\"[^>]*>.*?</\2>"
    r"|\bplaceholder=\"[^\"]*\"",
    re.S | re.I,
)
# Hashes, tokens and salts in base64 ("...+/2C+..."), masked or not (a password hash's summary
# shows an MD5 salt as its first two characters and asterisks, "JD********"): random, not cards.
_OPAQUE = re.compile(r"[A-Za-z0-9+/=_$.*-]{16,}")
_LINK = re.compile(r"""\bhref=["']([^"'#]*)""")


@dataclass
class Crawl:
    """What one viewer reached, and what it was shown."""

    visited: list[str] = field(default_factory=list)
    answered: dict[str, int] = field(default_factory=dict)  # page -> its status
    came_from: dict[str, str] = field(default_factory=dict)  # page -> the page that linked it
    statuses: Counter = field(default_factory=Counter)
    cards_seen: dict[str, set[str]] = field(default_factory=dict)  # path -> card names on it
    texts: dict[str, str] = field(default_factory=dict)


def _shape(url: str) -> str:
    """The URL with its numbers and query values taken out: pages of one kind share a shape."""
    parts = urlsplit(url)
    keys = sorted(pair.split("=")[0] for pair in parts.query.split("&") if pair)
    return re.sub(r"\d+", "N", parts.path) + "?" + "&".join(keys)


def crawl(browser: Client, starts: list[str]) -> Crawl:
    """Follow every link within the site (GET only) from ``starts``, breadth first; a server
    error raises (the test client re-raises it)."""
    seen, shapes, queue, found = set(starts), Counter(), list(starts), Crawl()
    while queue and len(found.visited) < PAGES_AT_MOST:
        url = queue.pop(0)
        response = browser.get(url)
        found.visited.append(url)
        found.statuses[response.status_code] += 1
        found.answered[url] = response.status_code
        assert response.status_code < 500, (url, response.status_code, found.came_from.get(url))
        if response.status_code in (301, 302, 303, 307, 308):
            targets = [response["Location"]]
            text = ""
        else:
            text = response.content.decode("utf-8", "replace")
            targets = _LINK.findall(text)
            found.texts[url] = text
        for target in targets:
            absolute = urljoin(url, html.unescape(target))
            parts = urlsplit(absolute)
            if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
                continue  # another site, a data: image, a mailto:
            if NOT_FOLLOWED.search(parts.path):
                continue
            query = "&".join(pair for pair in parts.query.split("&") if pair and pair.split("=")[0] not in _SAME_ROWS)
            local = parts.path + (f"?{query}" if query else "")
            if local in seen or shapes[_shape(local)] >= (QUERIES_PER_SHAPE if query else PAGES_PER_SHAPE):
                continue
            seen.add(local)
            found.came_from[local] = url
            shapes[_shape(local)] += 1
            queue.append(local)
    assert not queue, f"the crawl stopped at {PAGES_AT_MOST} pages with {len(queue)} to go: raise the cap"
    return found


HOSTILE_VALUES = ("9" * 30, "zz'\"<b>", "-1", "%00", "a" * 3000)


def ask_hostile(browser: Client, found: Crawl) -> int:
    """Every query parameter of every page ``found`` reached, given hostile values in turn (a
    huge number, markup, a negative, a NUL, a long text), and every path's numbers made huge: no
    answer is a server error. Returns how many were asked."""
    asked = set()
    for url in found.visited:
        parts = urlsplit(url)
        pairs = [pair.split("=", 1)[0] for pair in parts.query.split("&") if pair]
        for key in pairs:
            for value in HOSTILE_VALUES:
                asked.add(f"{parts.path}?{key}={value}")
        asked.add(re.sub(r"/\d+/", "/" + "9" * 30 + "/", parts.path))
    for url in sorted(asked):
        response = browser.get(url)
        assert response.status_code < 500, (url, response.status_code)
    return len(asked)


def shown_cards(path: str, text: str) -> set[str]:
    """The card names a page shows as state (not the rules' own wording)."""
    path = urlsplit(path).path
    if RULES_TEXT.search(path):
        return set()
    if table_rules := re.fullmatch(r"/tables/(\d+)/rules/", path):
        text = _without_rule_list(text, Game.objects.get(pk=table_rules[1]))
    return card_names(_OPAQUE.sub(" ", html.unescape(_NOT_STATE.sub("", text))))


def check(found: Crawl, *, who: str, may_know: set[str], secrets: list[str], forbidden_text=()) -> None:
    """No page ``found`` shows ``who`` a card outside ``may_know``, a secret or a forbidden text."""
    for url, text in found.texts.items():
        for secret in secrets:
            assert secret not in text, f"{who} was shown a secret ({secret[:12]}...) at {url}"
        for words in forbidden_text:
            assert words not in text, f"{who} was shown {words!r} at {url}"
        shown = shown_cards(url, text)
        found.cards_seen[url] = shown
        leaked = shown - may_know
        assert not leaked, f"{who} was shown {sorted(leaked)} at {url} (linked from {found.came_from.get(url)})"


_ADMIN_ROW = re.compile(r"/admin/tournaments/(game|gameevent|table)/(\d+)/")


def rows_of(table) -> set[tuple[str, int]]:
    """A table's rows in the admin: its game, its game's events, the table (results, rulings)."""
    events = GameEvent.objects.filter(game_id=table.game_id).values_list("pk", flat=True)
    return {("game", table.game_id), ("table", table.pk), *(("gameevent", pk) for pk in events)}


def shows_no_row_of(found: Crawl, table) -> None:
    """The table's game and its table row are no rows for the viewer ``found`` is of (their pages
    answer as if there were none; a round's page may still name the table, which the board
    shows), and no page lists its events (an event list's types, actors and times tell each
    trick's winner)."""
    rows = rows_of(table)
    for url, status in found.answered.items():
        reached = _ADMIN_ROW.match(urlsplit(url).path)
        if reached and (reached[1], int(reached[2])) in rows:
            assert status != 200, f"{url} answered {status} (linked from {found.came_from.get(url)})"
    listed = {(model, int(pk)) for text in found.texts.values() for model, pk in _ADMIN_ROW.findall(text)}
    assert not {row for row in listed & rows if row[0] == "gameevent"}, "a page lists the table's events"


def linked_rows(found: Crawl) -> set[tuple[str, int]]:
    """Every game, event and table row any page ``found`` links to (a changelist lists its rows as links)."""
    return {(model, int(pk)) for text in found.texts.values() for model, pk in _ADMIN_ROW.findall(text)}


_CSRF = re.compile(r"(csrfmiddlewaretoken\" value=\"|csrfToken = \"|csrf-token\" content=\")[^\"]*")


def _steady(text: str | None) -> str | None:
    """A page's text without what changes on every request (its CSRF token)."""
    return None if text is None else _CSRF.sub(r"\1", text)


def secrets_of(round_: Round, tables: list) -> list[str]:
    """What no page may show before the round is over: the round's seed, salts and deals."""
    round_.refresh_from_db()
    games = [Game.objects.get(pk=table.game_id) for table in tables]
    return [str(round_.seed), round_.deals_salt, *(game.deal_salt for game in games if game.deal_salt)]


def hand_of(game: Game, seat: int) -> set[str]:
    game.refresh_from_db()
    return set(eventstore.read_engine_game(game, lambda state: state.view(seat))["hand"])


def played_at(game: Game) -> set[str]:
    return {
        payload["card"]
        for payload in GameEvent.objects.filter(game=game, type="CardPlayed").values_list("payload", flat=True)
    }


def browser_for(player=None) -> Client:
    browser = Client()
    if player is not None:
        browser.force_login(player.user)
    return browser


@pytest.mark.django_db
def test_no_page_a_viewer_can_reach_shows_what_it_may_not_know(scheduler):
    tournament, round_, tables, seated, director = _duplicate_round()
    first, second = tables
    staff_player, player = seated[0][0], seated[0][1]  # seats 0 and 1 of table 1
    staff_player.user.is_staff = staff_player.user.is_superuser = True
    staff_player.user.save()
    director.user.is_superuser = True
    director.user.save()
    for _ in range(12):  # table 2: its passes, then two tricks; table 1 has not moved
        _move(second.game, seated[1])
    assert played_at(second.game) and not played_at(first.game)
    secrets = secrets_of(round_, tables)
    lobby, admin = ["/", f"/tournaments/{tournament.pk}/", f"/tables/{first.game_id}/"], ["/admin/"]

    # the other table mid-deal: its players' cards are the deal this table is about to play
    as_staff_player = crawl(browser_for(staff_player), admin + lobby)
    check(as_staff_player, who="a staff player of table 1", may_know=hand_of(first.game, 0), secrets=secrets)
    as_player = crawl(browser_for(player), lobby)
    check(as_player, who="a player of table 1", may_know=hand_of(first.game, 1), secrets=secrets)
    as_anonymous = crawl(browser_for(), lobby)
    check(as_anonymous, who="anonymous", may_know=set(), secrets=secrets)
    as_director = crawl(browser_for(director), admin + lobby)
    check(as_director, who="staff playing nowhere", may_know=played_at(second.game), secrets=secrets)

    # the crawls reached the pages that matter, and the check reads their cards
    own_game_page = f"/admin/tournaments/game/{first.game_id}/change/"
    other_game_page = f"/admin/tournaments/game/{second.game_id}/change/"
    assert own_game_page in as_staff_player.texts and as_staff_player.cards_seen[own_game_page]
    # the other table's rows are no rows for them: an event list's types, actors and times tell
    # each trick's winner; the director lists them all
    shows_no_row_of(as_staff_player, second)
    assert rows_of(second) <= linked_rows(as_director) and as_director.cards_seen[other_game_page]
    assert any("/gameevent/" in url and "/change/" in url for url in as_director.texts)
    assert any("/delete/" in url for url in as_staff_player.texts)
    assert any("/history/" in url for url in as_staff_player.texts)
    assert len(as_staff_player.visited) > 100 and len(as_director.visited) > len(as_staff_player.visited)
    assert ask_hostile(browser_for(director), as_director) > 100

    # the other table finished and ruled on; this one has still not played a card
    _play_table(second, seated[1])
    competitions.table_rule_score(table_id=second.pk, seat=0, hearts_points=5, reason=RULING_MARKER)
    assert Round.objects.get(pk=round_.pk).status != Round.Status.FINISHED
    secrets = secrets_of(round_, tables)
    sealed = {"who": "a staff player of table 1", "secrets": secrets, "forbidden_text": [RULING_MARKER]}
    staff_browser = browser_for(staff_player)
    as_staff_player = crawl(staff_browser, admin + lobby)
    check(as_staff_player, may_know=hand_of(first.game, 0), **sealed)
    shows_no_row_of(as_staff_player, second)
    # nothing they reach depends on that table's result: ruled again, every page reads the same
    competitions.table_rule_score(table_id=second.pk, seat=1, hearts_points=11, reason=RULING_MARKER)
    again = crawl(staff_browser, admin + lobby)
    assert again.visited == as_staff_player.visited
    changed = [url for url in again.visited if _steady(again.texts.get(url)) != _steady(as_staff_player.texts.get(url))]
    assert not changed, f"these pages changed with a sealed table's ruling: {changed}"
    check(
        crawl(browser_for(player), lobby),
        **{**sealed, "who": "a player of table 1"},
        may_know=hand_of(first.game, 1),
    )
    as_director = crawl(browser_for(director), admin + lobby)
    check(as_director, who="staff playing nowhere", may_know=ALL_CARDS, secrets=secrets)
    assert any(RULING_MARKER in text for text in as_director.texts.values())  # the director reads it
