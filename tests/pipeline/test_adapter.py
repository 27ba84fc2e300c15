"""``_wire.adapter``: the one-step request equals ``client.build_request``'s
(a bodiless one, made directly, equals the library's ``Request`` attribute
by attribute), the direct send (a client restwire made) equals
``client.send``'s outcome, a body is read into ``response.content`` by
public means, and a user's client is used as given."""

from __future__ import annotations

import http.cookiejar
import itertools
import logging
import random
import types
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    BodyTooLarge,
    Controller,
    Exchange,
    InvalidRequest,
    RestEndpoint,
)
from restwire._base.library import LIBRARIES, Request
from restwire._chain.exchange import call_headers
from restwire._wire import adapter as _adapter
from restwire._wire.adapter import (
    Adapter,
    HeadersSeen,
    add_cookie_header,
    build_request,
    empty_request,
    fields_kept,
)
from restwire._wire.content import BodyReader
from tests.conftest import SSL_CONTEXT

URL = httpx.URL("https://api.example.com/items/1?b=2&a=1")

CLIENTS: dict[str, dict[str, Any]] = {
    "default": {},
    "own headers": {"headers": {"X-Client": "1", "Accept": "text/plain"}},
    "cookies": {"cookies": {"sessionid": "s", "csrftoken": "c"}},
    "scoped cookies": {"cookies": httpx.Cookies()},  # filled by scoped_jar()
    "params": {"params": {"page": "2"}},
    "base_url": {"base_url": "https://other.example.org/v1"},
    "auth": {"auth": ("user", "pass")},
    "timeout": {"timeout": httpx.Timeout(3.0, connect=1.0)},
}

HEADERS: dict[str, list[tuple[str, str]]] = {
    "none": [],
    "call's own": [("Access-Token", "t"), ("accept", "application/json")],
    "repeated": [("X-Tag", "a"), ("x-tag", "b")],
    "overrides a client header": [("x-client", "2"), ("User-Agent", "me")],
    "explicit cookie": [("Cookie", "mine=1")],
    "explicit host": [("Host", "elsewhere.example")],
    "explicit length": [("Content-Length", "0")],
}

BODIES: dict[str, dict[str, Any]] = {
    "none": {},
    "bytes": {"content": b'{"a":1}'},
    "form": {"data": {"a": "1", "b": ["2", "3"]}},
    "multipart": {"files": {"f": ("a.txt", b"hello", "text/plain")}},
}

TIMEOUTS = [None, httpx.Timeout(0.5)]


def described(request: Request) -> tuple[Any, ...]:
    return (
        request.method,
        str(request.url),
        request.headers.raw,
        request.extensions,
        request.read(),
    )


#: A body is sent with POST; a bodiless request (built by ``_wire.adapter`` without
#: ``httpx.Request``'s encoding) also with the methods httpx gives
#: ``Content-Length: 0`` (PUT, lower-case patch) and those it does not.
MATRIX = [
    ("POST", *case) for case in itertools.product(CLIENTS, HEADERS, BODIES, TIMEOUTS)
] + [
    (method, *case, "none", None)
    for method in ("GET", "DELETE", "PUT", "patch")
    for case in itertools.product(CLIENTS, HEADERS)
]


@pytest.mark.parametrize(
    ("method", "client_name", "headers_name", "body_name", "timeout"), MATRIX
)
def test_the_one_step_request_is_the_one_httpx_builds(
    method: str,
    client_name: str,
    headers_name: str,
    body_name: str,
    timeout: httpx.Timeout | None,
) -> None:
    client = httpx.Client(verify=SSL_CONTEXT, **CLIENTS[client_name])
    if client_name == "scoped cookies":
        client.cookies = scoped_jar()
    headers = httpx.Headers(HEADERS[headers_name])
    arguments = dict(BODIES[body_name])
    if body_name == "multipart":  # a fixed boundary, so both bodies compare
        headers["content-type"] = "multipart/form-data; boundary=fixed"
    ours = build_request(
        client, method, URL, httpx.Headers(headers), timeout, arguments
    )
    theirs = client.build_request(
        method,
        URL,
        headers=httpx.Headers(headers),
        timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout,
        **arguments,
    )
    assert described(ours) == described(with_call_query(client, theirs))


