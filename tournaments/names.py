"""What a person may be called: usernames (the login handle) and display names (what a table shows).

Both are NFKC-normalised first, so a full-width ``ａlice`` is ``alice``. Usernames are ASCII
letters, digits and ``_.@+-`` after that, so that the database's ``LOWER()`` (ASCII-only on
SQLite) is exactly Python's case folding and the unique index on ``LOWER(username)``
(migration ``0010``) makes them unique case-insensitively. Display names may be any script but
refuse what renders as nothing or rearranges the text around it (controls, bidi overrides,
zero-width and other format characters, invisible fillers), so ``\\u202eevil`` cannot show as
"live"; they are unique per club by :func:`display_name_key` (case-folded).
"""

from __future__ import annotations

import re
import unicodedata

USERNAME = re.compile(r"[A-Za-z0-9_.@+-]{3,150}")

# Categories that draw nothing or steer the text: controls, format (bidi marks and overrides,
# zero-width space/joiners, BOM...), surrogates, private use, unassigned, line/paragraph separators.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
# Letters and symbols that render blank in most fonts (Hangul fillers, braille blank), and
# combining marks that are invisible on their own.
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f", "\u17b4", "\u17b5"}


class InvalidName(ValueError):
    """A refused name; ``code`` is ``invalid_username`` or ``invalid_display_name``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def normalise_username(value: str) -> str:
    """The username as stored: NFKC, ASCII ``[A-Za-z0-9_.@+-]``, 3-150 characters (case kept)."""
    name = unicodedata.normalize("NFKC", value or "")
    if not USERNAME.fullmatch(name):
        raise InvalidName("invalid_username", "A username is 3 to 150 letters (a-z), digits or . @ + - _ characters.")
    return name


def clean_display_name(value: str, max_length: int = 60) -> str:
    """The display name as stored: NFKC, trimmed, runs of spaces as one; refused if it holds an
    invisible or text-steering character, has no letter or digit, or is longer than ``max_length``."""
    name = re.sub(" {2,}", " ", unicodedata.normalize("NFKC", value or "").strip())
    for char in name:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or char in _INVISIBLE or (category == "Zs" and char != " "):
            raise InvalidName(
                "invalid_display_name",
                f"A display name cannot contain the invisible or control character U+{ord(char):04X}.",
            )
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise InvalidName("invalid_display_name", "A display name needs at least one letter or digit.")
    if len(name) > max_length:
        raise InvalidName("invalid_display_name", f"A display name has at most {max_length} characters.")
    return name


def display_name_key(value: str) -> str:
    """What two display names must not share within a club: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value or "").casefold())
