"""An update frame's state is exactly its viewer's ``Game.view`` at that seq, though its table
part is serialised once per change and shared by every connection of the process."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import orjson
import pytest

import engine
from tournaments.games.visibility import Sight, ViewerKind, visible_event
from tournaments.live.frames import StateFrames, event_json, update_frame
from tournaments.models import Game, GameEvent


def _row(state: engine.Game, game_id: int = 7, deadline: datetime | None = None) -> Game:
    """The game row a frame is labelled with, at the state's log version."""
    seq = len(state.events)
    return Game(
        pk=game_id, seq=seq, head_hash=f"hash-{game_id}-{seq}", status=Game.Status.ACTIVE, turn_deadline=deadline
    )


def _moves(state: engine.Game, rng: random.Random):
    while state.phase != engine.Phase.GAME_OVER:
        seat = state.to_act[0]
        if state.phase == engine.Phase.PASSING:
            state.pass_cards(seat, rng.sample(state.hand(seat), 3))
        elif state.phase == engine.Phase.PLAYING:
            state.play(seat, rng.choice(state.legal_plays(seat)))
        else:
            state.choose_moon(seat, "add_to_others")
        yield


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_viewers_update_frame_holds_its_view_at_every_moment(players):
    frames, rng = StateFrames(), random.Random(players)
    state = engine.Game.new(engine.Rules(players=players), seed=players)
    deadline = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    events = [{"seq": 1, "type": "CardPlayed", "payload": {"seat": 0, "card": "2C"}}]
    for _ in _moves(state, rng):
        row = _row(state, deadline=deadline)
        for seat in [None, *range(players)]:
            sent = orjson.loads(update_frame(row, [orjson.dumps(e) for e in events], frames.view(row, state, seat)))
            assert sent == {
                "type": "update",
                "seq": row.seq,
                "status": "active",
                "turn_deadline": deadline.isoformat(),
                "events": events,
                "state": state.view(seat),
            }


def test_before_the_game_starts_an_update_has_no_state():
    row = Game(pk=7, seq=0, head_hash="", status=Game.Status.WAITING)
    assert orjson.loads(update_frame(row, [], None)) == {
        "type": "update",
        "seq": 0,
        "status": "waiting",
        "turn_deadline": None,
        "events": [],
        "state": None,
    }


def test_the_table_part_is_never_served_for_another_version_or_game():
    frames = StateFrames()
    first = engine.Game.new(engine.Rules(), seed=1)
    other = engine.Game.new(engine.Rules(), seed=2)
    row = _row(first)
    frames.view(row, first, 0)
    # the same game at a new version: the new trick, not the one serialised before
    next(_moves(first, random.Random(1)))
    assert orjson.loads(frames.view(_row(first), first, 0)) == first.view(0)
    # another game under the same id and seq (a reset database): its hash differs
    reused = Game(pk=row.pk, seq=row.seq, head_hash="another-log", status=Game.Status.ACTIVE)
    assert orjson.loads(frames.view(reused, other, 1)) == other.view(1)


def _event_rows(state: engine.Game) -> list[GameEvent]:
    at = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    return [
        GameEvent(
            game_id=7,
            seq=seq,
            type=e.pop("type"),
            version=e.pop("v"),
            payload=e,
            recorded_at=at,
            cause="player",
        )
        for seq, e in enumerate((event.to_dict() for event in state.events), start=1)
    ]


@pytest.mark.parametrize("over", [False, True])
def test_each_event_is_sent_as_its_viewer_may_see_it_even_when_its_text_is_shared(over):
    """Serialised once per row for all viewers only if every viewer sees it whole: a deal, a
    pass, the seed still go to each viewer redacted for them, at every moment."""
    state = engine.Game.new(engine.Rules(), seed=3)
    rng = random.Random(3)
    for _ in zip(range(20), _moves(state, rng), strict=False):
        pass
    rows = _event_rows(state)
    assert {"HandDealt", "CardsPassed", "PassCompleted", "CardPlayed"} <= {row.type for row in rows}
    sights = [Sight(kind=ViewerKind.SEATED, seat=seat, everything=over, may_watch=True) for seat in range(4)]
    sights += [Sight(kind=ViewerKind.ANONYMOUS, seat=None, everything=over, may_watch=True)]
    for row in rows:
        for sight in sights:  # twice: the second time from what the first one kept
            for _ in range(2):
                assert orjson.loads(event_json(row, sight)) == visible_event(row, sight), (row.type, sight)
        if row.type == "HandDealt" and not over:
            assert len({event_json(row, sight) for sight in sights}) == len(sights)
