"""restwire against httpbin under gunicorn: a real server nobody here wrote.

Two httpbin processes on 127.0.0.1 are two origins. Each test runs under
both drivers and holds one of issue 13's findings, or one promise README
makes, to a server whose answers restwire's authors did not choose: Flask's
empty 201, a delete answered with a status body, ``Link`` pages ending in
an object, 3xx not followed, one URL through two endpoints, credentials on a
redirect to the other origin, timeouts, compressed and oversized bodies,
``Content-Disposition`` names, retries.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from restwire import (
    BodyTooLarge,
    ContentError,
    NetworkError,
    RestEndpoint,
    TransportError,
    resource,
)
from restwire.middlewares import (
    AccessToken,
    FileDownload,
    FillPrimaryKey,
    LinkPagination,
    Retry,
    SnakeCaseKeys,
)
from tests.conftest import collect
from tests.httpbin import Httpbin
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="session")
def httpbins() -> Iterator[tuple[str, str]]:
    with Httpbin() as first, Httpbin() as second:
        yield first.origin, second.origin


@pytest.fixture
def origin(httpbins: tuple[str, str]) -> str:
    return httpbins[0]


@pytest.fixture
def other_origin(httpbins: tuple[str, str]) -> str:
    return httpbins[1]


async def test_flasks_empty_201_and_a_204_are_none(
    controller: Any, origin: str
) -> None:
    status = RestEndpoint(url_prefix=origin, path="/status/:code", method="POST")
    assert await controller.fetch(status, {"code": 201}, body={}) is None
    assert await controller.fetch(status, {"code": 204}, body={}) is None


async def test_a_delete_answered_with_a_status_body_removes_the_record(
    controller: Any, origin: str
) -> None:
    base = RestEndpoint(url_prefix=origin)
    get_post = base.extend(path="/anything/posts/:id", schema=Post).use(
        FillPrimaryKey("id")
    )
    delete = resource(path="/anything/posts/:id", schema=Post, endpoint=base).delete
    post = await controller.get(get_post, {"id": "1"})
    assert post.id == "1"
    assert post.extra_fields["method"] == "GET"
    assert await controller.get(get_post, {"id": "1"}) is post  # from the store
    # httpbin answers {"method": "DELETE", "url": ..., ...}: no "id" anywhere.
    await controller.fetch(delete, {"id": "1"})
    again = await controller.get(get_post, {"id": "1"})
    assert again is not post  # the record went: fetched anew
    assert again.id == "1"


async def test_link_pages_have_one_shape_to_the_last(
    controller: Any, origin: str
) -> None:
    listing = RestEndpoint(url_prefix=origin, path="/response-headers").use(
        LinkPagination()
    )
    next_page = f'<{origin}/response-headers?page=2>; rel="next"'
    pages = await collect(controller.paginate(listing, {"page": 1, "Link": next_page}))
    assert [set(page) for page in pages] == [{"link", "links", "results", "total"}] * 2
    assert [page["results"]["page"] for page in pages] == ["1", "2"]
    assert str(pages[0]["links"]["next"].url) == f"{origin}/response-headers?page=2"
    assert pages[1]["link"] is None


async def test_a_redirect_not_followed_is_returned_and_followed_hops_listed(
    controller: Any, origin: str
) -> None:
    hop = RestEndpoint(url_prefix=origin, path="/redirect-to", follow_redirects=False)
    params = {"url": "/get", "status_code": 302}
    response = await controller.fetch_response(hop, params)
    assert (response.status_code, response.headers["location"]) == (302, "/get")
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(hop, params)  # a value needs a 2xx
    assert caught.value.status == 302
    followed = await controller.fetch_response(
        RestEndpoint(url_prefix=origin, path="/redirect/2")
    )
    assert [hop.status_code for hop in followed.history] == [302, 302]
    assert followed.url.path == "/get"


async def test_one_url_through_two_endpoints_gives_each_its_own_value(
    controller: Any, origin: str
) -> None:
    raw = RestEndpoint(url_prefix=origin, path="/response-headers")
    typed = raw.extend(schema=Post).use(SnakeCaseKeys())
    params = {"id": "7", "userName": "ann"}
    value = await controller.fetch(raw, params)
    assert value["userName"] == "ann"
    post = await controller.get(typed, params)
    assert isinstance(post, Post)
    assert (post.id, post.extra_fields["user_name"]) == ("7", "ann")
    assert await controller.get(raw, params) is value  # each kept its own


async def test_no_credential_follows_a_redirect_to_the_other_origin(
    controller: Any, origin: str, other_origin: str
) -> None:
    auth = AccessToken("s3cret-token")
    host, port = origin.removeprefix("http://").split(":")
    signed = RestEndpoint(url_prefix=f"http://ann:pw@{host}:{port}").use(auth)
    home = await controller.fetch(signed.extend(path="/basic-auth/ann/pw"))
    assert home == {"authenticated": True, "user": "ann"}
    await controller.fetch(signed.extend(path="/cookies/set"), {"session": "abc"})
    seen_home = await controller.fetch(signed.extend(path="/headers"))
    assert seen_home["headers"]["Access-Token"] == "s3cret-token"
    assert "session=abc" in seen_home["headers"]["Cookie"]

    away = signed.extend(path="/redirect-to")
    seen_away = await controller.fetch(away, {"url": f"{other_origin}/headers"})
    sent = {name.lower() for name in seen_away["headers"]}
    assert not sent & {"access-token", "authorization", "cookie"}
    assert "Host" in seen_away["headers"]  # httpbin did echo the headers


async def test_an_endpoints_timeout_is_named(controller: Any, origin: str) -> None:
    slow = RestEndpoint(url_prefix=origin, path="/delay/:seconds", timeout=0.2)
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 2})
    assert str(caught.value) == (
        f"GET {origin}/delay/2: ReadTimeout: nothing came for 0.2 s (the read timeout)"
    )


@pytest.mark.parametrize(
    ("path", "flag"),
    [("/gzip", "gzipped"), ("/deflate", "deflated"), ("/brotli", "brotli")],
)
async def test_compressed_bodies_are_read(
    controller: Any, origin: str, path: str, flag: str
) -> None:
    value = await controller.fetch(RestEndpoint(url_prefix=origin, path=path))
    assert value[flag] is True


@pytest.mark.parametrize("path", ["/bytes/200000", "/stream-bytes/200000"])
async def test_a_body_past_the_limit_is_refused(
    controller: Any, origin: str, path: str
) -> None:
    """Sized by Content-Length, and chunked with none."""
    endpoint = RestEndpoint(
        url_prefix=origin, path=path, content="bytes", max_body_size=50_000
    )
    with pytest.raises(BodyTooLarge, match=path):
        await controller.fetch(endpoint)


async def test_html_on_a_json_endpoint_is_named_as_such(
    controller: Any, origin: str
) -> None:
    with pytest.raises(ContentError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=origin, path="/html"))
    assert str(caught.value).startswith(
        f"GET {origin}/html: expected JSON, but the content type is "
        "'text/html; charset=utf-8'"
    )


@pytest.mark.parametrize(
    ("disposition", "name"),
    [
        ("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
        (
            "attachment; filename=\"invoice.pdf\"; filename*=UTF-8''report%2",
            "invoice.pdf",
        ),
        ('attachment; filename="../../etc/passwd"', "passwd"),
    ],
)
async def test_file_names_from_a_real_header(
    controller: Any, origin: str, tmp_path: Path, disposition: str, name: str
) -> None:
    named = RestEndpoint(url_prefix=origin, path="/response-headers", content="bytes")
    params = {"Content-Disposition": disposition}
    small = await controller.fetch(named.use(FileDownload()), params)
    assert small["filename"] == name
    assert small["bytes"].startswith(b"{")  # httpbin's JSON, as bytes
    path = await controller.download(named, params, to=tmp_path)
    assert path == tmp_path / name
    assert os.listdir(tmp_path) == [name]


async def test_retry_gives_up_saying_how_many_attempts(
    controller: Any, origin: str
) -> None:
    flaky = RestEndpoint(url_prefix=origin, path="/status/503").use(
        Retry(attempts=3, backoff=0.01)
    )
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(flaky)
    assert caught.value.status == 503
    assert caught.value.attempts == 3
    assert "gave up after 3 attempts" in str(caught.value)