@pytest.mark.anyio
@pytest.mark.parametrize("client_name", CLIENTS)
async def test_an_async_client_gets_the_same_bodiless_request(client_name: str) -> None:
    """The same one-step request on an ``AsyncClient``, whose stream must be
    one it can send."""
    async with httpx.AsyncClient(verify=SSL_CONTEXT, **CLIENTS[client_name]) as client:
        if client_name == "scoped cookies":
            client.cookies = scoped_jar()
        headers = httpx.Headers(HEADERS["call's own"])
        ours = build_request(client, "GET", URL, httpx.Headers(headers), None, {})
        theirs = client.build_request("GET", URL, headers=httpx.Headers(headers))
        assert described(ours) == described(with_call_query(client, theirs))
        assert isinstance(ours.stream, httpx.AsyncByteStream)
        assert [chunk async for chunk in ours.stream] == [b""]


def with_call_query(
    client: httpx.Client | httpx.AsyncClient, built: Request
) -> Request:
    """``built`` (by httpx's ``build_request``) with the call's own query
    kept, the client's params after it: httpx puts a client's params in
    place of the URL's whole query, and restwire loses none of it."""
    if client.params:
        assert built.url.query == str(client.params).encode()  # (httpx's way)
        built.url = URL.copy_with(query=URL.query + b"&" + built.url.query)
    return built


def scoped_jar() -> httpx.Cookies:
    """Cookies the jar's policy sorts: by domain (the URL's, a parent, the
    ``Host`` header's, another), path, secure flag and expiry."""
    jar = httpx.Cookies()
    jar.set("host_only", "1", domain="api.example.com")
    jar.set("parent", "2", domain=".example.com")
    jar.set("elsewhere", "3", domain="elsewhere.example")
    jar.set("other", "4", domain="other.example.org")
    jar.set("deep", "5", domain="api.example.com", path="/items/1/more")
    jar.set("shallow", "6", domain="api.example.com", path="/items")
    jar.jar.set_cookie(
        _cookie("secure_only", "7", "api.example.com", secure=True, expires=None)
    )
    jar.jar.set_cookie(_cookie("expired", "8", "api.example.com", expires=1))
    return jar


def _cookie(
    name: str, value: str, domain: str, *, secure: bool = False, expires: int | None
) -> http.cookiejar.Cookie:
    return http.cookiejar.Cookie(
        0, name, value, None, False, domain, True, False, "/", True, secure,
        expires, False, None, None, {},
    )  # fmt: skip


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/items/1/more?x=1",
        "http://api.example.com/items/2",
        "https://elsewhere.example/",
        "https://deeper.api.example.com/",
    ],
)
@pytest.mark.parametrize("headers_name", HEADERS)
def test_the_jar_adds_the_cookie_header_httpx_adds(url: str, headers_name: str) -> None:
    """restwire's jar wrapper reads only the headers the jar's policy
    consults: the same Cookie header, in the same place, over URLs and
    headers (an explicit Host or Cookie among them) that change it."""
    jar = scoped_jar()
    ours = httpx.Request("GET", url, headers=HEADERS[headers_name])
    theirs = httpx.Request("GET", url, headers=HEADERS[headers_name])
    add_cookie_header(jar.jar, ours)
    jar.set_cookie_header(theirs)
    assert ours.headers.raw == theirs.headers.raw
    if url.endswith("more?x=1") and headers_name == "none":  # the jar did sort
        sent = ours.headers["cookie"].split("; ")
        # longest path first; of equal paths, httpx2's jar (indexed by
        # domain) orders them its own way
        assert sent[:2] == ["deep=5", "shallow=6"]
        assert sorted(sent[2:]) == ["host_only=1", "parent=2", "secure_only=7"]


def test_cookies_are_read_from_the_client_as_it_is_now() -> None:
    """Nothing is copied ahead of time: a user replacing the jar, or adding
    to it, changes the next request."""
    client = httpx.Client()
    assert (
        "cookie"
        not in build_request(client, "GET", URL, httpx.Headers(), None, {}).headers
    )
    client.cookies = httpx.Cookies({"a": "1"})
    client.cookies.set("b", "2", domain="api.example.com")
    client.headers["X-Late"] = "yes"
    request = build_request(client, "GET", URL, httpx.Headers(), None, {})
    assert request.headers["cookie"] == "a=1; b=2"
    assert request.headers["x-late"] == "yes"
    assert len(client.cookies.jar) == 2  # read in place, never copied into it


def answer(request: httpx.Request) -> httpx.Response:
    """Bodies as streams, as a real transport gives them (not read yet)."""
    if request.url.path == "/set":
        return httpx.Response(
            200,
            headers={"set-cookie": "fresh=1; Path=/"},
            stream=httpx.ByteStream(b"x"),
        )
    return httpx.Response(200, stream=httpx.ByteStream(b"plain"))


