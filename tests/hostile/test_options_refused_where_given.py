"""Wrong options of the newer APIs, and params no URL can hold, are refused
where they are given, with a ``RestwireError`` (``UsageError``,
``SettingError``, ``ParameterError``, ``InvalidRequest``) that names the
option and its value: never a bare ``TypeError`` or ``UnicodeEncodeError``
from inside, never accepted to fail at every call later, never sent as a
repr. Each call under both drivers; nothing reaches the server."""

from __future__ import annotations

import copy
import datetime
import enum
import inspect
import ipaddress
import math
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    STICKY_COOKIES,
    AsyncController,
    Controller,
    Entity,
    Exchange,
    HttpCache,
    InvalidRequest,
    LogoutManager,
    ParameterError,
    RestEndpoint,
    RestwireError,
    SettingError,
    Sharing,
    UsageError,
    fast_transport,
    resource,
)
from restwire._base.effects import Flow
from restwire.middlewares import IdempotencyKey, RenameKeys, Retry
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Item(Entity):
    id: str = ""


items = RestEndpoint(url_prefix=API, path="/items/")
item = RestEndpoint(url_prefix=API, path="/items/:id")


async def called(controller: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``controller.method(...)`` under either driver: a sync controller's
    method through the test wrapper is awaited; the async one's paginate
    is no coroutine (it raises, or returns an iterator, when called)."""
    result = getattr(controller, method)(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


def refused(error: pytest.ExceptionInfo[RestwireError], *shown: str) -> None:
    """A restwire error, not only the built-in one it may also be, whose
    message shows each of ``shown``."""
    assert isinstance(error.value, RestwireError)
    for text in shown:
        assert text in str(error.value), (text, str(error.value))


# -- paginate, invalidate_all, forget ------------------------------------------------


@pytest.mark.parametrize("bad", ["5", 0, -1, 2.5, True, None])
async def test_paginate_refuses_max_pages_when_called(
    controller: Any, httpx_mock: HTTPXMock, bad: Any
) -> None:
    """At the call, before anything is iterated: ``max_pages="5"`` was a
    generator that failed with ``TypeError`` at the first page, and ``0``
    quietly gave nothing."""
    with pytest.raises(SettingError) as error:
        await called(controller, "paginate", items, max_pages=bad)
    refused(error, "paginate(max_pages=...)", repr(bad))
    assert httpx_mock.get_requests() == []


async def test_paginate_refuses_items_that_is_no_bool_and_a_non_endpoint(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(UsageError) as error:
        await called(controller, "paginate", items, items="yes")
    refused(error, "paginate(items=...)", "'yes'")
    with pytest.raises(UsageError) as error:
        await called(controller, "paginate", "/items/")
    refused(error, "paginate() takes a RestEndpoint", "not str")
    assert httpx_mock.get_requests() == []


async def test_paginate_with_good_options_still_pages(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/items/", json=[{"id": 1}])
    pages = await called(controller, "paginate", items, max_pages=1, items=True)
    got = [each async for each in pages] if hasattr(pages, "__aiter__") else list(pages)
    assert got == [{"id": 1}]


@pytest.mark.parametrize("bad", [[], {}, {"tok-ann"}, bytearray(b"ann")])
async def test_invalidate_all_and_forget_refuse_an_identity_that_cannot_be_one(
    controller: Any, bad: Any
) -> None:
    """An identity keys the store's partitions: an unhashable one was a
    bare ``TypeError: unhashable type``. The value is not shown (a caller
    might pass its credentials)."""
    with pytest.raises(UsageError) as error:
        await called(controller, "invalidate_all", items, identity=bad)
    refused(error, "invalidate_all(identity=...)", type(bad).__name__)
    assert "tok-ann" not in str(error.value)
    with pytest.raises(UsageError) as error:
        await called(controller, "forget", bad)
    refused(error, "forget(identity=...)")


# -- IdempotencyKey, fast_transport ----------------------------------------------------


@pytest.mark.parametrize(
    ("methods", "kind", "shown"),
    [
        ([1], UsageError, "1"),
        (["POST", None], UsageError, "None"),
        (["PO ST"], SettingError, "'PO ST'"),
        ([""], SettingError, "''"),
        ("POST", UsageError, "'POST'"),
        (5, UsageError, "5"),
    ],
)
def test_idempotency_key_refuses_methods_that_are_none(
    methods: Any, kind: type[RestwireError], shown: str
) -> None:
    """``methods=[1]`` was an ``AttributeError`` ('int' has no 'upper')."""
    with pytest.raises(kind) as error:
        IdempotencyKey(methods=methods)
    refused(error, "IdempotencyKey(methods=...)", shown)


@pytest.mark.parametrize(
    ("option", "bad", "kind", "shown"),
    [
        # (a text taken as a collection: GET was then never retried)
        ("methods", "GET", UsageError, "'GET'"),
        ("methods", [1], UsageError, "1"),
        ("methods", ["GE T"], SettingError, "'GE T'"),
        ("statuses", 503, UsageError, "503"),
        ("statuses", "503", UsageError, "'503'"),
        ("statuses", ["503"], UsageError, "'503'"),
        ("statuses", [True], UsageError, "True"),
        ("statuses", [1000], SettingError, "1000"),
        ("attempts", "3", UsageError, "'3'"),
        ("attempts", 2.0, UsageError, "2.0"),
        ("attempts", True, UsageError, "True"),
        ("attempts", 0, SettingError, "0"),
        # (accepted before, then a bare TypeError inside the first retry)
        ("backoff", "0.5", UsageError, "'0.5'"),
        ("max_backoff", -1, SettingError, "-1"),
        ("budget", "60", UsageError, "'60'"),
        ("budget", math.inf, SettingError, "inf"),
        ("budget", math.nan, SettingError, "nan"),
        ("clock", 3, UsageError, "3"),
        ("jitter", None, UsageError, "None"),
    ],
)
def test_retry_refuses_options_it_cannot_work_with(
    option: str, bad: Any, kind: type[RestwireError], shown: str
) -> None:
    with pytest.raises(kind) as error:
        Retry(**{option: bad})
    refused(error, f"Retry({option}=", shown)


def test_retry_takes_good_options_as_given() -> None:
    retry = Retry(
        2, statuses={503}, methods=["get", "put"], backoff=0, max_backoff=1, budget=5
    )
    assert (retry.attempts, retry.statuses, retry.methods) == (
        2,
        frozenset({503}),
        frozenset({"GET", "PUT"}),
    )


@pytest.mark.parametrize(
    ("option", "bad", "kind", "shown"),
    [
        # (each letter a pattern, "*" among them: every cookie was sticky,
        # and one user's answers reached another)
        ("sticky_cookies", "BIGipServer*", UsageError, "'BIGipServer*'"),
        ("sticky_cookies", ("*",), SettingError, "'*'"),
        ("sticky_cookies", ["AWSALB", ""], SettingError, "''"),
        ("sticky_cookies", [b"AWSALB"], UsageError, "b'AWSALB'"),
        ("public_headers", "accept", UsageError, "'accept'"),
        ("public_headers", [1], UsageError, "1"),
        ("public_headers", None, UsageError, "None"),
        ("public_headers", object(), UsageError, "object"),
        # (the letters replaced the default list of credential params)
        ("credential_params", "api_token", UsageError, "'api_token'"),
        ("credential_params", b"sig", UsageError, "b'sig'"),
    ],
)
def test_sharing_refuses_a_list_that_is_none(
    option: str, bad: Any, kind: type[RestwireError], shown: str
) -> None:
    with pytest.raises(kind) as error:
        Sharing(**{option: bad})
    refused(error, f"Sharing({option}=...)", shown)


@pytest.mark.parametrize(
    "names",
    [
        STICKY_COOKIES,
        ("INGRESSCOOKIE",),  # (nginx-ingress's: "cookie" in a balancer's name)
        ("heroku-session-affinity",),
        ("GCLB",),
        ("ROUTE*", "lb_pool"),
    ],
)
def test_sharing_takes_load_balancers_cookies(names: tuple[str, ...]) -> None:
    assert Sharing(sticky_cookies=names).sticky_cookies == names


def test_sharing_takes_lists_of_names() -> None:
    sharing = Sharing(
        public_headers=frozenset({"Accept"}),
        credential_params=frozenset({"Sig"}),
        sticky_cookies=("BIGipServer*",),
    )
    assert sharing.public_headers == frozenset({"accept"})
    assert sharing.credential_params == frozenset({"sig"})
    assert sharing.sticky("BIGipServerpool")
    assert not sharing.sticky("session")


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        # (iterated: a bare TypeError, or its letters taken for managers)
        (LogoutManager(), "not one LogoutManager"),
        ("x", "not one str"),
        (5, "not one int"),
    ],
)
@pytest.mark.parametrize("kind", [Controller, AsyncController])
def test_a_controller_refuses_managers_that_are_no_list(
    kind: type[Any], bad: Any, shown: str
) -> None:
    with pytest.raises(UsageError) as error:
        kind(managers=bad)
    refused(error, "managers= takes a list of managers", shown)


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        ("carrots", "not str"),  # (a bare ValueError from dict())
        ([("a", "b")], "not list"),  # (a bare AttributeError: no .items)
        ({"a": 1}, "'a': 1"),
        ({1: "a"}, "1: 'a'"),
    ],
)
def test_rename_keys_refuses_a_mapping_that_is_none(bad: Any, shown: str) -> None:
    with pytest.raises(UsageError) as error:
        RenameKeys(bad)
    refused(error, "RenameKeys(mapping)", shown)


#: A URL given where an endpoint is needed: its password and key were
#: quoted in the error (or a bare AttributeError came out).
URL_TEXT = "https://deploy:hunter2-SECRET@api.example.com/items?api_key=key-SECRET"


@pytest.mark.parametrize(
    ("method", "arguments"),
    [
        ("fetch", ()),
        ("fetch_response", ()),
        ("fetch_with_response", ()),
        ("get", ()),
        ("set", ({},)),
        ("invalidate", ()),
        ("key", ()),
        ("poll_interval", ()),
        ("paginate", ()),
        ("stream", ()),
        ("subscribe", (None, print)),
        ("download", ()),
        ("poll", ()),
    ],
)
async def test_a_url_where_an_endpoint_goes_is_refused_without_its_secrets(
    controller: Any, method: str, arguments: tuple[Any, ...]
) -> None:
    options = {"to": "."} if method == "download" else {}

    async def attempt() -> None:
        result = await called(controller, method, URL_TEXT, *arguments, **options)
        if method in ("stream", "poll"):  # (generators: they check when read)
            await collect(result)

    with pytest.raises(UsageError) as error:
        await attempt()
    message = str(error.value)
    assert f"{method}() takes a RestEndpoint, not str" in message
    assert "RestEndpoint(url_prefix=..., path=...)" in message
    assert "SECRET" not in message


async def test_invalidate_all_names_the_type_alone(controller: Any) -> None:
    with pytest.raises(UsageError) as error:
        await called(controller, "invalidate_all", URL_TEXT)
    assert "not str" in str(error.value)
    assert "SECRET" not in str(error.value)


@pytest.mark.parametrize(
    ("bad", "kind", "shown"),
    [
        # (every comparison with NaN is false: ~18,000 requests a second)
        (math.nan, SettingError, "finite number of seconds, not nan"),
        (math.inf, SettingError, "finite number of seconds, not inf"),
        ("1", UsageError, "number of seconds, not str"),
        (True, UsageError, "number of seconds, not bool"),
    ],
)
async def test_subscribe_refuses_a_frequency_no_poller_can_keep(
    controller: Any, bad: Any, kind: type[RestwireError], shown: str
) -> None:
    with pytest.raises(kind) as error:
        await called(controller, "subscribe", item, {"id": "1"}, print, frequency=bad)
    refused(error, "frequency=", shown)


def test_a_poll_frequency_may_be_a_timedelta_as_an_endpoint_s_may() -> None:
    from restwire._controller.polling import frequency_of

    assert frequency_of(item, datetime.timedelta(seconds=30)) == 30.0
    with pytest.raises(SettingError):
        frequency_of(item, datetime.timedelta(seconds=-1))


@pytest.mark.parametrize("option", ["poll_frequency", "timeout"])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_an_endpoint_refuses_a_wait_that_never_ends(option: str, bad: float) -> None:
    options: dict[str, Any] = {option: bad}
    with pytest.raises(SettingError) as error:
        RestEndpoint(url_prefix=API, **options)
    refused(error, option, "finite number of seconds")


@pytest.mark.parametrize("option", ["data_expiry_length", "error_expiry_length"])
def test_an_expiry_may_be_forever_but_never_nan(option: str) -> None:
    options: dict[str, Any] = {option: math.inf}
    assert getattr(RestEndpoint(url_prefix=API, **options), option) == math.inf
    options[option] = math.nan
    with pytest.raises(SettingError) as error:
        RestEndpoint(url_prefix=API, **options)
    refused(error, option, "not nan")


def _entity_with(field: str, annotation: Any, value: Any) -> type[Any]:
    """An ``Entity`` subclass declaring ``field`` as ``annotation = value``."""
    namespace: dict[str, Any] = {"__annotations__": {"id": str}, "id": ""}
    if annotation is not None:
        namespace["__annotations__"][field] = annotation
    namespace[field] = value
    return type("Book", (Entity,), namespace)


@pytest.mark.parametrize(
    ("field", "annotation", "value", "shown"),
    [
        # (DRF's "pk": every call failed, 'int' object is not callable)
        ("pk", int, 0, "a field cannot be named 'pk'"),
        ("extra_fields", dict, None, "a field cannot be named 'extra_fields'"),
        ("pk", None, "id", "pk is the method that gives the primary key"),
        ("schema", None, 5, "schema is a mapping of field names"),
        ("schema", str, "", "schema is a mapping of field names"),
        ("key", None, 5, "key is the type's name in the store"),
        ("check_types", None, "yes", "check_types is True or False"),
    ],
)
def test_an_entity_refuses_a_definition_no_call_could_use(
    field: str, annotation: Any, value: Any, shown: str
) -> None:
    with pytest.raises(UsageError) as error:
        _entity_with(field, annotation, value)
    refused(error, "Book: ", shown)


#: A wrong value, typed so that a type checker lets the call be written.
NOT_TEXT: Any = 5


def _middleware(name: str) -> Callable[..., Any]:
    import restwire.middlewares

    return getattr(restwire.middlewares, name)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "shown"),
    [
        # (per=nan: the second call spun forever, no wait compares with nan)
        ("RateLimit", {"limit": 1, "per": math.nan}, SettingError, "per=nan"),
        ("RateLimit", {"max_wait": math.nan}, SettingError, "max_wait=nan"),
        ("RateLimit", {"lease": math.nan}, SettingError, "lease=nan"),
        ("RateLimit", {"per": math.inf}, SettingError, "per=inf"),
        ("RateLimit", {"limit": 2.5}, UsageError, "limit=...) must be a whole"),
        ("RateLimit", {"limit": "5"}, UsageError, "limit=...) must be a whole"),
        ("RateLimit", {"per": "1"}, UsageError, "per=...) must be a number"),
        ("RateLimit", {"name": 5}, UsageError, "name=...) must be text"),
        ("RateLimit", {"redis_timeout": -1}, SettingError, "redis_timeout=-1"),
        ("RateLimit", {"redis": 5}, UsageError, "a Redis URL or a redis-py client"),
        ("RateLimit", {"redis": "no-url"}, SettingError, "is not a Redis URL"),
        ("SharedToken", {"redis_client": 5}, UsageError, "a Redis URL or a"),
        ("SharedToken", {"redis_client": "nope"}, SettingError, "not a Redis URL"),
        ("CsrfToken", {"cookie": 5}, UsageError, "cookie=...) must be text"),
        ("CsrfToken", {"header": "X Y"}, SettingError, "not a header name"),
        ("CsrfToken", {"header": "Nämé"}, SettingError, "not a header name"),
        ("FillPrimaryKey", {"field": 5}, UsageError, "field=...) must be text"),
        ("FillPrimaryKey", {"field": ""}, SettingError, "names, not ''"),
        ("FillPrimaryKey", {"field": "id", "param": 5}, UsageError, "param=..."),
        ("BodyPagination", {"param": 5}, UsageError, "param=...) must be text"),
        ("FileDownload", {"fallback": 5}, UsageError, "fallback=...) must be"),
        ("CookieCredentials", {"mode": [1]}, SettingError, "mode must be one of"),
        ("OpenTelemetry", {"tracer_provider": 5}, UsageError, "a TracerProvider"),
    ],
)
def test_a_middleware_refuses_settings_it_cannot_work_with(
    name: str, arguments: dict[str, Any], kind: type[RestwireError], shown: str
) -> None:
    with pytest.raises(kind) as error:
        _middleware(name)(**arguments)
    refused(error, shown)
    assert "pw-SECRET" not in str(error.value)


def test_a_redis_url_s_password_never_shows_in_its_refusal() -> None:
    with pytest.raises(SettingError) as error:
        _middleware("RateLimit")(redis="nope://:pw-SECRET@127.0.0.1:1")
    refused(error, "is not a Redis URL")
    assert "pw-SECRET" not in str(error.value)
    with pytest.raises(SettingError) as error:
        HttpCache.redis("nope://:pw-SECRET@127.0.0.1:1")
    assert "pw-SECRET" not in str(error.value)


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        (lambda: HttpCache.sqlite(NOT_TEXT), "HttpCache.sqlite() takes a file's path"),
        (lambda: HttpCache.redis(NOT_TEXT), "HttpCache.redis() takes a Redis URL"),
        (lambda: RestEndpoint(url_prefix=API, process=NOT_TEXT), "process must be"),
        (
            lambda: RestEndpoint(url_prefix=API, parse_response=NOT_TEXT),
            "parse_response must be",
        ),
    ],
)
def test_a_cache_or_endpoint_refuses_what_it_cannot_call(
    make: Callable[[], Any], shown: str
) -> None:
    with pytest.raises(UsageError) as error:
        make()
    refused(error, shown)


@pytest.mark.parametrize(
    "names",
    [
        ("sessionid",),  # (bob's get returned alice's /me)
        ("sess*",),
        ("s*",),
        ("AWSALB", "JSESSIONID"),
        ("PHPSESSID",),
        ("connect.sid",),
        ("auth_lb*",),
        ("jwt",),
        ("j*",),
        ("SSO",),
        ("CASTGC",),
        ("AspNetCore.Identity.Application",),
        ("wordpress_logged_in_*",),
    ],
)
def test_sharing_refuses_a_sticky_name_that_could_be_a_session(
    names: tuple[str, ...],
) -> None:
    with pytest.raises(SettingError) as error:
        Sharing(sticky_cookies=names)
    refused(error, "could name a session or credential cookie")


@pytest.mark.parametrize("header", ["Idempotenz-Schlüssel", "Idempotency Key", ""])
def test_idempotency_key_refuses_a_header_name_http_cannot_send(header: str) -> None:
    with pytest.raises(SettingError) as error:
        IdempotencyKey(header=header)
    refused(error, "IdempotencyKey(header=...)", repr(header))


@pytest.mark.parametrize(
    ("option", "bad"),
    [
        ("max_connections", "10"),
        ("max_connections", 0),
        ("max_connections", -5),
        ("max_connections", True),
        ("max_connections", 2.5),
        ("keepalive_expiry", "5"),
        ("keepalive_expiry", -1),
        ("keepalive_expiry", math.nan),
        ("keepalive_expiry", False),
    ],
)
def test_fast_transport_refuses_limits_when_called(option: str, bad: Any) -> None:
    """``max_connections="10"`` was accepted, and failed inside aiohttp at
    the first request."""
    with pytest.raises(SettingError) as error:
        fast_transport(**{option: bad})
    refused(error, f"fast_transport({option}=...)", repr(bad))


def test_fast_transport_takes_its_limits_and_none() -> None:
    assert fast_transport(max_connections=None, keepalive_expiry=None) is not None
    assert fast_transport(max_connections=10, keepalive_expiry=0) is not None


# -- header names ---------------------------------------------------------------------

NOT_NAMES = ["Nämé", "X Name", "X:Name", "", "X-Näme\r\nInjected"]


@pytest.mark.parametrize("name", NOT_NAMES)
def test_an_endpoint_refuses_a_header_name_http_cannot_send(name: str) -> None:
    """Where written: ``RestEndpoint``, ``extend``, ``resource``,
    ``sensitive_headers``; ``Nämé`` was a bare ``UnicodeEncodeError``
    from httpx."""
    makers: list[Callable[[], Any]] = [
        lambda: RestEndpoint(url_prefix=API, headers={name: "v"}),
        lambda: items.extend(headers={name: "v"}),
        lambda: resource(
            path="/items/:id", schema=Item, endpoint=items, headers={name: "v"}
        ),
    ]
    for make in makers:
        with pytest.raises(SettingError) as error:
            make()
        refused(error, "headers: the header name", repr(name), "RFC 9110")
    with pytest.raises(SettingError) as error:
        items.extend(sensitive_headers=[name])
    refused(error, "sensitive_headers: the header name", repr(name))


class SetsHeader:
    """A middleware that sets a header, one way or another."""

    def __init__(self, how: str, name: str) -> None:
        self.how = how
        self.name = name

    def on_request(self, exchange: Exchange) -> None:
        name, secret = self.name, "tok-middleware-1f2e"
        if self.how == "item":
            exchange.headers[name] = secret
        elif self.how == "update":
            exchange.headers.update({"x-fine": "1", name: secret})
        elif self.how == "setdefault":
            exchange.headers.setdefault(name, secret)
        else:
            exchange.set_credential(name, secret)


class SetsHeaderInFlow:
    """The full form, setting a header before it calls on."""

    def handle(self, exchange: Exchange, call_next: Any) -> Flow[Any]:
        exchange.headers["Nämé"] = "v"
        return (yield from call_next(exchange))


@pytest.mark.parametrize("how", ["item", "update", "setdefault", "set_credential"])
@pytest.mark.parametrize("name", ["Nämé", "X Name"])
async def test_a_header_name_a_middleware_sets_is_refused_naming_the_call(
    controller: Any, httpx_mock: HTTPXMock, how: str, name: str
) -> None:
    """Set by a middleware (``Nämé`` was a bare ``UnicodeEncodeError``; a
    name with a space went to the wire): an ``InvalidRequest`` naming the
    call and the name, the value not shown, nothing sent."""
    with pytest.raises(InvalidRequest) as error:
        await controller.fetch(item.use(SetsHeader(how, name)), {"id": 1})
    refused(error, "GET https://api.example.com/items/1:", repr(name))
    assert type(error.value) is InvalidRequest
    assert "tok-middleware-1f2e" not in str(error.value)
    assert httpx_mock.get_requests() == []


async def test_a_header_name_set_in_a_flow_middleware_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(InvalidRequest) as error:
        await controller.fetch(item.use(SetsHeaderInFlow()), {"id": 1})
    refused(error, "'Nämé'", "a middleware set the header name")
    assert httpx_mock.get_requests() == []


async def test_a_middleware_setting_good_names_is_untouched(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"ok": True})
    await controller.fetch(item.use(SetsHeader("update", "X-Trace_Id.1")), {"id": 1})
    sent = httpx_mock.get_requests()[0]
    assert sent.headers["x-trace_id.1"] == "tok-middleware-1f2e"
    assert sent.headers["x-fine"] == "1"


# -- params ---------------------------------------------------------------------------


def numbers() -> Iterator[int]:
    yield from (1, 2, 3)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (numbers(), "generator, which can be read only once"),
        (iter([1, 2]), "list_iterator, which can be read only once"),
        (map(str, [1, 2]), "map, which can be read only once"),
        (range(3), "range, not a single value"),
        ({"a": 1}.keys(), "dict_keys, not a single value"),
    ],
)
@pytest.mark.parametrize("style", ["repeat", "brackets"])
async def test_a_one_shot_or_unlisted_collection_param_is_refused(
    controller: Any, httpx_mock: HTTPXMock, value: Any, said: str, style: Any
) -> None:
    """A generator was sent as its repr (``a=%3Cgenerator...``), and a
    ``range`` as ``range(0, 3)``."""
    endpoint = items.extend(param_style=style)
    with pytest.raises(ParameterError) as error:
        await controller.fetch(endpoint, {"a": value})
    refused(error, "parameter 'a'", said, "pass a list or a tuple")
    with pytest.raises(ParameterError):
        await controller.fetch(item, {"id": value})  # a path segment
    assert httpx_mock.get_requests() == []


@pytest.mark.parametrize("style", ["repeat", "comma", "indexed"])
async def test_a_param_named_by_no_text_is_refused(
    controller: Any, httpx_mock: HTTPXMock, style: Any
) -> None:
    """``{1: "x"}`` was a bare ``TypeError`` from multidict (or from
    sorting, mixed with text names)."""
    endpoint = items.extend(param_style=style)
    for params in ({1: "x"}, {1: "x", "b": 2}, {None: "x"}):
        with pytest.raises(ParameterError) as error:
            await controller.fetch(endpoint, params)
        refused(error, "a parameter is named by the", "a parameter's name is text")
    assert httpx_mock.get_requests() == []


class Color(enum.StrEnum):
    RED = "red"


async def test_single_values_still_go_as_text(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Text (a str enum too, which is iterable), numbers, lists, tuples and
    a collection with a text of its own are taken as before."""
    httpx_mock.add_response(json=[])
    network = ipaddress.ip_network("10.0.0.0/8")  # iterable, with a text of its own
    params = {"c": Color.RED, "n": 2.5, "l": [1, 2], "t": (3,), "net": network}
    await controller.fetch(items, params)
    query = httpx_mock.get_requests()[0].url.query
    assert query == b"c=red&l=1&l=2&n=2.5&net=10.0.0.0%2F8&t=3"


async def test_a_calls_headers_copy_and_pickle_as_the_librarys_own(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The class that checks the names a middleware sets stays out of the
    way: ``exchange.headers`` is the library's ``Headers`` (a subclass),
    and copies and pickles as the library's own class."""
    seen: list[Any] = []

    class Keeps:
        def on_request(self, exchange: Exchange) -> None:
            exchange.headers["x-kept"] = "1"
            seen.append(exchange.headers)

    httpx_mock.add_response(json={})
    await controller.fetch(item.use(Keeps()), {"id": 1})
    (headers,) = seen
    plain = type(controller.client.headers)
    assert isinstance(headers, plain)
    for copied in (copy.copy(headers), pickle.loads(pickle.dumps(headers))):
        assert type(copied) is plain
        assert copied["x-kept"] == "1"
