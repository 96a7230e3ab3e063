"""A slow, obviously-correct reading of docs/rules.md on card names, to check the engine."""

from __future__ import annotations

from engine import Rules

RANKS = "23456789TJQKA"


def suit(c: str) -> str:
    return c[1]


def rank(c: str) -> int:
    return RANKS.index(c[0])


def first_trick_point(c: str) -> bool:
    return suit(c) == "H" or c == "QS"


def first_lead_card(rules: Rules, hands: list[list[str]]) -> str | None:
    if rules.first_lead == "left_of_dealer":
        return None
    clubs = [c for h in hands for c in h if suit(c) == "C"]
    return min(clubs, key=rank)


def legal(
    rules: Rules, hand: list[str], trick: list[str], first_trick: bool, broken: bool, first_card: str | None
) -> set[str]:
    if trick:
        led = suit(trick[0])
        cands = [c for c in hand if suit(c) == led] or list(hand)
        if first_trick and rules.no_points_first_trick:
            cands = [c for c in cands if not first_trick_point(c)] or cands
        return set(cands)
    if first_trick and first_card is not None:
        return {first_card} & set(hand)
    cands = list(hand)
    if first_trick and rules.no_points_first_trick:
        cands = [c for c in cands if not first_trick_point(c)] or cands
    if not (broken or rules.hearts_any_time):
        cands = [c for c in cands if suit(c) != "H"] or cands
    return set(cands)


def trick_winner(trick: list[str], leader: int, n: int) -> int:
    led = suit(trick[0])
    best = max((c for c in trick if suit(c) == led), key=rank)
    return (leader + trick.index(best)) % n


def breaks_hearts(rules: Rules, trick: list[str]) -> bool:
    return any(suit(c) == "H" or (rules.queen_breaks_hearts and c == "QS") for c in trick)


def points(rules: Rules, c: str) -> int:
    if suit(c) == "H":
        return 1
    if c == "QS":
        return 13
    if rules.black_maria and c == "KS":
        return 10
    if rules.black_maria and c == "AS":
        return 7
    if rules.jack_of_diamonds and c == "JD":
        return -10
    return 0


def extra(rules: Rules, c: str) -> int:
    return 0 if suit(c) == "H" or c == "QS" else points(rules, c)


def score(rules: Rules, taken: list[list[str]], choice: str | None) -> tuple[list[int], int | None]:
    moon = {f"{r}H" for r in RANKS} | {"QS"}
    shooter = None
    if rules.moon != "off":
        for s, t in enumerate(taken):
            if moon <= set(t):
                shooter = s
    if shooter is None:
        return [sum(points(rules, c) for c in t) for t in taken], None
    mode = choice if rules.moon == "shooter_chooses" else rules.moon
    out = []
    for s, t in enumerate(taken):
        base = (0 if s == shooter else 26) if mode == "add_to_others" else (-26 if s == shooter else 0)
        out.append(base + sum(extra(rules, c) for c in t))
    return out, shooter


def expected_sum(rules: Rules, shooter: int | None, mode: str | None) -> int:
    extras = (-10 if rules.jack_of_diamonds else 0) + (17 if rules.black_maria else 0)
    if shooter is None:
        return 26 + extras
    if mode == "add_to_others":
        return 26 * (rules.players - 1) + extras
    return -26 + extras