def made(cookies: dict[str, str] | None = None) -> Adapter:
    """A client restwire makes itself, on a mock transport: sent on directly."""
    adapter = Adapter.of(None, httpx.MockTransport(answer), asynchronous=False)
    if cookies:
        adapter.client.cookies = httpx.Cookies(cookies)
    return adapter


@pytest.mark.parametrize("path", ["/set", "/plain"])
@pytest.mark.parametrize("store", [True, False])
def test_the_direct_send_ends_as_client_send_does(path: str, store: bool) -> None:
    ours = made({"old": "1"})
    assert ours.transport is not None  # sent on directly
    theirs = httpx.Client(transport=httpx.MockTransport(answer), cookies={"old": "1"})
    url = f"https://api.example.com{path}"
    mine = ours.send(ours.client.build_request("GET", url), True, store)
    sent = theirs.send(theirs.build_request("GET", url), stream=True)
    if not store:
        theirs.cookies.delete("fresh")  # what restwire's refusing scope leaves
    assert mine.read() == sent.read()
    mine.close()
    sent.close()
    assert (mine.status_code, mine.request.url, mine.history) == (
        sent.status_code,
        sent.request.url,
        sent.history,
    )
    assert mine.default_encoding == sent.default_encoding
    assert mine.elapsed.total_seconds() >= 0  # timed from the send to the close
    assert sent.elapsed.total_seconds() >= 0
    assert dict(ours.client.cookies) == dict(theirs.cookies)


def test_the_direct_send_logs_as_httpx_does(caplog: pytest.LogCaptureFixture) -> None:
    adapter = made()
    # httpx2 logs as "httpx2", restwire's direct send as its client's library
    with caplog.at_level(logging.INFO, logger=httpx.__name__):
        adapter.send(
            adapter.client.build_request("GET", "https://api.example.com/plain"),
            True,
            True,
        )
    assert caplog.messages == [
        'HTTP Request: GET https://api.example.com/plain "HTTP/1.1 200 OK"'
    ]


def test_hooks_and_client_auth_go_through_client_send() -> None:
    adapter = made()
    assert adapter._direct(with_client_auth=True) is not None
    adapter.client.event_hooks["request"].append(lambda request: None)
    assert adapter._direct(with_client_auth=True) is None
    adapter = made()
    adapter.client.auth = ("u", "p")
    assert adapter._direct(with_client_auth=True) is None
    # once a redirect has left the origin, the client's auth is not used
    assert adapter._direct(with_client_auth=False) is not None
    assert isinstance(adapter.client, httpx.Client)
    adapter.client.close()
    with pytest.raises(RuntimeError, match="client has been closed"):
        adapter._direct(with_client_auth=False)


def test_a_given_client_is_sent_on_its_own_transport() -> None:
    """A plain client the user gave: its hops go to its transport directly
    (``client.send`` would add tens of microseconds, docs/performance.md);
    a hop that needs its auth goes through ``client.send``."""
    transport = httpx.MockTransport(answer)
    client = httpx.Client(transport=transport, auth=("ann", "secret"))
    adapter = Adapter.of(client, None, asynchronous=False)
    assert not adapter.owned
    assert adapter._direct(with_client_auth=False) is transport
    assert adapter._direct(with_client_auth=True) is None


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (
            lambda: httpx.Client(mounts={"http://": httpx.HTTPTransport()}),
            "picks a transport by URL",
        ),
        (
            lambda: httpx.Client(event_hooks={"request": [lambda request: None]}),
            "has event hooks",
        ),
    ],
)
def test_a_client_restwire_cannot_honour_goes_through_send_said_once(
    make: Any, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "restwire")
    with make() as client:
        adapter = Adapter.of(client, None, asynchronous=False)
        assert adapter._direct(with_client_auth=False) is None
        assert adapter._direct(with_client_auth=False) is None
    said = [record.getMessage() for record in caplog.records]
    assert len([line for line in said if why in line]) == 1, said


