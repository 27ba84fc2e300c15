"""``page_total``: how many items a listing holds, as the server says.

Vectors from the servers' own documentation: json-server's
``X-Total-Count`` (typicode/json-server README, "Paginate"), PostgREST's
``Content-Range`` (docs.postgrest.org, "Limits and Pagination": ``0-24/3573``,
``*/0`` for an empty range, ``0-24/*`` when the count is not asked for),
react-admin's simple REST provider (``posts 0-24/319``), Django REST
framework's ``count`` (``PageNumberPagination``) and fastapi-pagination's
``total`` (``Page``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from restwire import page_total


def total(headers: dict[str, str], body: Any = None) -> int | None:
    return page_total(httpx.Response(200, headers=headers), body)


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"X-Total-Count": "319"}, None, 319),
        ({"x-total-count": " 0 "}, None, 0),
        ({"Content-Range": "0-24/3573"}, None, 3573),
        ({"Content-Range": "*/0"}, None, 0),
        ({"Content-Range": "0-24/*"}, None, None),
        ({"Content-Range": "posts 0-24/319"}, None, 319),
        ({"Content-Range": "items 0-9/10"}, None, 10),
        ({}, {"count": 1023, "next": None, "results": []}, 1023),
        ({}, {"items": [], "total": 40, "page": 1, "size": 20, "pages": 2}, 40),
        # the header wins over the body
        ({"X-Total-Count": "5"}, {"count": 7}, 5),
        # none says it, or says it wrongly: None, never an error
        ({}, None, None),
        ({}, [1, 2], None),
        ({"X-Total-Count": "-3"}, None, None),
        ({"X-Total-Count": "12.5"}, None, None),
        ({"Content-Range": "bytes 0-499/1234"}, None, None),  # bytes, not items
        ({"Content-Range": "garbage"}, None, None),
        ({}, {"count": True}, None),
        ({}, {"count": -1}, None),
        ({}, {"count": "12"}, None),
    ],
)
def test_page_total(headers: dict[str, str], body: Any, expected: int | None) -> None:
    assert total(headers, body) == expected
