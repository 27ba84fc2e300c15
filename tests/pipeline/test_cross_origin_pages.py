"""Pages follow redirect rules (issue 41, finding 5).

``paginate(cross_origin=True)`` sent the bearer token, every credential
header and the jar's cookies to whatever origin the server's next link
named, where a redirect there would have carried public headers only. A
page on another origin than the first page's is now sent as such a
redirect: public headers only, no jar cookie, not the client's ``auth``;
unless ``cross_origin`` maps that origin to the credentials it may see.

Two real servers on 127.0.0.1 (two origins: the same host on two ports, so
the jar's cookies, which ignore ports, would go to both), both drivers.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from restwire import InvalidRequest, RestEndpoint, SettingError, UsageError
from restwire.middlewares import AccessToken, LinkPagination
from tests.conftest import collect
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

BEARER = "Bearer page-SECRET-1"
API_KEY = "key-SECRET-2"
DEFAULT = "tenant-SECRET-3"
SESSION = "session-SECRET-4"

#: What the calls carry besides: a middleware's token, an endpoint's
#: credential header, a client default, the jar's cookie, the client's auth.
CREDENTIALS = ("authorization", "x-api-key", "x-tenant-token", "cookie")


def signed_in(controller_factory: Any) -> Any:
    return controller_factory(
        headers={"X-Tenant-Token": DEFAULT, "User-Agent": "pages-test"},
        cookies=httpx.Cookies({"session": SESSION}),
    )


def listing(server: RecordingServer) -> RestEndpoint[Any]:
    return (
        RestEndpoint(
            url_prefix=server.origin, path="/pages", headers={"X-Api-Key": API_KEY}
        )
        .use(AccessToken.bearer(BEARER.removeprefix("Bearer ")))
        .use(LinkPagination())
    )


def to_b(origin_b: RecordingServer) -> dict[str, Any]:
    return {"last": 2, "next": origin_b.url("/pages?page=2&last=2")}


async def test_a_page_on_another_origin_carries_public_headers_only(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    controller = signed_in(controller_factory)
    pages = await collect(
        controller.paginate(listing(origin_a), to_b(origin_b), cross_origin=True)
    )
    assert len(pages) == 2
    (first,) = origin_a.requests
    assert first.headers["authorization"] == BEARER  # home: everything
    assert first.headers["x-api-key"] == API_KEY
    assert first.headers["x-tenant-token"] == DEFAULT
    assert SESSION in first.headers["cookie"]
    (elsewhere,) = origin_b.requests
    for name in CREDENTIALS:
        assert name not in elsewhere.headers, (name, elsewhere.headers)
    assert elsewhere.headers["user-agent"] == "pages-test"  # public: sent
    assert elsewhere.headers["accept"]


async def test_the_client_s_auth_stays_home_too(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    controller = controller_factory(auth=("ann", "pw-SECRET"))
    plain = RestEndpoint(url_prefix=origin_a.origin, path="/pages").use(
        LinkPagination()
    )
    await collect(controller.paginate(plain, to_b(origin_b), cross_origin=True))
    assert origin_a.requests[0].headers["authorization"].startswith("Basic ")
    assert "authorization" not in origin_b.requests[0].headers


async def test_an_origin_named_may_see_the_credentials_named_for_it(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    controller = signed_in(controller_factory)
    allowed = {origin_b.origin: ["Authorization", "cookie"]}
    await collect(
        controller.paginate(listing(origin_a), to_b(origin_b), cross_origin=allowed)
    )
    (elsewhere,) = origin_b.requests
    assert elsewhere.headers["authorization"] == BEARER
    assert SESSION in elsewhere.headers["cookie"]
    assert "x-api-key" not in elsewhere.headers  # not named: stays home
    assert "x-tenant-token" not in elsewhere.headers


async def test_what_an_origin_may_see_goes_no_further_than_it(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    """The named origin's page redirects (to the first origin, even): the
    hop after it carries public headers only, as after any redirect that
    left home."""
    controller = signed_in(controller_factory)
    onward = origin_b.url("/redirect/302?to=" + origin_a.url("/echo"))
    allowed = {origin_b.origin: ["authorization"]}
    pages = await collect(
        controller.paginate(
            listing(origin_a), {"last": 2, "next": onward}, cross_origin=allowed
        )
    )
    assert origin_b.requests[0].headers["authorization"] == BEARER
    back_home = origin_a.requests[-1]
    assert back_home.path == "/echo"
    for name in CREDENTIALS:
        assert name not in back_home.headers, (name, back_home.headers)
    assert len(pages) == 2


async def test_pages_at_home_keep_their_credentials(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    controller = signed_in(controller_factory)
    await collect(controller.paginate(listing(origin_a), {"last": 3}))
    assert len(origin_a.requests) == 3
    for request in origin_a.requests:
        assert request.headers["authorization"] == BEARER
        assert request.headers["x-api-key"] == API_KEY


async def test_a_wrong_cross_origin_is_refused_before_a_page_is_sent(
    controller: Any, origin_a: RecordingServer
) -> None:
    endpoint = listing(origin_a)
    for wrong, kind in (
        ("yes", UsageError),
        ({"https://b.example": "authorization"}, UsageError),
        ({"https://b.example": [1]}, UsageError),
        ({"not an origin": ["authorization"]}, SettingError),
        ({"ftp://b.example": ["authorization"]}, SettingError),
    ):
        with pytest.raises(kind, match=r"cross_origin"):
            await collect(controller.paginate(endpoint, cross_origin=wrong))
    assert origin_a.requests == []
    with pytest.raises(InvalidRequest, match="another origin"):  # still refused
        await collect(controller.paginate(endpoint, {"last": 2, "next": "http://b.x/"}))


#: A client's default query params: one a credential, one not.
CLIENT_PARAMS = {"api_key": "param-SECRET-5", "format": "json"}


def _query(request: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(request.path).query)


async def test_a_page_on_another_origin_carries_none_of_the_client_s_params(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    """As a redirect there would: the link as the server wrote it. (The
    client's ``api_key`` went to the other origin with its page.)"""
    controller = controller_factory(params=CLIENT_PARAMS)
    plain = RestEndpoint(url_prefix=origin_a.origin, path="/pages").use(
        LinkPagination()
    )
    pages = await collect(controller.paginate(plain, to_b(origin_b), cross_origin=True))
    assert len(pages) == 2
    home = _query(origin_a.requests[0])
    assert home["api_key"] == [CLIENT_PARAMS["api_key"]]
    assert home["format"] == ["json"]
    assert home["last"] == ["2"]  # (the call's own, kept beside the client's)
    (elsewhere,) = origin_b.requests
    assert elsewhere.path == "/pages?page=2&last=2"


async def test_pages_at_home_keep_their_own_query_beside_the_client_s_params(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    """httpx's ``build_request`` puts a client's params in place of a URL's
    query: each next link's ``?page=2&last=3`` was dropped, and the listing
    read page one again (then stopped, the link seen)."""
    controller = controller_factory(params={**CLIENT_PARAMS, "last": "9"})
    plain = RestEndpoint(url_prefix=origin_a.origin, path="/pages").use(
        LinkPagination()
    )
    pages = await collect(controller.paginate(plain, {"last": 3}))
    assert [item["id"] for page in pages for item in page["results"]] == [
        f"{page}-{n}" for page in (1, 2, 3) for n in (1, 2)
    ]
    for number, request in enumerate(origin_a.requests, start=1):
        query = _query(request)
        assert query["api_key"] == [CLIENT_PARAMS["api_key"]]
        assert query["last"] == ["3"]  # (the call's own wins over the client's 9)
        assert query.get("page", ["1"]) == [str(number)]
