"""IdempotencyKey: one key per call on the listed methods, the same on
every re-send (retries, refreshes, redirects), none on reads; and Retry
re-sending a POST that carries one, against a real server too."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint, ServerError, TransportError
from restwire.middlewares import AccessToken, IdempotencyKey, Retry
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
base = RestEndpoint(url_prefix=API, path="/orders/")


def fast_retry(**options: Any) -> Retry:
    return Retry(backoff=0.001, max_backoff=0.002, jitter=lambda: 1.0, **options)


def keys(requests: list[httpx.Request], header: str = "idempotency-key") -> list[Any]:
    return [request.headers.get(header) for request in requests]


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_a_listed_method_gets_a_new_uuid4_per_call(
    controller: Any, httpx_mock: HTTPXMock, method: str
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    create = base.extend(method=method).use(IdempotencyKey())
    await controller.fetch(create, body={"n": 1})
    await controller.fetch(create, body={"n": 1})
    first, second = keys(httpx_mock.get_requests())
    assert uuid.UUID(first).version == 4
    assert uuid.UUID(second).version == 4
    assert first != second  # one key per call, never reused


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "HEAD"])
async def test_other_methods_get_none(
    controller: Any, httpx_mock: HTTPXMock, method: str
) -> None:
    httpx_mock.add_response(json={} if method != "HEAD" else None)
    endpoint = base.extend(method=method).use(IdempotencyKey())
    await controller.fetch_response(endpoint)
    assert keys(httpx_mock.get_requests()) == [None]


async def test_the_methods_and_header_can_be_chosen(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    key = IdempotencyKey(header="X-Request-Key", methods=("put",))
    await controller.fetch(base.extend(method="PUT").use(key), body={})
    await controller.fetch(base.extend(method="POST").use(key), body={})
    put, post = httpx_mock.get_requests()
    assert uuid.UUID(put.headers["x-request-key"]).version == 4
    assert "x-request-key" not in post.headers
    assert "idempotency-key" not in put.headers


async def test_a_key_the_caller_set_is_kept(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(status_code=201, json={})
    create = base.extend(method="POST", headers={"Idempotency-Key": "order-42"}).use(
        IdempotencyKey(), fast_retry()
    )
    await controller.fetch(create, body={})
    assert keys(httpx_mock.get_requests()) == ["order-42", "order-42"]


@pytest.mark.parametrize("order", ["key outside retry", "retry outside key"])
async def test_a_post_retried_after_a_503_carries_the_same_key(
    controller: Any, httpx_mock: HTTPXMock, order: str
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_exception(httpx.ReadError("connection dropped"))
    httpx_mock.add_response(status_code=201, json={"id": "1"})
    layers: list[Any] = [IdempotencyKey(), fast_retry(attempts=3)]
    if order == "retry outside key":
        layers.reverse()
    create = base.extend(method="POST").use(*layers)
    assert await controller.fetch(create, body={"n": 1}) == {"id": "1"}
    first, second, third = keys(httpx_mock.get_requests())
    assert first is not None
    assert first == second == third


async def test_retry_knows_a_key_under_another_header_name(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(status_code=201, json={})
    create = base.extend(method="POST").use(
        IdempotencyKey(header="X-Request-Key"), fast_retry()
    )
    await controller.fetch(create, body={})
    first, second = keys(httpx_mock.get_requests(), "x-request-key")
    assert first is not None
    assert first == second


async def test_without_a_key_a_post_is_still_sent_once(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    create = base.extend(method="POST").use(fast_retry())
    with pytest.raises(ServerError):
        await controller.fetch(create, body={})
    assert len(httpx_mock.get_requests()) == 1


async def test_a_token_refresh_resends_the_same_key(
    controller: Any, httpx_mock: HTTPXMock, mode: str
) -> None:
    httpx_mock.add_response(status_code=401)
    httpx_mock.add_response(status_code=201, json={})

    def refresh() -> str:
        return "new-token"

    async def arefresh() -> str:
        return "new-token"

    token = AccessToken("old-token", refresh=refresh if mode == "sync" else arefresh)
    create = base.extend(method="POST").use(IdempotencyKey(), token)
    await controller.fetch(create, body={})
    first, second = httpx_mock.get_requests()
    assert (first.headers["access-token"], second.headers["access-token"]) == (
        "old-token",
        "new-token",
    )
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


async def test_reads_through_it_are_still_shared(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"}, is_reusable=True)
    read = RestEndpoint(url_prefix=API, path="/orders/1").use(IdempotencyKey())
    assert not read.middleware.sends_credentials  # get may answer from the store
    await controller.fetch(read)
    assert await controller.get(read) == {"id": "1"}  # from the store
    assert len(httpx_mock.get_requests()) == 1


# -- against a real server -----------------------------------------------------


def real(origin: RecordingServer, path: str, *layers: Any) -> RestEndpoint:
    return RestEndpoint(url_prefix=origin.origin, path=path, method="POST").use(*layers)


async def test_a_post_whose_connection_dropped_is_resent_with_the_same_key(
    controller: Any, origin_a: RecordingServer, mode: str
) -> None:
    create = real(
        origin_a, f"/steps/drop-{mode}?do=drop,201", IdempotencyKey(), fast_retry()
    )
    assert (await controller.fetch(create, body={"n": 1}))["sent"] == 2
    first, second = origin_a.requests
    assert first.body == second.body == b'{"n":1}'
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert uuid.UUID(first.headers["idempotency-key"]).version == 4


async def test_without_the_key_a_dropped_post_is_not_resent(
    controller: Any, origin_a: RecordingServer, mode: str
) -> None:
    create = real(origin_a, f"/steps/bare-{mode}?do=drop,201", fast_retry())
    with pytest.raises(TransportError):
        await controller.fetch(create, body={"n": 1})
    assert len(origin_a.requests) == 1


async def test_a_post_that_met_a_503_is_resent_with_the_same_key(
    controller: Any, origin_a: RecordingServer, mode: str
) -> None:
    create = real(
        origin_a, f"/steps/busy-{mode}?do=503,201", IdempotencyKey(), fast_retry()
    )
    assert await controller.fetch(create, body={"n": 1}) == {"status": 201, "sent": 2}
    first, second = origin_a.requests
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


async def test_a_redirect_to_the_same_origin_repeats_the_key(
    controller: Any, origin_a: RecordingServer
) -> None:
    create = real(origin_a, "/redirect/307?to=/echo", IdempotencyKey())
    echoed = await controller.fetch(create, body={"n": 1})
    assert echoed["method"] == "POST"
    first, second = origin_a.requests
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
