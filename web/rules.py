"""``engine.Rules`` as sentences a player reads, in the active language (the rules pages).

Every field of ``Rules`` is said by exactly one item (a test checks none is forgotten); docs/rules.md
is the longer explanation of the same options.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine import Card, Rules

DEFAULTS = Rules()


@dataclass(frozen=True)
class RuleItem:
    key: str  # the Rules field(s) it says, comma-separated
    title: str
    text: str
    default: bool  # as the defaults have it


def _cards(names) -> str:
    symbols = [Card.parse(name).symbol for name in names]
    if len(symbols) < 2:
        return "".join(symbols)
    return _("%(cards)s and %(last)s") % {"cards": ", ".join(symbols[:-1]), "last": symbols[-1]}


def _first_club(rules: Rules) -> str:
    removed = set(rules.removed_cards or ())
    rank = next(rank for rank in "23456789" if f"{rank}C" not in removed)
    return Card.parse(f"{rank}C").symbol


def describe(rules: Rules, hand_limit: int | None = None) -> list[RuleItem]:
    """One item per rule, in the order a hand is played."""
    d = DEFAULTS
    n = rules.players
    items = [
        RuleItem(
            "players",
            _("Players"),
            ngettext(
                "%(players)s players, %(cards)s card each.",
                "%(players)s players, %(cards)s cards each.",
                rules.hand_size,
            )
            % {"players": n, "cards": rules.hand_size},
            n == d.players,
        )
    ]

    if rules.kitty_size:
        text = ngettext(
            "the %(count)s card left over is dealt face down to the kitty; whoever wins the first trick "
            "takes it, with its points.",
            "the %(count)s cards left over are dealt face down to the kitty; whoever wins the first trick "
            "takes them, with their points.",
            rules.kitty_size,
        ) % {"count": rules.kitty_size}
    elif rules.removed_cards:
        text = ngettext(
            "%(cards)s is taken out of the deck.", "%(cards)s are taken out of the deck.", len(rules.removed_cards)
        ) % {"cards": _cards(rules.removed_cards)}
    else:
        text = _("none: the deck divides evenly.") if n == 4 else _("none are taken out.")
    same = rules.leftover == d.leftover and (rules.removed_cards == Rules(players=n).removed_cards)
    items.append(RuleItem("leftover,removed_cards", _("Leftover cards"), text, same))

    if rules.passing == "off":
        text = _("no passing.")
    elif rules.passing == "left":
        text = _("three cards, always to the left.")
    elif n == 4:
        text = _("three cards, to the left, to the right, across, then no pass, and again.")
    else:
        text = _("three cards, to the left, to the right, then no pass, and again.")
    items.append(RuleItem("passing", _("Passing"), text, rules.passing == d.passing))

    if rules.first_lead == "left_of_dealer":
        text = _("the player to the dealer's left leads any card, within the rules on hearts and on the first trick.")
    else:
        text = _("the %(card)s leads the first trick (the lowest club dealt if it is in the kitty).") % {
            "card": _first_club(rules)
        }
    items.append(RuleItem("first_lead", _("First lead"), text, rules.first_lead == d.first_lead))

    if rules.no_points_first_trick:
        items.append(
            RuleItem(
                "no_points_first_trick",
                _("No points on the first trick"),
                _("no heart and no Q♠ on the first trick unless you hold nothing else."),
                True,
            )
        )
    else:
        items.append(
            RuleItem(
                "no_points_first_trick",
                _("Points on the first trick"),
                _("hearts and the Q♠ may be played on the first trick."),
                False,
            )
        )

    if rules.hearts_any_time:
        text = _("hearts may be led at any time.")
    elif rules.queen_breaks_hearts:
        text = _("hearts may be led once a heart or the Q♠ has been played.")
    else:
        text = _(
            "hearts may be led once a heart has been played, or when you hold only hearts; the Q♠ does not break them."
        )
    items.append(
        RuleItem(
            "hearts_any_time,queen_breaks_hearts",
            _("Breaking hearts"),
            text,
            not rules.hearts_any_time and not rules.queen_breaks_hearts,
        )
    )

    items.append(RuleItem("points", _("Points"), _("each heart 1, the Q♠ 13: the lowest score is best."), True))
    items.append(
        RuleItem(
            "black_maria",
            _("Black Maria"),
            _("the K♠ scores 10 and the A♠ 7, on top of the Q♠'s 13.")
            if rules.black_maria
            else _("off: the K♠ and the A♠ score nothing."),
            not rules.black_maria,
        )
    )
    items.append(
        RuleItem(
            "jack_of_diamonds",
            _("Jack of diamonds"),
            _("whoever takes the J♦ scores −10.") if rules.jack_of_diamonds else _("off: the J♦ scores nothing."),
            not rules.jack_of_diamonds,
        )
    )

    moon = {
        "add_to_others": _("the other players take 26 each."),
        "subtract_from_self": _("the shooter takes 26 off their own score."),
        "shooter_chooses": _("the shooter chooses: the other players take 26 each, or 26 off their own score."),
        "off": _("off: whoever takes every point scores 26."),
    }[rules.moon]
    if rules.moon != "off" and (rules.jack_of_diamonds or rules.black_maria):
        moon += " " + _("The J♦ and Black Maria's cards count on top.")
    items.append(RuleItem("moon", _("Shooting the moon"), moon, rules.moon == d.moon))

    items.append(
        RuleItem(
            "end_score",
            _("End of the game"),
            _(
                "after the hand in which someone reaches %(score)s; the lowest total wins, and a tie for the lowest "
                "total plays more hands."
            )
            % {"score": rules.end_score},
            rules.end_score == d.end_score,
        )
    )
    items.append(
        RuleItem(
            "exact_end_score_halves",
            _("Exactly %(score)s") % {"score": rules.end_score},
            _("a total landing exactly on %(score)s drops to %(half)s.")
            % {"score": rules.end_score, "half": rules.end_score // 2}
            if rules.exact_end_score_halves
            else _("off: it counts like any other total."),
            not rules.exact_end_score_halves,
        )
    )
    if hand_limit:
        items.append(
            RuleItem(
                "hand_limit",
                _("Hand limit"),
                ngettext("the game stops after %(hands)s hand.", "the game stops after %(hands)s hands.", hand_limit)
                % {"hands": hand_limit},
                False,
            )
        )
    return items