def test_proxies_from_the_environment_send_a_given_client_through_send(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx makes the environment's proxies mounts of the client: restwire
    leaves the choice of transport to it."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with httpx.Client() as client:
        assert Adapter.of(client, None, asynchronous=False).transport is None


def test_a_given_clients_default_encoding_is_kept_on_its_transport() -> None:
    """A body whose content type names no charset is read in the client's
    default encoding, on the direct path as through ``client.send``."""

    def latin(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-type": "text/plain"},
            content="café".encode("latin-1"),
        )

    endpoint = RestEndpoint(url_prefix="https://api.example.com", content="text")
    for hooks in ({}, {"request": [lambda request: None]}):
        client = httpx.Client(
            transport=httpx.MockTransport(latin),
            default_encoding="latin-1",
            event_hooks=hooks,
        )
        with Controller(client) as controller:
            assert controller.fetch(endpoint) == "café"
        client.close()


def test_a_hook_added_later_is_run() -> None:
    seen: list[str] = []
    client = httpx.Client(transport=httpx.MockTransport(answer))
    controller = Controller(client)
    plain = RestEndpoint(
        url_prefix="https://api.example.com", path="/plain", content="text"
    )
    assert controller.fetch(plain) == "plain"
    client.event_hooks["request"].append(lambda request: seen.append(str(request.url)))
    assert controller.fetch(plain) == "plain"
    assert seen == ["https://api.example.com/plain"]


def test_a_hook_on_a_client_restwire_made_is_run_too() -> None:
    seen: list[str] = []
    with Controller(transport=httpx.MockTransport(answer)) as controller:
        plain = RestEndpoint(
            url_prefix="https://api.example.com", path="/plain", content="text"
        )
        assert controller.fetch(plain) == "plain"
        controller.client.event_hooks["request"].append(
            lambda request: seen.append(str(request.url))
        )
        assert controller.fetch(plain) == "plain"
    assert seen == ["https://api.example.com/plain"]


def client_state(client: httpx.Client | httpx.AsyncClient) -> dict[str, Any]:
    """Everything of a client restwire could change: its attributes (the
    transports and mounts among them), headers, cookie jar. (Its state
    changes from "unopened" to "opened" by httpx's own first send.)"""
    return {
        "attributes": {
            name: id(value) for name, value in vars(client).items() if name != "_state"
        },
        "names": sorted(vars(client)),
        "headers": client.headers.raw,
        "cookies": [(c.domain, c.name, c.value) for c in client.cookies.jar],
        "hooks": {kind: list(hooks) for kind, hooks in client.event_hooks.items()},
    }


def test_a_given_client_is_never_modified(tmp_path: Any) -> None:
    """A user's client after calls, a cache, redirects and a close is the
    client it was: the same transport, mounts, state and attributes."""
    from restwire import HttpCache

    client = httpx.Client(
        transport=httpx.MockTransport(answer), headers={"X-Mine": "1"}
    )
    before = client_state(client)
    with Controller(client, cache=HttpCache.sqlite(tmp_path / "c.db")) as controller:
        plain = RestEndpoint(
            url_prefix="https://api.example.com", path="/plain", content="text"
        )
        assert controller.fetch(plain) == "plain"
        assert controller.get(plain) == "plain"
    assert client_state(client) == before
    assert not client.is_closed  # a client the user gave stays open


@pytest.mark.anyio
async def test_a_given_async_client_is_never_modified() -> None:
    async def answer_async(request: httpx.Request) -> httpx.Response:
        return answer(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer_async))
    before = client_state(client)
    async with AsyncController(client) as controller:
        plain = RestEndpoint(
            url_prefix="https://api.example.com", path="/plain", content="text"
        )
        assert await controller.fetch(plain) == "plain"
    assert client_state(client) == before
    assert not client.is_closed
    await client.aclose()


def test_a_client_of_the_wrong_kind_names_the_controller_to_use() -> None:
    with pytest.raises(
        TypeError, match=r"httpx2?\.AsyncClient; for that client use AsyncController"
    ):
        Controller(httpx.AsyncClient())  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"httpx2?\.Client; for that client use Controller"
    ):
        AsyncController(httpx.Client())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a client or a transport, not both"):
        Controller(httpx.Client(), transport=httpx.MockTransport(answer))


@pytest.mark.parametrize("library_name", ["httpx", "httpx2"])
def test_a_client_of_either_library_and_the_wrong_kind_names_the_other_controller(
    library_name: str,
) -> None:
    library = pytest.importorskip(library_name)
    with pytest.raises(TypeError) as caught:
        Controller(library.AsyncClient())
    assert str(caught.value) == (
        "Controller takes an httpx.Client (or an httpx2.Client), or none (it "
        f"makes one), not {library.__name__}.AsyncClient; for that client use "
        "AsyncController"
    )
    with pytest.raises(TypeError) as caught:
        AsyncController(library.Client())
    assert str(caught.value) == (
        "AsyncController takes an httpx.AsyncClient (or an httpx2.AsyncClient), "
        f"or none (it makes one), not {library.__name__}.Client; for that client "
        "use Controller"
    )


