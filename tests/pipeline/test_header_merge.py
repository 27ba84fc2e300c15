"""Headers combine by one rule: extend, resource and hookify_resource alike."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint, hookify_resource, resource
from restwire._endpoints.options import merge_headers, merge_sensitive
from restwire._endpoints.resource import with_init

API = "https://api.example.com"

pytestmark = pytest.mark.anyio


def test_extend_adds_and_overrides_name_by_name() -> None:
    base = RestEndpoint(headers={"X-Client": "restwire", "Accept-Language": "en"})
    child = base.extend(headers={"accept-language": "fr", "X-Trace": "1"})
    assert child.headers == {
        "x-client": "restwire",
        "accept-language": "fr",
        "x-trace": "1",
    }
    assert base.headers == {"x-client": "restwire", "accept-language": "en"}


def test_a_header_given_none_is_removed_whatever_its_case() -> None:
    base = RestEndpoint(headers={"X-Old": "1", "X-Keep": "2"})
    assert base.extend(headers={"x-OLD": None}).headers == {"x-keep": "2"}
    assert base.extend(headers={"X-Absent": None}).headers == base.headers


def test_headers_none_removes_them_all() -> None:
    base = RestEndpoint(headers={"X-Old": "1"})
    assert base.extend(headers=None).headers is None


def test_extending_without_headers_keeps_them() -> None:
    base = RestEndpoint(headers={"X-A": "1"})
    assert base.extend(path="/x").headers == {"x-a": "1"}
    assert base.use().headers == {"x-a": "1"}


def test_a_chain_of_extends_accumulates() -> None:
    endpoint = (
        RestEndpoint(headers={"A": "1"})
        .extend(headers={"B": "2"})
        .extend(headers={"a": "3", "C": "4"})
        .extend(headers={"B": None})
    )
    assert endpoint.headers == {"a": "3", "c": "4"}


def test_a_subclass_default_is_the_base_extend_merges_into() -> None:
    class Api(RestEndpoint):
        headers = MappingProxyType({"X-Api-Version": "2"})

    child = Api(path="/x").extend(headers={"X-Trace": "t"})
    assert child.headers == {"x-api-version": "2", "x-trace": "t"}


def test_sensitive_headers_accumulate() -> None:
    base = RestEndpoint(sensitive_headers=["X-Tenant"])
    child = base.extend(sensitive_headers={"X-Session"})
    assert child.sensitive_headers == {"x-tenant", "x-session"}
    assert child.extend(path="/y").sensitive_headers == child.sensitive_headers


@pytest.mark.parametrize(
    "headers", [{"X-A": 1}, {"X-A": ["a"]}, {1: "a"}, [("X-A", "1")], {"X-A": "é"}]
)
def test_a_bad_header_is_refused_where_the_endpoint_is_written(
    headers: Any,
) -> None:
    base = RestEndpoint(headers={"X-B": "1"})
    with pytest.raises((TypeError, ValueError)):
        base.extend(headers=headers)


def test_sensitive_headers_as_one_text_is_refused() -> None:
    with pytest.raises(TypeError, match="collection of names"):
        RestEndpoint(sensitive_headers="X-Tenant")


def test_the_merge_function_changes_neither_argument() -> None:
    base = {"x-a": "1"}
    changes: dict[str, str | None] = {"X-A": None, "X-B": "2"}
    assert merge_headers(base, changes) == {"x-b": "2"}
    assert base == {"x-a": "1"}
    assert changes == {"X-A": None, "X-B": "2"}
    assert merge_sensitive({"A"}, ["b"]) == {"a", "b"}


def test_with_init_follows_the_same_rule() -> None:
    base = RestEndpoint(headers={"X-Client": "restwire", "X-Old": "o"})
    endpoint = with_init(
        base, {"headers": {"x-client": "other", "X-Old": None, "X-Token": "t"}}
    )
    assert endpoint.headers == {"x-client": "other", "x-token": "t"}
    assert endpoint.sensitive_headers >= {"x-client", "x-token"}
    assert "x-old" not in endpoint.sensitive_headers


def test_resource_options_merge_into_the_base_headers() -> None:
    base = RestEndpoint(url_prefix=API, headers={"X-Client": "restwire"})
    posts = resource(
        path="/posts/:id", schema=None, endpoint=base, headers={"X-B": "b"}
    )
    assert posts.get.headers == {"x-client": "restwire", "x-b": "b"}
    hooked = hookify_resource(posts, lambda: {"headers": {"X-Client": None}})
    assert hooked.use_get().headers == {"x-b": "b"}


async def test_the_merged_headers_are_what_is_sent(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    base = RestEndpoint(url_prefix=API, path="/x", headers={"X-A": "1", "X-B": "2"})
    await controller.fetch(base)
    await controller.fetch(base.extend(headers={"x-b": None, "X-C": "3"}))
    await controller.fetch(base)  # the base's shared headers are untouched
    first, second, third = httpx_mock.get_requests()
    assert (first.headers.get("x-a"), first.headers.get("x-b")) == ("1", "2")
    assert "x-b" not in second.headers
    assert (second.headers["x-a"], second.headers["x-c"]) == ("1", "3")
    assert third.headers.get("x-b") == "2"
    assert "x-c" not in third.headers


async def test_an_identity_header_removed_by_extend_is_no_longer_the_callers(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"n": 1}, is_reusable=True)
    base = RestEndpoint(url_prefix=API, path="/me", headers={"Authorization": "A"})
    anonymous = base.extend(headers={"authorization": None})
    await controller.get(base)
    await controller.get(anonymous)
    # two identities: the anonymous call did not share the authorized result
    assert len(httpx_mock.get_requests()) == 2
    assert "authorization" not in httpx_mock.get_requests()[1].headers
