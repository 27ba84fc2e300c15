from __future__ import annotations

import datetime
from typing import Any

import pytest

from restwire import ParameterError, RestEndpoint, Stack


class Tag:
    def on_request(self, exchange: Any) -> None:
        return None

    def __repr__(self) -> str:
        return "Tag()"


def test_defaults() -> None:
    endpoint = RestEndpoint(path="/posts/:id")
    assert endpoint.method == "GET"
    assert endpoint.content == "json"
    assert endpoint.data_expiry_length == 60.0
    assert endpoint.error_expiry_length == 1.0
    assert endpoint.poll_frequency is None
    assert endpoint.schema is None
    assert endpoint.follow_redirects is True
    assert len(endpoint.middleware) == 0


def test_endpoints_are_immutable() -> None:
    endpoint = RestEndpoint(path="/x")
    with pytest.raises(AttributeError, match="extend"):
        endpoint.path = "/y"  # type: ignore[misc]


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
        RestEndpoint(urlPrefix="https://h")


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


def test_url_and_key_are_stable_for_equal_params() -> None:
    endpoint = RestEndpoint(url_prefix="https://host", path="/path/:id")
    first = endpoint.key({"id": 1, "b": 2, "a": 1})
    second = endpoint.key({"a": 1, "id": 1, "b": 2})
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
    assert "GET https://user:[redacted]@h/my/:id" in text
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