class Session:
    """What a requests.Session looks like to restwire: a client of another
    library."""

    def get(self, url: str) -> None: ...


def test_a_url_given_as_the_client_says_where_a_url_goes() -> None:
    with pytest.raises(TypeError) as caught:
        Controller("https://api.example.com")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Controller takes an httpx.Client (or an httpx2.Client), or none (it "
        "makes one), not builtins.str 'https://api.example.com': a URL goes in "
        "RestEndpoint(url_prefix=...) or httpx.Client(base_url=...)"
    )


def test_a_client_of_another_library_says_what_is_accepted() -> None:
    with pytest.raises(TypeError) as caught:
        AsyncController(Session())  # type: ignore[arg-type]
    assert str(caught.value) == (
        "AsyncController takes an httpx.AsyncClient (or an httpx2.AsyncClient), "
        "or none (it makes one), not tests.pipeline.test_adapter.Session: "
        "restwire sends with httpx or httpx2 only; make an httpx.AsyncClient "
        "with the settings you need"
    )
    assert "for that client use" not in str(caught.value)


def test_a_transport_given_as_the_client_names_the_transport_keyword() -> None:
    with pytest.raises(
        TypeError, match=r"which is a transport: write Controller\(transport=\.\.\.\)$"
    ):
        Controller(httpx.MockTransport(answer))  # type: ignore[arg-type]


def test_a_transport_of_the_wrong_kind_names_the_other_controller() -> None:
    with pytest.raises(TypeError) as caught:
        AsyncController(transport=httpx.HTTPTransport())  # type: ignore[arg-type]
    assert str(caught.value).startswith(
        "AsyncController(transport=...) takes an httpx.AsyncBaseTransport"
    )
    assert str(caught.value).endswith(
        "not httpx.HTTPTransport; for that transport use Controller"
    ) or str(caught.value).endswith(
        "not httpx2.HTTPTransport; for that transport use Controller"
    )
    with pytest.raises(TypeError, match=r"for that transport use AsyncController$"):
        Controller(transport=httpx.AsyncHTTPTransport())  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"takes an httpx\.BaseTransport .*not builtins\.str$"
    ):
        Controller(transport="http://127.0.0.1:8000")  # type: ignore[arg-type]


def test_a_transport_without_httpx_base_classes_is_taken() -> None:
    class Answering:
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return httpx.Response(200, json={"ok": True}, request=request)

        def close(self) -> None: ...

    with Controller(transport=Answering()) as controller:  # type: ignore[arg-type]
        assert controller.fetch(RestEndpoint(url_prefix="http://x.test")) == {
            "ok": True
        }


def gzipped(body: bytes) -> httpx.Response:
    import gzip

    return httpx.Response(
        200,
        headers={"content-encoding": "gzip", "content-type": "application/json"},
        stream=httpx.ByteStream(gzip.compress(body)),
        request=httpx.Request("GET", URL),
    )


def test_a_body_is_loaded_decoded_by_restwire_and_its_headers_kept() -> None:
    response = gzipped(b'{"a": 1}')
    raw = list(response.headers.raw)
    Adapter.load(response, BodyReader(response, limit=100))
    assert response.content == b'{"a": 1}'  # decoded once, not twice
    assert response.json() == {"a": 1}
    assert response.headers.raw == raw  # Content-Encoding still says gzip
    assert response.is_closed


def test_the_limit_counts_decoded_bytes() -> None:
    response = gzipped(b"x" * 10_000)  # a few dozen bytes on the wire
    with pytest.raises(BodyTooLarge):
        Adapter.load(response, BodyReader(response, limit=1_000))
    assert response.is_closed
    assert response.headers["content-encoding"] == "gzip"


def test_headers_found_fit_once_are_checked_again_only_when_they_differ() -> None:
    """``build_request`` remembers the call's own headers and the client's
    as last found fit to send: the same again are not checked, and any
    change is (a field HTTP cannot carry is refused every time it is
    asked for, however many fit calls came before)."""
    client = httpx.Client(headers={"X-Client": "c"})
    checked = HeadersSeen()
    fit = httpx.Headers({"X-Own": "1"})
    unfit = httpx.Headers({"X-Own": "1\r\nX-Smuggled: 2"})
    for headers in (fit, fit, unfit, unfit, fit):
        if headers is unfit:
            with pytest.raises(InvalidRequest, match="X-Own"):
                build_request(client, "GET", URL, headers, None, {}, checked=checked)
        else:
            build_request(client, "GET", URL, headers, None, {}, checked=checked)
            assert checked.last is not None
            assert checked.last[:2] == (client.headers._list, fit._list)
    client.headers["X-Client"] = "c\n"
    with pytest.raises(InvalidRequest, match="X-Client"):
        build_request(client, "GET", URL, fit, None, {}, checked=checked)


