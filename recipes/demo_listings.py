"""The demo API's customers, listed the ways popular APIs list things.

One set of customers (``cus_1`` .. ``cus_7`` to start with), shared by every
route, so a customer created or deleted one way shows in every listing:

| route | shape |
|---|---|
| ``GET /stripe/customers?limit=<n>&starting_after=<id>``, ``POST``, ``DELETE /stripe/customers/<id>`` | Stripe: ``{"object": "list", "url", "has_more", "data"}``; a deletion answers ``{"id", "object", "deleted": true}`` |
| ``GET /drf/customers/?limit=<n>&offset=<m>`` | Django REST framework's LimitOffsetPagination: ``{"count", "next", "previous", "results"}``, the limit capped at 5, ``next`` an absolute URL |
| ``GET /fastapi/customers?page=<n>&size=<m>`` | fastapi-pagination's ``Page``: ``{"items", "total", "page", "size", "pages"}`` |
| ``GET /jsonapi/customers?page=<n>`` | JSON:API-like, 3 a page: ``{"data", "links": {"self", "next"}, "meta": {"total"}}`` |
| ``GET /json-server/customers?_start=<m>&_limit=<n>`` | json-server: a bare list, the total in ``X-Total-Count`` |
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import urlencode

from .demo_api import Answer, Request, Route

__all__ = ["Customers"]


class Customers:
    """The customers, and the routes that list, create and delete them."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.rows: dict[str, dict[str, Any]] = {}
        self.made = 0
        for _ in range(7):
            self._add(f"Customer {self.made + 1}")

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        return [
            ("GET", re.compile(r"/stripe/customers/?"), self._stripe),
            ("POST", re.compile(r"/stripe/customers/?"), self._create),
            ("DELETE", re.compile(r"/stripe/customers/(?P<id>[^/]+)"), self._delete),
            ("GET", re.compile(r"/drf/customers/"), self._drf),
            ("GET", re.compile(r"/fastapi/customers/?"), self._fastapi),
            ("GET", re.compile(r"/jsonapi/customers/?"), self._jsonapi),
            ("GET", re.compile(r"/json-server/customers/?"), self._json_server),
        ]

    def _add(self, name: str) -> dict[str, Any]:
        self.made += 1
        row = {"id": f"cus_{self.made}", "object": "customer", "name": name}
        self.rows[row["id"]] = row
        return row

    def _all(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.rows.values())

    def _stripe(self, request: Request, match: re.Match[str]) -> Answer:
        rows = self._all()
        limit = _number(request, "limit", 10)
        after = request.query.get("starting_after")
        start = 0
        if after:
            ids = [row["id"] for row in rows]
            if after not in ids:
                return Answer(400, {"error": {"message": f"No such customer: {after}"}})
            start = ids.index(after) + 1
        if limit is None or not 1 <= limit <= 100:
            return Answer(400, {"error": {"message": "limit must be 1 to 100"}})
        data = rows[start : start + limit]
        return Answer(
            200,
            {
                "object": "list",
                "url": "/stripe/customers",
                "has_more": start + limit < len(rows),
                "data": data,
            },
        )

    def _create(self, request: Request, match: re.Match[str]) -> Answer:
        body = request.json()
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            return Answer(400, {"error": {"message": "name is required"}})
        with self.lock:
            return Answer(200, self._add(body["name"]))

    def _delete(self, request: Request, match: re.Match[str]) -> Answer:
        with self.lock:
            found = self.rows.pop(match["id"], None)
        if found is None:
            return Answer(
                404, {"error": {"message": f"No such customer: {match['id']}"}}
            )
        return Answer(200, {"id": match["id"], "object": "customer", "deleted": True})

    def _drf(self, request: Request, match: re.Match[str]) -> Answer:
        rows = self._all()
        limit, offset = _number(request, "limit", 5), _number(request, "offset", 0)
        if limit is None or offset is None:
            return Answer(400, {"detail": "limit and offset are numbers"})
        limit = min(max(limit, 1), 5)  # max_limit, as a DRF view may set

        def page_url(at: int) -> str:
            # (DRF leaves the offset out of a link to the first page)
            query = urlencode(
                {"limit": limit, "offset": at} if at > 0 else {"limit": limit}
            )
            return f"http://{request.headers.get('host')}/drf/customers/?{query}"

        return Answer(
            200,
            {
                "count": len(rows),
                "next": page_url(offset + limit)
                if offset + limit < len(rows)
                else None,
                "previous": page_url(max(offset - limit, 0)) if offset else None,
                "results": rows[offset : offset + limit],
            },
        )

    def _fastapi(self, request: Request, match: re.Match[str]) -> Answer:
        rows = self._all()
        page, size = _number(request, "page", 1), _number(request, "size", 50)
        if page is None or size is None or page < 1 or not 1 <= size <= 100:
            return Answer(422, {"detail": "page >= 1 and 1 <= size <= 100"})
        return Answer(
            200,
            {
                "items": rows[(page - 1) * size : page * size],
                "total": len(rows),
                "page": page,
                "size": size,
                "pages": -(-len(rows) // size),
            },
        )

    def _jsonapi(self, request: Request, match: re.Match[str]) -> Answer:
        rows, size = self._all(), 3
        page = _number(request, "page", 1) or 1
        following = f"/jsonapi/customers?page={page + 1}"
        return Answer(
            200,
            {
                "data": rows[(page - 1) * size : page * size],
                "links": {
                    "self": f"/jsonapi/customers?page={page}",
                    "next": following if page * size < len(rows) else None,
                },
                "meta": {"total": len(rows)},
            },
        )

    def _json_server(self, request: Request, match: re.Match[str]) -> Answer:
        rows = self._all()
        start, limit = _number(request, "_start", 0), _number(request, "_limit", 10)
        if start is None or limit is None:
            return Answer(400, {"error": "_start and _limit are numbers"})
        return Answer(
            200, rows[start : start + limit], {"x-total-count": str(len(rows))}
        )


def _number(request: Request, name: str, default: int) -> int | None:
    """The query parameter ``name`` as a whole number (``default`` when it
    is absent); ``None`` when it is not one."""
    stated = request.query.get(name)
    if stated is None:
        return default
    return int(stated) if stated.isascii() and stated.isdigit() else None
