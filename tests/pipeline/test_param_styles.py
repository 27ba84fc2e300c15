"""param_style: lists and dicts in the query and in Form bodies."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from multidict import MultiDict
from pytest_httpx import HTTPXMock

from restwire import Form, ParameterError, RestEndpoint, resource
from restwire._wire.params import (
    ParamStyle,
    encode_query,
    form_fields,
    query_pairs,
    styled_query,
)
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"

#: A Stripe-like call: nested objects, a range filter, a list of objects
#: and a list of plain values.
STRIPE_LIKE: dict[str, Any] = {
    "metadata": {"plan": "pro", "seats": 3},
    "created": {"gte": 1700000000},
    "items": [{"price": "p1", "quantity": 2}, {"price": "p2"}],
    "expand": ["customer", "invoice"],
    "livemode": False,
    "ignored": None,
}


def decoded(endpoint: RestEndpoint, params: Any) -> str:
    return unquote(endpoint.url(params).partition("?")[2])


@pytest.mark.parametrize(
    ("style", "query"),
    [
        (
            "brackets",
            "created[gte]=1700000000&expand[]=customer&expand[]=invoice"
            "&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2"
            "&livemode=false&metadata[plan]=pro&metadata[seats]=3",
        ),
        (
            "indexed",
            "created[gte]=1700000000&expand[0]=customer&expand[1]=invoice"
            "&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2"
            "&livemode=false&metadata[plan]=pro&metadata[seats]=3",
        ),
    ],
)
def test_nested_styles_write_every_level(style: ParamStyle, query: str) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/v1/customers", param_style=style)
    assert decoded(endpoint, STRIPE_LIKE) == query


def test_brackets_are_percent_encoded_in_the_query() -> None:
    endpoint = RestEndpoint(url_prefix=API, param_style="brackets")
    assert endpoint.url({"m": {"k": "v w"}, "a": [1]}) == (
        f"{API}?a%5B%5D=1&m%5Bk%5D=v%20w"
    )


@pytest.mark.parametrize(
    ("style", "query"),
    [
        ("repeat", "a=1&a=2&b=true"),
        ("brackets", "a[]=1&a[]=2&b=true"),
        ("indexed", "a[0]=1&a[1]=2&b=true"),
        ("comma", "a=1,2&b=true"),
    ],
)
def test_each_style_writes_a_list(style: ParamStyle, query: str) -> None:
    endpoint = RestEndpoint(param_style=style)
    assert decoded(endpoint, {"a": [1, None, 2], "b": True, "c": None}) == query


def test_comma_keeps_a_comma_inside_an_item_apart_from_the_joining_ones() -> None:
    endpoint = RestEndpoint(param_style="comma")
    assert endpoint.url({"tags": ["a,b", "c d"]}) == "?tags=a%2Cb,c%20d"
    assert endpoint.url({"tags": []}) == ""


def test_none_items_are_left_out_before_numbering() -> None:
    endpoint = RestEndpoint(param_style="indexed")
    assert decoded(endpoint, {"a": [None, "x", None, "y"]}) == "a[0]=x&a[1]=y"


def test_equal_params_give_equal_urls_whatever_their_order() -> None:
    endpoint = RestEndpoint(param_style="brackets")
    first = endpoint.url({"f": {"b": 1, "a": {"y": 2, "x": 3}}, "e": 0})
    second = endpoint.url({"e": 0, "f": {"a": {"x": 3, "y": 2}, "b": 1}})
    assert first == second


def test_path_placeholders_are_unaffected() -> None:
    endpoint = RestEndpoint(
        url_prefix=API, path="/customers/:id", param_style="brackets"
    )
    assert endpoint.url({"id": "a/b", "expand": ["x"]}) == (
        f"{API}/customers/a%2Fb?expand%5B%5D=x"
    )


def test_a_multidict_name_given_twice_is_a_list() -> None:
    params = MultiDict([("tag", "b"), ("id", "1"), ("tag", "a")])
    assert decoded(RestEndpoint(param_style="brackets"), params) == (
        "id=1&tag[]=b&tag[]=a"
    )
    assert decoded(RestEndpoint(param_style="comma"), params) == "id=1&tag=b,a"


@pytest.mark.parametrize("style", ["repeat", "comma"])
def test_a_dict_with_no_form_names_the_param_and_the_option(
    style: ParamStyle,
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x", param_style=style)
    with pytest.raises(ParameterError) as caught:
        endpoint.url({"filter": {"status": "open"}})
    message = str(caught.value)
    assert f"GET {API}/x" in message
    assert "'filter'" in message
    assert f'param_style="{style}"' in message
    assert 'param_style="brackets"' in message
    assert caught.value.name == "filter"


@pytest.mark.parametrize(
    ("style", "params", "named"),
    [
        ("repeat", {"a": [{"b": 1}]}, "'a'"),
        ("comma", {"a": [[1, 2]]}, "'a'"),
        ("comma", {"a": [{"b": 1}]}, "'a'"),
        ("brackets", {"a": {"b": {1, 2}}}, "'a[b]'"),
        ("indexed", {"a": [b"x"]}, "'a[0]'"),
        ("brackets", {"a": {(1, 2): "x"}}, "'a'"),
        ("brackets", {"a": {"b": object()}}, "'a[b]'"),
    ],
)
def test_what_a_style_cannot_send_is_named(
    style: ParamStyle, params: dict[str, Any], named: str
) -> None:
    with pytest.raises(ParameterError, match=named.replace("[", r"\[")):
        RestEndpoint(param_style=style).url(params)


def test_a_bad_style_is_refused_where_the_endpoint_is_written() -> None:
    with pytest.raises(ValueError, match="param_style must be one of"):
        RestEndpoint(param_style="json")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="param_style"):
        RestEndpoint().extend(param_style="bracket")  # type: ignore[call-overload]


def test_the_style_is_inherited_by_extend_use_and_resource() -> None:
    base = RestEndpoint(url_prefix=API, param_style="brackets")
    assert base.extend(path="/x").param_style == "brackets"
    assert base.use().param_style == "brackets"
    posts = resource(path="/posts/:id", schema=None, endpoint=base)
    assert (
        posts.get_list.url({"ids": [1, 2]}) == f"{API}/posts/?ids%5B%5D=1&ids%5B%5D=2"
    )

    class Api(RestEndpoint):
        param_style = "indexed"

    assert Api().extend(path="/y").url({"a": [1]}) == "/y?a%5B0%5D=1"


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 2 else 5)
    scalars: list[Any] = [None, True, False, 0, -3, 2.5, "", "a b", "é&=", "x,y"]
    if kind < 5:
        return rng.choice(scalars)
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_repeat_styled_is_the_fast_paths_query_for_any_params() -> None:
    rng = random.Random(20240601)
    for _ in range(2000):
        params = {
            rng.choice("abcdefgh_[]%"): _random_value(rng)
            for _ in range(rng.randrange(5))
        }
        fast = encode_query(query_pairs(params, frozenset({"a"}), "e"))
        assert styled_query(params, frozenset({"a"}), "repeat", "e") == fast, params


def test_form_fields_keep_their_order_and_send_repeats_as_lists() -> None:
    fields = form_fields(
        {"z": 1, "a": {"y": [1, 2], "x": None}, "f": b"raw"},
        "brackets",
        "POST /x",
        multipart=True,
    )
    assert fields == {"z": "1", "a[y][]": ["1", "2"], "f": b"raw"}
    assert list(fields) == ["z", "a[y][]", "f"]
    with pytest.raises(ParameterError, match="'f'"):
        form_fields({"f": b"raw"}, "repeat", "POST /x", multipart=False)


# -- on the wire, under both drivers ------------------------------------------------


def body_pairs(content: bytes) -> list[tuple[str, str]]:
    return parse_qsl(content.decode("ascii"), keep_blank_values=True)


async def test_a_form_body_is_written_in_the_endpoints_style(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    create = RestEndpoint(
        url_prefix=API, path="/v1/customers", method="POST", param_style="brackets"
    )
    await controller.fetch(create, body=Form(STRIPE_LIKE))
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert body_pairs(request.content) == [
        ("metadata[plan]", "pro"),
        ("metadata[seats]", "3"),
        ("created[gte]", "1700000000"),
        ("items[0][price]", "p1"),
        ("items[0][quantity]", "2"),
        ("items[1][price]", "p2"),
        ("expand[]", "customer"),
        ("expand[]", "invoice"),
        ("livemode", "false"),
    ]


async def test_a_form_dict_under_repeat_is_refused_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    create = RestEndpoint(url_prefix=API, path="/x", method="POST")
    with pytest.raises(ParameterError, match=r"'metadata'.*param_style=\"brackets\""):
        await controller.fetch(create, body=Form({"metadata": {"a": "b"}}))
    assert httpx_mock.get_requests() == []


async def test_a_default_form_is_sent_as_before_but_none_is_left_out(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    create = RestEndpoint(url_prefix=API, path="/x", method="POST")
    await controller.fetch(create, body=Form({"a": [1, 2], "b": True, "c": None}))
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"a=1&a=2&b=true"


async def test_multipart_fields_are_styled_and_files_untouched(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    upload = RestEndpoint(
        url_prefix=API, path="/v1/files", method="POST", param_style="brackets"
    )
    body = Form(
        {"purpose": "dispute_evidence", "file_link_data": {"create": True}},
        files={"file": ("a.txt", b"hello", "text/plain")},
    )
    await controller.fetch(upload, body=body)
    request = httpx_mock.get_request()
    assert request is not None
    content = request.content
    assert b'name="file_link_data[create]"\r\n\r\ntrue\r\n' in content
    assert b'name="purpose"\r\n\r\ndispute_evidence\r\n' in content
    assert b'filename="a.txt"' in content
    assert b"hello" in content


class DeclareForm:
    """Declares a dict body a urlencoded form, as a middleware may."""

    def on_request(self, exchange: Any) -> None:
        exchange.headers["content-type"] = "application/x-www-form-urlencoded"


class ReadsBody:
    """Encodes the body ahead (as a signing middleware does) and keeps it."""

    requires_request_body = True

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def on_request(self, exchange: Any) -> None:
        self.seen.append(exchange.encode())


async def test_a_dict_declared_a_form_is_styled_even_when_encoded_ahead(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    reader = ReadsBody()
    create = RestEndpoint(
        url_prefix=API, path="/x", method="POST", param_style="indexed"
    ).use(DeclareForm(), reader)
    await controller.fetch(create, body={"a": ["x", "y"], "m": {"k": 1}})
    await controller.fetch(create, body=Form({"a": ["x", "y"], "m": {"k": 1}}))
    first, second = httpx_mock.get_requests()
    expected = b"a%5B0%5D=x&a%5B1%5D=y&m%5Bk%5D=1"
    assert first.content == second.content == expected
    assert reader.seen == [expected, expected]


async def test_a_json_body_is_never_styled(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    create = RestEndpoint(url_prefix=API, path="/x", method="POST", param_style="comma")
    await controller.fetch(create, body={"m": {"k": [1, 2]}, "n": None})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b'{"m":{"k":[1,2]},"n":null}'


async def test_the_query_in_a_style_is_the_request_key(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[1], is_reusable=True)
    listing = RestEndpoint(url_prefix=API, path="/charges", param_style="brackets")
    await controller.get(listing, {"created": {"gte": 1, "lt": 2}})
    await controller.get(listing, {"created": {"lt": 2, "gte": 1}})  # stored
    assert len(httpx_mock.get_requests()) == 1
    assert str(httpx_mock.get_requests()[0].url) == (
        f"{API}/charges?created%5Bgte%5D=1&created%5Blt%5D=2"
    )


async def test_the_exact_bytes_reach_a_real_server(
    controller: Any, origin_a: RecordingServer
) -> None:
    create = RestEndpoint(
        url_prefix=origin_a.origin,
        path="/v1/customers",
        method="POST",
        param_style="brackets",
    )
    await controller.fetch(
        create,
        {"expand": ["customer"], "created": {"gte": 1700000000}},
        Form({"metadata": {"plan": "pro plus"}, "items": [{"price": "p1"}]}),
    )
    (received,) = origin_a.requests
    assert received.path == (
        "/v1/customers?created%5Bgte%5D=1700000000&expand%5B%5D=customer"
    )
    assert received.body == b"metadata%5Bplan%5D=pro+plus&items%5B0%5D%5Bprice%5D=p1"
    assert received.headers["content-type"] == "application/x-www-form-urlencoded"
    split = urlsplit(received.path)
    assert parse_qsl(split.query) == [
        ("created[gte]", "1700000000"),
        ("expand[]", "customer"),
    ]