def test_what_was_made_of_the_last_headers_serves_only_the_same_headers() -> None:
    """``build_request`` keeps what it made of the last call's headers and
    the client's (merged, lowered); a call whose headers differ, its own or
    the client's, gets a request of its own headers, as the client builds
    it, and a header set on one request is on no other."""
    client = httpx.Client(headers={"X-Client": "c"})
    seen = HeadersSeen()
    one = httpx.Headers({"X-Own": "1"})
    two = httpx.Headers({"X-Own": "2", "Accept": "text/plain"})
    for headers in (one, one, two, one, two, two):
        made = build_request(client, "GET", URL, headers, None, {}, checked=seen)
        public = client.build_request("GET", URL, headers=headers)
        assert made.headers.raw == public.headers.raw
    client.headers["X-Client"] = "d"
    made = build_request(client, "GET", URL, two, None, {}, checked=seen)
    assert made.headers.raw == client.build_request("GET", URL, headers=two).headers.raw
    made.headers["X-Later"] = "1"
    again = build_request(client, "GET", URL, two, None, {}, checked=seen)
    assert "x-later" not in again.headers
    for method in ("POST", "PUT", "PATCH", "DELETE"):  # (Content-Length: 0 or none)
        made = build_request(client, method, URL, two, None, {}, checked=seen)
        public = client.build_request(method, URL, headers=two)
        assert made.headers._list == public.headers._list


def test_headers_changed_in_place_are_checked_and_sent_as_they_are_now() -> None:
    """What ``build_request`` remembers is a copy of the headers' fields:
    a call's headers (or the client's) changed in place since are read
    again, checked again, and sent as they are now."""
    client = httpx.Client(headers={"X-Client": "c"})
    seen = HeadersSeen()
    own = httpx.Headers({"X-Own": "1"})
    build_request(client, "GET", URL, own, None, {}, checked=seen)
    own["X-Own"] = "2"
    made = build_request(client, "GET", URL, own, None, {}, checked=seen)
    assert made.headers["X-Own"] == "2"
    client.headers["X-Client"] = "d"
    made = build_request(client, "GET", URL, own, None, {}, checked=seen)
    assert made.headers["X-Client"] == "d"
    own["X-Own"] = "2\r\nX-Smuggled: 1"
    with pytest.raises(InvalidRequest, match="X-Own"):
        build_request(client, "GET", URL, own, None, {}, checked=seen)


class _ShownOtherwise(httpx.Headers):
    """Headers whose raw items are not what they keep (a subclass that
    reports its own): read the public way."""

    @property
    def raw(self) -> list[tuple[bytes, bytes]]:
        return [(b"X-Shown", b"1"), *super().raw]


def test_headers_that_keep_their_fields_otherwise_are_read_the_public_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_adapter, "_FIELDS_KEPT", {})
    for library in LIBRARIES:
        assert fields_kept(library.Headers)
    for library in LIBRARIES:
        assert fields_kept(call_headers(library))
    assert not fields_kept(_ShownOtherwise)
    client = httpx.Client()
    seen = HeadersSeen()
    for _ in range(2):
        made = build_request(
            client, "GET", URL, _ShownOtherwise({"X-Own": "1"}), None, {}, checked=seen
        )
        assert (b"X-Shown", b"1") in made.headers.raw
    assert seen.last is not None
    assert seen.last[1] == _ShownOtherwise({"X-Own": "1"}).raw


