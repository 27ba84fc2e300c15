"""RestEndpoint: options, extend and use, path templates and query strings."""

from __future__ import annotations

import datetime
from typing import Any

import httpx
import pytest
from multidict import MultiDict

from restwire import Controller, JsonContent, ParameterError, RestEndpoint, Stack
from restwire._wire.params import PathTemplate, encode_query, join_url, query_pairs


class Tag:
    def on_request(self, exchange: Any) -> None:
        return None

    def __repr__(self) -> str:
        return "Tag()"


def test_defaults() -> None:
    endpoint = RestEndpoint(path="/posts/:id")
    assert endpoint.method == "GET"
    assert isinstance(endpoint.content, JsonContent)
    assert endpoint.data_expiry_length == 60.0
    assert endpoint.error_expiry_length == 1.0
    assert endpoint.poll_frequency is None
    assert endpoint.schema is None
    assert endpoint.follow_redirects is True
    assert len(endpoint.middleware) == 0


def test_endpoints_are_immutable() -> None:
    endpoint = RestEndpoint(path="/x")
    with pytest.raises(AttributeError, match="extend"):
        endpoint.path = "/y"


def test_extend_returns_a_changed_copy() -> None:
    base = RestEndpoint(url_prefix="https://api.example.com", method="post")
    child = base.extend(path="/posts/:id")
    assert base.path == ""
    assert child.path == "/posts/:id"
    assert child.method == "POST"
    assert child.url_prefix == "https://api.example.com"
    assert child.url({"id": 1}) == "https://api.example.com/posts/1"


def test_use_appends_middleware_inside_and_shares_layers() -> None:
    outer, inner = Tag(), Tag()
    base = RestEndpoint(url_prefix="https://h", middleware=[outer])
    child = base.use(inner).extend(path="/a")
    assert child.middleware.layers == (outer, inner)
    assert base.middleware.layers == (outer,)
    assert child.middleware[0] is outer


def test_subclass_defaults_hold_through_extend() -> None:
    shared = Tag()

    class MyApi(RestEndpoint):
        url_prefix = "https://api.example.com/v1/"
        middleware = Stack(shared)

    endpoint = MyApi(path="/posts/:id").extend(method="DELETE")
    assert isinstance(endpoint, MyApi)
    assert endpoint.url({"id": 2}) == "https://api.example.com/v1/posts/2"
    assert endpoint.middleware.layers == (shared,)


def test_unknown_options_are_named() -> None:
    with pytest.raises(TypeError, match="urlPrefix"):
        RestEndpoint(urlPrefix="https://h")  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("given", "seconds"), [(2, 2.0), (0.5, 0.5), (datetime.timedelta(minutes=1), 60.0)]
)
def test_durations_take_seconds_or_timedelta(given: Any, seconds: float) -> None:
    endpoint = RestEndpoint(poll_frequency=given, data_expiry_length=given)
    assert endpoint.poll_frequency == seconds
    assert endpoint.data_expiry_length == seconds


@pytest.mark.parametrize(
    "options",
    [
        {"data_expiry_length": -1},
        {"poll_frequency": 0},
        {"data_expiry_length": "60"},
        {"content": "arrayBuffer"},
    ],
)
def test_bad_option_values_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        RestEndpoint(**options)


def test_the_url_is_stable_for_equal_params() -> None:
    endpoint = RestEndpoint(url_prefix="https://host", path="/path/:id")
    first = endpoint.url({"id": 1, "b": 2, "a": 1})
    second = endpoint.url({"a": 1, "id": 1, "b": 2})
    assert first == second == "https://host/path/1?a=1&b=2"


def test_the_request_key_is_the_controllers_on_the_absolute_url() -> None:
    endpoint = RestEndpoint(path="/path/:id")
    with Controller(httpx.Client(base_url="https://host")) as controller:
        first = controller.key(endpoint, {"id": 1, "b": 2, "a": 1})
        second = controller.key(endpoint, {"a": 1, "id": 1, "b": 2})
        controller.client.close()
    assert first == second == "GET https://host/path/1?a=1&b=2"


def test_a_path_with_its_own_query_keeps_it() -> None:
    endpoint = RestEndpoint(url_prefix="https://h", path="/search?type=post")
    assert endpoint.url({"q": "x"}) == "https://h/search?type=post&q=x"


def test_missing_param_error_names_the_endpoint() -> None:
    endpoint = RestEndpoint(path="/posts/:id", name="getPost")
    with pytest.raises(ParameterError, match="getPost: parameter 'id' is missing"):
        endpoint.url({})


def test_side_effect_follows_the_method() -> None:
    assert not RestEndpoint(method="GET").side_effect
    assert not RestEndpoint(method="HEAD").side_effect
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        assert RestEndpoint(method=method).side_effect


def test_repr_is_readable_and_never_shows_header_values() -> None:
    endpoint = RestEndpoint(
        url_prefix="https://user:hunter2@h",
        path="/my/:id",
        headers={"Access-Token": "s3cret"},
        middleware=[Tag()],
    )
    text = repr(endpoint)
    assert "s3cret" not in text
    assert "hunter2" not in text
    assert "GET https://[redacted]@h/my/:id" in text
    assert "access-token" in text
    assert "Stack(Tag())" in text


def test_process_and_parse_response_as_options_and_as_overrides() -> None:
    def process(value: Any, params: Any) -> Any:
        return {"processed": value}

    as_option = RestEndpoint(process=process)
    assert as_option.process(1, {}) == {"processed": 1}

    class Override(RestEndpoint):
        def process(self, value: Any, params: Any) -> Any:
            return [value, dict(params)]

    assert Override().process(1, {"a": 1}) == [1, {"a": 1}]
    assert Override().extend(path="/x").process(2, {}) == [2, {}]


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


def test_endpoints_of_equal_parts_have_one_shape_which_goes_with_them() -> None:
    """A shape compares by identity (it keys every read from the store), so
    equal parts must make the one object; a shape nothing holds goes."""
    import gc

    from restwire._endpoints.endpoint import _SHAPES

    first = RestEndpoint(url_prefix="https://api.test", path="/a")
    again = RestEndpoint(url_prefix="https://api.test", path="/b")
    other = RestEndpoint(url_prefix="https://api.test", path="/a", max_body_size=7)
    assert first.shape is again.shape
    assert first.shape is not other.shape
    before = len(_SHAPES)
    for number in range(50):
        RestEndpoint(url_prefix="https://api.test", max_body_size=number + 1).shape  # noqa: B018
    gc.collect()
    assert len(_SHAPES) <= before + 1
