from __future__ import annotations

import pytest
from multidict import MultiDict

from restwire import ParameterError
from restwire._paths import PathTemplate, encode_query, join_url, query_pairs


def fill(template: str, **params: object) -> str:
    return PathTemplate.parse(template).fill(params, "GET test")


def test_placeholders_are_filled_from_params() -> None:
    assert fill("/posts/:id", id=7) == "/posts/7"
    assert fill("/:username/", username="sky") == "/sky/"
    assert fill("/products/:productId/ticker", productId="BTC-USD") == (
        "/products/BTC-USD/ticker"
    )


@pytest.mark.parametrize(
    ("value", "segment"),
    [
        ("a/b", "a%2Fb"),
        ("a?b#c", "a%3Fb%23c"),
        ("100%", "100%25"),
        ("two words", "two%20words"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("...", "..."),
        ("user@host:1", "user@host:1"),
        ("é", "%C3%A9"),
        (True, "true"),
    ],
)
def test_a_value_is_one_encoded_segment(value: object, segment: str) -> None:
    assert fill("/files/:id/download", id=value) == f"/files/{segment}/download"


@pytest.mark.parametrize("params", [{}, {"id": None}, {"id": ""}])
def test_a_missing_required_placeholder_names_endpoint_and_placeholder(
    params: dict[str, object],
) -> None:
    with pytest.raises(ParameterError) as caught:
        PathTemplate.parse("/posts/:id").fill(params, "GET /posts/:id")
    assert caught.value.name == "id"
    assert "GET /posts/:id" in str(caught.value)
    assert "'id'" in str(caught.value)


def test_a_container_cannot_fill_a_segment() -> None:
    with pytest.raises(ParameterError, match="not a single value"):
        fill("/posts/:id", id=[1, 2])


def test_optional_groups_are_left_out_whole_without_a_value() -> None:
    assert fill("/posts{/:id}") == "/posts"
    assert fill("/posts{/:id}", id=None) == "/posts"
    assert fill("/posts{/:id}", id=3) == "/posts/3"
    assert fill("/files/:name{.:ext}", name="report") == "/files/report"
    assert fill("/files/:name{.:ext}", name="report", ext="pdf") == "/files/report.pdf"


def test_escaped_colon_is_literal() -> None:
    template = PathTemplate.parse(r"/v1/items\:batchGet")
    assert template.names == frozenset()
    assert template.fill({}, "x") == "/v1/items:batchGet"


def test_template_knows_its_names() -> None:
    template = PathTemplate.parse("/a/:x/b{/:y}")
    assert template.names == {"x", "y"}
    assert template.required == {"x"}


@pytest.mark.parametrize("bad", ["/a{/:x", "/a}/", "/a{/{:x}}"])
def test_malformed_templates_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="path"):
        PathTemplate.parse(bad)


def test_query_is_sorted_repeated_and_skips_none() -> None:
    pairs = query_pairs(
        {"z": 1, "a": ["x", "y"], "m": None, "b": False, "t": (1, None, 2)},
        frozenset(),
        "e",
    )
    assert list(pairs.items()) == [
        ("a", "x"),
        ("a", "y"),
        ("b", "false"),
        ("t", "1"),
        ("t", "2"),
        ("z", "1"),
    ]
    assert encode_query(pairs) == "a=x&a=y&b=false&t=1&t=2&z=1"


def test_query_takes_a_multidict_with_repeated_keys() -> None:
    params = MultiDict([("tag", "b"), ("id", "1"), ("tag", "a")])
    assert encode_query(query_pairs(params, frozenset({"id"}), "e")) == "tag=b&tag=a"


def test_query_values_are_encoded() -> None:
    pairs = query_pairs({"q": "a&b=c d", "k&": "v"}, frozenset(), "e")
    assert encode_query(pairs) == "k%26=v&q=a%26b%3Dc%20d"


def test_a_mapping_has_no_query_form() -> None:
    with pytest.raises(ParameterError, match="'filter'"):
        query_pairs({"filter": {"a": 1}}, frozenset(), "GET /x")


@pytest.mark.parametrize(
    ("prefix", "path", "joined"),
    [
        ("https://h/api/", "/posts", "https://h/api/posts"),
        ("https://h/api", "posts", "https://h/api/posts"),
        ("https://h/api", "/posts/", "https://h/api/posts/"),
        ("https://h/api//", "//posts", "https://h/api/posts"),
        ("", "/posts", "/posts"),
        ("https://h/api", "", "https://h/api"),
    ],
)
def test_prefix_joins_with_one_slash(prefix: str, path: str, joined: str) -> None:
    assert join_url(prefix, path) == joined