def test_the_client_headers_changed_while_a_request_is_built_are_seen_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another thread that changes the client's headers (a token renewed)
    while a request is built: that request may carry the old value, but
    what is kept is what it was built from, so the next call carries the
    new one (one copy of the headers compared, merged and kept)."""
    client = httpx.Client(headers={"Authorization": "Bearer OLD"})
    seen = HeadersSeen()
    merge = _adapter.merged_headers
    renewed: list[bool] = []

    def merged_then_renewed(*given: Any) -> Any:
        made = merge(*given)
        if not renewed:  # the other thread's write, once, mid-build
            renewed.append(True)
            client.headers["Authorization"] = "Bearer NEW"
        return made

    monkeypatch.setattr(_adapter, "merged_headers", merged_then_renewed)
    build_request(client, "GET", URL, httpx.Headers(), None, {}, checked=seen)
    for _ in range(2):
        made = build_request(
            client, "GET", URL, httpx.Headers(), None, {}, checked=seen
        )
        assert made.headers["Authorization"] == "Bearer NEW"


def test_client_headers_changed_between_the_comparison_and_the_copy_are_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The call's own headers differ from the last call's, so the fields
    of both are copied; the client's, changed by another thread between
    the comparison and the copy to a value HTTP cannot carry, are checked
    as copied, and refused, not taken as the same as last time."""
    client = httpx.Client(headers={"X-Client": "c"})
    seen = HeadersSeen()
    build_request(
        client, "GET", URL, httpx.Headers({"X-Own": "1"}), None, {}, checked=seen
    )
    live = client.headers._list

    def copied(fields: Any) -> list[Any]:
        if fields is live:  # the other thread's write, just before the copy
            client.headers["X-Client"] = "c\r\nX-Smuggled: 1"
        return list(fields)

    monkeypatch.setattr(_adapter, "list", copied, raising=False)
    with pytest.raises(InvalidRequest, match="X-Client"):
        build_request(
            client, "GET", URL, httpx.Headers({"X-Own": "2"}), None, {}, checked=seen
        )


class _Audited(httpx.Headers):
    """Headers of a user's own class that do more when a header is set."""

    def __setitem__(self, key: str, value: str) -> None:
        _AUDIT.append(key)
        super().__setitem__(key, value.upper())


_AUDIT: list[str] = []


def test_a_headers_class_of_your_own_is_never_probed_and_set_its_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a library's own headers class, or one restwire makes of it, is
    read and set through the fields it keeps: a subclass of yours is
    neither probed (nothing set on it to find out) nor set around its own
    ``__setitem__``."""
    monkeypatch.setattr(_adapter, "_FIELDS_KEPT", {})
    _AUDIT.clear()
    assert not fields_kept(_Audited)
    assert _AUDIT == []
    # (the name checked once already, on restwire's own headers class)
    checked: Any = types.SimpleNamespace(
        headers=call_headers(httpx)(), sensitive=set(), label="GET /x"
    )
    Exchange.set_credential(checked, "Authorization", "bearer t")
    exchange: Any = types.SimpleNamespace(
        headers=_Audited(), sensitive=set(), label="GET /x"
    )
    for _ in range(2):
        Exchange.set_credential(exchange, "Authorization", "bearer t")
    assert exchange.headers["Authorization"] == "BEARER T"
    assert _AUDIT == ["Authorization", "Authorization"]


@pytest.mark.parametrize("name", ["Set-Cookie", "SET-COOKIE", "set-cookie"])
def test_a_cookie_set_under_a_name_of_any_case_reaches_the_jar(
    httpx_mock: HTTPXMock, name: str
) -> None:
    httpx_mock.add_response(headers=[(name, "session=s1; Path=/")], json={})
    with Controller() as controller:
        controller.fetch(RestEndpoint(url_prefix="https://api.example.com", path="/in"))
        assert controller.client.cookies.get("session") == "s1"


class _PutFirst(httpx.Headers):
    """Sets a new name as the first field, not the last."""

    def __setitem__(self, key: str, value: str) -> None:
        self._list.insert(0, (key.encode(), key.lower().encode(), value.encode()))


class _NotLowered(httpx.Headers):
    """Keeps each field's name as given where the lower-case one goes."""

    def __init__(self, headers: Any = None) -> None:
        super().__init__(headers)
        self._list = [(name, name, value) for name, _, value in self._list]


@pytest.mark.parametrize("kept_otherwise", [_ShownOtherwise, _PutFirst, _NotLowered])
def test_the_check_of_kept_fields_refuses_each_way_of_keeping_them_otherwise(
    kept_otherwise: type,
) -> None:
    """What :func:`fields_kept` asks of a class restwire knows (the check
    itself, asked directly): raw items as the fields say, the lower-case
    names lowered, a new name set as one field appended."""
    for library in LIBRARIES:
        assert _adapter._keeps_fields(library.Headers)
    assert not _adapter._keeps_fields(kept_otherwise)


def test_a_url_of_another_library_is_refused_as_the_library_refuses_it() -> None:
    if len(LIBRARIES) < 2:
        pytest.skip("needs httpx and httpx2 both installed")
    one, other = LIBRARIES
    url = one.URL("https://api.example.com/a")
    with pytest.raises(TypeError):
        other.Request("GET", url)
    with pytest.raises(TypeError):
        empty_request(other, "GET", url, [(b"Accept", b"accept", b"*/*")], {})


