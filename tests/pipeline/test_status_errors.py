"""Status errors: a NetworkError typed by its status, with the server's
request id, Retry-After and problem details, and ``error_schema`` reading
the body into ``error.data`` (never raising in the status error's place)."""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import json
import logging
from typing import Any, TypedDict
from urllib.parse import quote

import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    BadRequestError,
    ClientError,
    ConflictError,
    Entity,
    ForbiddenError,
    Invalidate,
    NetworkError,
    NotFoundError,
    Problem,
    RestEndpoint,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableEntityError,
)
from restwire._endpoints.status_errors import error_class
from tests.conftest import restwire_records
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
PROBLEM = "application/problem+json"
get_item = RestEndpoint(url_prefix=API, path="/items/:id")


class Detail(pydantic.BaseModel):
    code: str
    message: str


@dataclasses.dataclass
class DetailRecord:
    code: str
    message: str


class DetailDict(TypedDict):
    code: str
    message: str


class Failure(Entity):
    id: str = ""
    code: str = ""


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, BadRequestError),
        (401, UnauthorizedError),
        (403, ForbiddenError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, UnprocessableEntityError),
        (429, TooManyRequestsError),
        (402, ClientError),
        (418, ClientError),
        (499, ClientError),
        (500, ServerError),
        (503, ServerError),
        (599, ServerError),
    ],
)
async def test_each_status_raises_its_own_error_a_network_error_still(
    controller: Any, httpx_mock: HTTPXMock, status: int, kind: type[NetworkError]
) -> None:
    httpx_mock.add_response(status_code=status)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert type(caught.value) is kind
    assert caught.value.status == status
    assert isinstance(caught.value, ClientError) == (status < 500)
    assert str(caught.value).startswith(f"GET {API}/items/1: {status} ")


def test_a_status_outside_4xx_and_5xx_stays_a_network_error() -> None:
    assert error_class(304) is NetworkError
    assert error_class(600) is NetworkError
    assert error_class(404) is NotFoundError


