"""hearts_league.json_input.parse_json: the one JSON reader for what clients send."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearts_league.json_input import JSONInputError, parse_json


def _code(data, **limits):
    with pytest.raises(JSONInputError) as refused:
        parse_json(data, **limits)
    return refused.value.code


def test_deep_nesting_is_refused_without_recursion_at_any_depth():
    for depth in (33, 1000, 5000, 100_000):
        assert _code("[" * depth + "]" * depth) == "json_too_deep"
        assert _code(b'{"a":' * depth + b"1" + b"}" * depth) == "json_too_deep"
    assert parse_json("[" * 32 + "]" * 32) is not None
    assert _code("[[[]]]", max_depth=2) == "json_too_deep"
    assert parse_json("[[]]", max_depth=2) == [[]]


def test_what_is_not_strict_json_is_refused():
    for text in ("NaN", "[Infinity]", "1e309", '{"a": -1e400}', '"\\ud800"', "{'a': 1}", "", "[1,]"):
        assert _code(text) == "invalid_json", text


def test_a_body_over_the_size_limit_is_refused_with_413():
    with pytest.raises(JSONInputError) as refused:
        parse_json(b"[" + b"1," * 600 + b"1]", max_size=1000)
    assert (refused.value.code, refused.value.status) == ("body_too_large", 413)


texts = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"))  # a NUL is refused: below
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=20,
)


@given(json_values)
def test_parse_json_reads_what_json_dumps_writes(value):
    import json

    assert parse_json(json.dumps(value), max_depth=100) == value


@given(json_values, st.sampled_from(["key", "value", "deep"]), st.booleans())
def test_a_nul_anywhere_is_refused_as_no_database_stores_it(value, where, as_bytes):
    """PostgreSQL refuses U+0000 in text: a string holding it would fail there, a 500."""
    import json

    holding = {"key": {"a\x00b": value}, "value": [value, "x\x00"], "deep": {"a": [[{"b": "\x00"}]], "c": value}}[where]
    text = json.dumps(holding)
    assert _code(text.encode() if as_bytes else text) == "nul_character"
    assert parse_json(json.dumps({"a": "\\u0000"})) == {"a": "\\u0000"}  # the six characters themselves