# -- a bodiless request, made directly ------------------------------------------


@pytest.fixture(params=LIBRARIES, ids=lambda library: library.__name__)
def library(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> types.ModuleType:
    """httpx and httpx2, each checked again (an empty record of the check)."""
    monkeypatch.setattr(_adapter, "_DIRECT_REQUESTS", {})
    module: types.ModuleType = request.param
    return module


#: Raw header fields random requests are made of: repeats, cases, bytes
#: that are not ASCII, empty values.
_FIELDS = [
    (b"Host", b"api.example.com"),
    (b"Accept", b"*/*"),
    (b"accept", b"application/json"),
    (b"ACCEPT-ENCODING", b"gzip, deflate"),
    (b"X-Thing", b"\xe9t\xe9"),
    (b"X-Empty", b""),
    (b"Cookie", b"a=1; b=2"),
    (b"Content-Length", b"0"),
    (b"x-\xff", b"\xff"),
]


def _alike(made: Any, public: Any) -> None:
    """``made`` is the request ``public`` is, attribute by attribute."""
    assert type(made) is type(public)
    assert vars(made).keys() == vars(public).keys()
    assert made.method == public.method
    assert made.url == public.url
    assert made.url._uri_reference == public.url._uri_reference
    assert vars(made.headers) == vars(public.headers)
    assert made.extensions == public.extensions
    assert made.stream is public.stream
    assert made.read() == made.content == public.read() == b""
    assert made.headers.raw == public.headers.raw
    assert list(made.headers.multi_items()) == list(public.headers.multi_items())
    assert made.headers.encoding == public.headers.encoding
    assert repr(made) == repr(public)


def test_a_bodiless_request_is_made_as_the_library_makes_it(
    library: types.ModuleType,
) -> None:
    chance = random.Random(7)
    stream = _adapter._EMPTY[library]
    for _ in range(300):
        fields = [chance.choice(_FIELDS) for _ in range(chance.randrange(8))]
        method = chance.choice(["GET", "DELETE", "HEAD", "OPTIONS"])
        url = library.URL(f"https://api.example.com/items/{chance.randrange(99)}?q=1")
        extensions = {"timeout": {"read": chance.random()}}
        lowered = [(name, name.lower(), value) for name, value in fields]
        made = empty_request(library, method, url, lowered, extensions)
        public = library.Request(
            method, url, headers=fields, stream=stream, extensions=extensions
        )
        public.read()
        _alike(made, public)
        assert made.url is not url  # (its own, as Request makes it)
        assert made.extensions is not extensions
    assert _adapter._DIRECT_REQUESTS[library] is True  # made directly


def test_a_bodiless_request_is_its_own(library: types.ModuleType) -> None:
    """Changing one request's headers or extensions changes no other's,
    nor what they were made from."""
    url = library.URL("https://api.example.com/a")
    fields = [(b"Accept", b"accept", b"*/*")]
    extensions: dict[str, Any] = {"timeout": {}}
    first = empty_request(library, "GET", url, fields, extensions)
    second = empty_request(library, "GET", url, fields, extensions)
    first.headers["Cookie"] = "a=1"
    first.extensions["trace"] = True
    assert "cookie" not in second.headers
    assert "trace" not in second.extensions
    assert fields == [(b"Accept", b"accept", b"*/*")]
    assert extensions == {"timeout": {}}


def test_a_library_with_other_request_internals_makes_its_own(
    library: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library whose requests keep their headers otherwise is left to
    make its requests the public way."""

    class OtherHeaders(library.Headers):  # type: ignore[name-defined,misc]
        def __init__(self, headers: Any = None, encoding: Any = None) -> None:
            super().__init__(headers, encoding)
            self._seen = True

    other = types.ModuleType("other")
    for name in ("URL", "Request", "ByteStream"):
        setattr(other, name, getattr(library, name))
    other.Headers = OtherHeaders  # type: ignore[attr-defined]
    monkeypatch.setitem(_adapter._EMPTY, other, library.ByteStream(b""))
    url = library.URL("https://api.example.com/a")
    made = empty_request(other, "GET", url, [(b"Accept", b"accept", b"*/*")], {})
    assert _adapter._DIRECT_REQUESTS[other] is False
    assert made.headers["accept"] == "*/*"
    assert made.read() == b""