@pytest.mark.parametrize(
    ("headers", "request_id"),
    [
        ({"x-request-id": "req-1"}, "req-1"),
        ({"request-id": "req-2"}, "req-2"),
        ({"x-amzn-requestid": "amzn-3"}, "amzn-3"),
        ({"X-Correlation-ID": "corr-4"}, "corr-4"),
        ({"x-correlation-id": "corr", "x-request-id": "first"}, "first"),
        ({"x-request-id": "", "request-id": "not-empty"}, "not-empty"),
        ({}, None),
    ],
)
async def test_request_id_is_the_servers_id_of_the_request(
    controller: Any,
    httpx_mock: HTTPXMock,
    headers: dict[str, str],
    request_id: str | None,
) -> None:
    httpx_mock.add_response(status_code=500, headers=headers)
    with pytest.raises(ServerError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.request_id == request_id


def http_date(seconds_from_now: float) -> str:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(
        seconds=seconds_from_now
    )
    return email.utils.format_datetime(when, usegmt=True)


@pytest.mark.parametrize(
    ("value", "low", "high"),
    [
        ("120", 120, 120),
        ("0", 0, 0),
        # HTTP-dates are made as the test runs, not when it is collected: a
        # long suite would otherwise age them past the tolerance.
        (3600.0, 3500, 3600),
        (-3600.0, 0, 0),  # a date in the past: no wait, never negative
    ],
)
async def test_retry_after_is_seconds_to_wait(
    controller: Any,
    httpx_mock: HTTPXMock,
    value: str | float,
    low: float,
    high: float,
) -> None:
    if isinstance(value, float):
        value = http_date(value)
    httpx_mock.add_response(status_code=429, headers={"retry-after": value})
    with pytest.raises(TooManyRequestsError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.retry_after is not None
    assert low <= caught.value.retry_after <= high


@pytest.mark.parametrize("value", [None, "-5", "1.5", "soon", "", "Fri, 99 Foo"])
async def test_retry_after_is_none_when_absent_or_malformed(
    controller: Any, httpx_mock: HTTPXMock, value: str | None
) -> None:
    headers = {} if value is None else {"retry-after": value}
    httpx_mock.add_response(status_code=503, headers=headers)
    with pytest.raises(ServerError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.retry_after is None


async def test_a_problem_body_is_read_into_problem(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        status_code=403,
        json={"title": "Out of credit", "status": 403, "balance": 30},
        headers={"content-type": PROBLEM},
    )
    with pytest.raises(ForbiddenError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.problem == Problem(
        title="Out of credit", status=403, extensions={"balance": 30}
    )
    # no error_schema: the body as JSON
    assert caught.value.data == {"title": "Out of credit", "status": 403, "balance": 30}
    assert str(caught.value) == f"GET {API}/items/1: 403 Forbidden: Out of credit"


async def test_problem_is_none_for_any_other_body(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=404, json={"title": "not problem+json"})
    with pytest.raises(NotFoundError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.problem is None


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Detail, Detail(code="E1", message="bad")),
        (DetailRecord, DetailRecord(code="E1", message="bad")),
        (DetailDict, {"code": "E1", "message": "bad"}),
        ({"code": None}, {"code": "E1", "message": "bad", "id": "f-1"}),
    ],
)
async def test_error_schema_validates_the_body_into_data(
    controller: Any, httpx_mock: HTTPXMock, schema: Any, expected: Any
) -> None:
    httpx_mock.add_response(
        status_code=422, json={"code": "E1", "message": "bad", "id": "f-1"}
    )
    with pytest.raises(UnprocessableEntityError) as caught:
        await controller.fetch(get_item.extend(error_schema=schema), {"id": 1})
    assert caught.value.data == expected


async def test_an_entity_error_schema_builds_an_entity_and_stores_nothing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=409, json={"id": "f-1", "code": "taken"})
    with pytest.raises(ConflictError) as caught:
        await controller.fetch(get_item.extend(error_schema=Failure), {"id": 1})
    assert caught.value.data == Failure(id="f-1", code="taken")
    assert controller.store.records == {}  # an error body is read, never kept


@pytest.mark.parametrize(
    ("body", "data"),
    [
        (b'{"code": 1}', {"code": 1}),  # wrong type, missing field
        (b"[1, 2]", [1, 2]),  # wrong shape
        (b"<html>Bad gateway</html>", None),  # not JSON
        (b"", None),
        (b"[" * 100_000 + b"]" * 100_000, None),  # nested past the stack
    ],
)
async def test_a_body_that_does_not_validate_leaves_data_the_json_and_raises_the_status(
    controller: Any,
    httpx_mock: HTTPXMock,
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    data: Any,
) -> None:
    caplog.set_level(logging.DEBUG, logger="restwire")
    httpx_mock.add_response(status_code=400, content=body, is_reusable=True)
    for schema in (Detail, Failure, [Failure]):
        with pytest.raises(BadRequestError) as caught:
            await controller.fetch(get_item.extend(error_schema=schema), {"id": 1})
        assert caught.value.data == data
    assert any(
        "does not validate as error_schema" in record.getMessage()
        for record in restwire_records(caplog)
    )


def test_error_schema_is_kept_by_extend_and_use() -> None:
    with_schema = get_item.extend(error_schema=Detail)
    assert with_schema.extend(name="item").error_schema is Detail
    assert with_schema.use(_Noop()).error_schema is Detail
    assert with_schema.extend(error_schema=None).error_schema is None
    assert get_item.error_schema is None


class _Noop:
    def on_request(self, exchange: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (dict, "not a schema: error_schema"),
        ([Detail, Detail], "not a schema: error_schema"),
        (Invalidate(Failure), "error_schema cannot be Invalidate"),
    ],
)
def test_a_wrong_error_schema_is_refused_where_it_is_written(
    schema: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        get_item.extend(error_schema=schema)


async def test_endpoints_differing_in_error_schema_do_not_share_a_kept_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    body = {"code": "E404", "message": "gone"}
    httpx_mock.add_response(status_code=404, json=body, is_reusable=True)
    as_model = get_item.extend(error_schema=Detail, error_expiry_length=60)
    as_dict = get_item.extend(error_schema=DetailDict, error_expiry_length=60)
    with pytest.raises(NotFoundError) as first:
        await controller.get(as_model, {"id": 1})
    with pytest.raises(NotFoundError) as kept:
        await controller.get(as_model, {"id": 1})  # the kept error, as it was
    with pytest.raises(NotFoundError) as other:
        await controller.get(as_dict, {"id": 1})
    assert first.value.data == kept.value.data == Detail(code="E404", message="gone")
    assert kept.value is not first.value
    assert other.value.data == body
    assert len(httpx_mock.get_requests()) == 2


async def test_a_real_problem_response_is_read(
    controller: Any, origin_a: RecordingServer
) -> None:
    problem = {
        "type": "https://example.com/probs/out-of-stock",
        "title": "Out of stock",
        "status": 409,
        "detail": "Item 7 is gone",
        "instance": "/orders/7",
        "sku": "A-7",
        "code": "E409",
        "message": "gone",
    }
    query = (
        f"body={quote(json.dumps(problem))}&type={quote(PROBLEM)}"
        "&x-request-id=req-77&retry-after=30"
    )
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=f"/status/409?{query}",
        method="POST",
        error_schema=Detail,
    )
    with pytest.raises(ConflictError) as caught:
        await controller.fetch(endpoint, body={"sku": "A-7"})
    error = caught.value
    assert error.problem == Problem(
        type="https://example.com/probs/out-of-stock",
        title="Out of stock",
        status=409,
        detail="Item 7 is gone",
        instance="/orders/7",
        extensions={"sku": "A-7", "code": "E409", "message": "gone"},
    )
    assert error.data == Detail(code="E409", message="gone")
    assert (error.request_id, error.retry_after) == ("req-77", 30.0)
    assert len(origin_a.requests) == 1
