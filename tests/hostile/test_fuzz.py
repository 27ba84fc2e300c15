"""Property tests: what must hold for any input, not just the examples.

Each property runs with a small number of examples in the default run and a
few thousand in the slow run (``pytest -m slow``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from restwire import (
    ParameterError,
    RestEndpoint,
    filename_from,
    links_by_rel,
    parse_link_header,
    safe_filename,
)
from restwire.middlewares.key_casing import (
    KeyCollision,
    convert_keys,
    to_camel,
    to_snake,
)

QUICK = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
THOROUGH = settings(
    max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

word = st.from_regex(r"[a-z]{2,8}", fullmatch=True)
canonical_key = st.builds(
    lambda lead, words, trail: lead + "_".join(words) + trail,
    st.sampled_from(["", "_", "__"]),
    st.lists(word, min_size=1, max_size=5),
    st.sampled_from(["", "_", "__"]),
)
header_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"]), max_size=300
) | st.from_regex(r"[<>;,=\"' a-zA-Z0-9*%/\\.:_-]{0,120}", fullmatch=True)


def canonical_keys_round_trip(key: str) -> None:
    assert to_snake(to_camel(key)) == key


def no_key_is_ever_dropped(value: dict[Any, Any]) -> None:
    for convert in (to_camel, to_snake):
        collision: KeyCollision | None = None
        try:
            out = convert_keys(value, convert)
        except KeyCollision as error:
            collision = error
        if collision is not None:  # refused, naming two different keys
            assert collision.keys[0] != collision.keys[1]
            continue
        assert len(out) == len(value)
        assert sorted(map(str, out.values())) == sorted(map(str, value.values()))


def link_parser_never_raises(text: str) -> None:
    for link in parse_link_header(text, "https://api.example.com/list?page=1"):
        assert isinstance(link.url, str)
        assert all(rel == rel.lower() for rel in link.rel)
    links_by_rel(parse_link_header(text))


def filenames_are_always_safe(text: str) -> None:
    for name in (
        filename_from(f"attachment; filename={text}"),
        filename_from(text),
        safe_filename(text),
    ):
        assert name
        assert "/" not in name
        assert "\\" not in name
        assert "\x00" not in name
        assert name not in (".", "..")
        assert not name.startswith(".")  # hidden
        assert name == name.strip()  # no leading or trailing white space
        assert not name.endswith(".")  # Windows drops it: another name
        assert len(name.encode("utf-8")) <= 255


def params_cannot_change_the_path(value: str) -> None:
    endpoint = RestEndpoint(
        url_prefix="https://api.example.com", path="/files/:id/download"
    )
    try:
        url = httpx.URL(endpoint.url({"id": value}))
    except ParameterError:
        assert value == ""
        return
    segments = url.raw_path.decode("ascii").split("?")[0].split("/")
    assert segments[0] == ""
    assert segments[1] == "files"
    assert segments[3] == "download"
    assert len(segments) == 4
    assert url.query == b""
    assert url.fragment == ""
    assert url.host == "api.example.com"


PROPERTIES: list[tuple[str, Callable[[Any], None], Any]] = [
    ("casing round-trips canonical keys", canonical_keys_round_trip, canonical_key),
    (
        "casing never drops a key",
        no_key_is_ever_dropped,
        st.dictionaries(
            st.text(max_size=12) | st.integers(), st.integers(), max_size=12
        ),
    ),
    ("the Link parser never raises", link_parser_never_raises, header_text),
    ("file names are always safe", filenames_are_always_safe, header_text),
    (
        "params cannot change the path",
        params_cannot_change_the_path,
        st.text(max_size=40),
    ),
]


@pytest.mark.parametrize(
    ("name", "prop", "strategy"), PROPERTIES, ids=[p[0] for p in PROPERTIES]
)
def test_property(
    name: str, prop: Callable[[Any], None], strategy: st.SearchStrategy[Any]
) -> None:
    test: Callable[[], None] = given(strategy)(prop)
    QUICK(test)()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "prop", "strategy"), PROPERTIES, ids=[p[0] for p in PROPERTIES]
)
def test_property_thoroughly(
    name: str, prop: Callable[[Any], None], strategy: st.SearchStrategy[Any]
) -> None:
    test: Callable[[], None] = given(strategy)(prop)
    THOROUGH(test)()


@pytest.mark.parametrize(
    "value", ["../../etc", "a/b", "?q=1", "#frag", "%2F", ".", "..", "a b", "\x00"]
)
def test_known_injections_stay_one_segment(value: str) -> None:
    params_cannot_change_the_path(value)
