"""The cookie-session recipe and the body-pagination middleware against a
real Django REST framework service under gunicorn (``tests/drf_service``).

The demo API imitates Django's session and CSRF rules and DRF's listings
(``recipes.demo_api``, ``recipes.demo_listings``); this checks the
imitation's clients against the real thing: ``django.contrib.auth.login``
rotating ``csrftoken``, ``SessionAuthentication`` refusing an unsafe call
without ``X-CSRFToken``, serializer errors, and DRF's own paginators.
Skipped, saying so, when Django, DRF or gunicorn is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

pytest.importorskip("django", reason="needs Django (pip install django)")
pytest.importorskip(
    "rest_framework",
    reason="needs Django REST framework (pip install djangorestframework)",
)
pytest.importorskip("gunicorn", reason="needs gunicorn (pip install gunicorn)")

from recipes import auth_cookie
from recipes.demo_api import DemoApi
from restwire import (
    BadRequestError,
    Entity,
    ForbiddenError,
    RestEndpoint,
    UnauthorizedError,
    paged,
)
from restwire.middlewares import AccessToken, BodyPagination, CookieCredentials
from tests.conftest import collect
from tests.drf import USER, Drf

pytestmark = pytest.mark.anyio

SIGN_IN = {"username": USER[0], "password": USER[1]}


class Customer(Entity):
    id: str = ""
    name: str = ""


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    """One DRF service for the module (each test signs in anew: a new
    client, a new session)."""
    with Drf() as drf:
        yield drf.origin


def _session(origin: str) -> dict[str, RestEndpoint[Any]]:
    base = auth_cookie.session(origin)
    return {
        "login": base.extend(path="/api/login/", method="POST"),
        "save": base.extend(path="/api/notes/", method="POST"),
        "mine": base.extend(path="/api/notes/"),
    }


async def test_a_signed_in_session_saves_with_the_rotated_csrf_token(
    controller: Any, origin: str
) -> None:
    calls = _session(origin)
    base = auth_cookie.session(origin)
    await controller.fetch(base.extend(path="/api/csrf/"))  # a form's page
    before = controller.client.cookies["csrftoken"]
    assert await controller.fetch(calls["login"], body=SIGN_IN) == {"username": "ada"}
    rotated = controller.client.cookies["csrftoken"]
    assert rotated != before  # (Django's login() rotates it)
    # DRF checks X-CSRFToken against the new cookie: the old value is refused
    saved = await controller.fetch(calls["save"], body={"text": "hello"})
    assert (saved["owner"], saved["text"], saved["pinned"]) == ("ada", "hello", False)
    mine = await controller.fetch(calls["mine"])
    assert saved in mine


async def test_without_csrf_token_drf_refuses_and_the_error_says_why(
    controller: Any, origin: str
) -> None:
    base = RestEndpoint(url_prefix=origin).use(CookieCredentials("same-origin"))
    await controller.fetch(base.extend(path="/api/login/", method="POST"), body=SIGN_IN)
    with pytest.raises(ForbiddenError) as refused:
        await controller.fetch(
            base.extend(path="/api/notes/", method="POST"), body={"text": "lost"}
        )
    assert str(refused.value).endswith(
        ": 403 Forbidden: CSRF Failed: CSRF token missing."
    )
    assert refused.value.data == {"detail": "CSRF Failed: CSRF token missing."}


async def test_no_session_is_drf_403_with_its_reason(
    controller: Any, origin: str
) -> None:
    with pytest.raises(ForbiddenError) as refused:
        await controller.fetch(_session(origin)["mine"])
    assert str(refused.value) == (
        f"GET {origin}/api/notes/: 403 Forbidden: "
        "Authentication credentials were not provided."
    )


async def test_serializer_errors_name_each_field_and_never_the_token(
    controller: Any, origin: str
) -> None:
    calls = _session(origin)
    await controller.fetch(calls["login"], body=SIGN_IN)
    with pytest.raises(BadRequestError) as invalid:
        await controller.fetch(calls["save"], body={"pinned": "maybe"})
    message = str(invalid.value)
    assert message.endswith(
        ": 400 Bad Request: text: This field is required.; "
        "pinned: Must be a valid boolean."
    )
    assert invalid.value.data == {
        "text": ["This field is required."],
        "pinned": ["Must be a valid boolean."],
    }
    with pytest.raises(BadRequestError) as spam:
        await controller.fetch(calls["save"], body={"text": "spam"})
    assert str(spam.value).endswith(": 400 Bad Request: Notes may not be spam.")


async def test_a_field_error_quoting_the_session_never_shows_it(
    controller: Any, origin: str
) -> None:
    """The service quotes the session and CSRF cookies back in a field
    error (as a careless one does): the message says where, not what."""
    calls = _session(origin)
    await controller.fetch(calls["login"], body=SIGN_IN)
    with pytest.raises(BadRequestError) as quoted:
        await controller.fetch(calls["save"], body={"text": "echo"})
    session = controller.client.cookies["sessionid"]
    token = controller.client.cookies["csrftoken"]
    assert quoted.value.data == {
        "text": [f"Not with session {session} and token {token}."]
    }
    assert str(quoted.value).endswith(
        ": 400 Bad Request: text: Not with session [redacted] and token [redacted]."
    )
    assert session not in repr(quoted.value)


def _token(origin: str) -> str:
    """A key from DRF's own ``obtain_auth_token`` (the same key again
    until it is deleted)."""
    answer = httpx.post(f"{origin}/api/token/", json=SIGN_IN)
    answer.raise_for_status()
    return str(answer.json()["token"])


async def test_a_drf_token_is_sent_as_token_and_renewed_after_a_401(
    controller: Any, mode: str, origin: str
) -> None:
    renewals: list[str] = []

    def renew() -> str:
        renewals.append(_token(origin))
        return renewals[-1]

    async def renew_async() -> str:
        return renew()

    auth = AccessToken(
        _token(origin),
        header="Authorization",
        prefix="Token ",
        refresh=renew if mode == "sync" else renew_async,
    )
    me = RestEndpoint(url_prefix=origin, path="/api/me/").use(auth)
    assert await controller.fetch(me) == {"username": "ada"}
    revoked = auth.token
    assert revoked is not None
    httpx.post(
        f"{origin}/api/me/forget-token/", headers={"Authorization": f"Token {revoked}"}
    ).raise_for_status()
    # DRF's 401 (WWW-Authenticate: Token) for the deleted key: one renewal,
    # the call sent again with the new key
    assert await controller.fetch(me) == {"username": "ada"}
    assert len(renewals) == 1
    assert auth.token == renewals[0] != revoked


async def test_an_unknown_drf_token_is_drf_401_with_its_reason(
    controller: Any, origin: str
) -> None:
    wrong = "0" * 40
    me = RestEndpoint(url_prefix=origin, path="/api/me/").use(
        AccessToken(wrong, header="Authorization", prefix="Token ")
    )
    with pytest.raises(UnauthorizedError) as refused:
        await controller.fetch(me)
    assert str(refused.value) == (
        f"GET {origin}/api/me/: 401 Unauthorized: Invalid token."
    )


@pytest.mark.parametrize(
    ("path", "pagination", "params", "sizes"),
    [
        ("/api/customers/", BodyPagination(), {}, [3, 3, 1]),
        ("/api/customers-by-offset/", BodyPagination(), {"limit": 2}, [2, 2, 2, 1]),
        (
            "/api/customers-by-offset/",
            BodyPagination.offsets(offset="offset", count="count"),
            {"limit": 2},
            [2, 2, 2, 1],  # (stopped by the count: no empty page asked for)
        ),
    ],
    ids=["page-numbers-next-url", "limit-offset-next-url", "limit-offset-count"],
)
async def test_drf_paginators_are_followed_to_the_end(
    controller: Any,
    origin: str,
    path: str,
    pagination: BodyPagination,
    params: dict[str, Any],
    sizes: list[int],
) -> None:
    listing = RestEndpoint(url_prefix=origin, path=path, schema=paged(Customer)).use(
        pagination
    )
    pages = await collect(controller.paginate(listing, params))
    assert [len(page["results"]) for page in pages] == sizes
    assert {page["total"] for page in pages} == {7}  # DRF's count
    found = [customer for page in pages for customer in page["results"]]
    assert [(each.id, each.name) for each in found] == [
        (f"cus_{n}", f"Customer {n}") for n in range(1, 8)
    ]


async def test_the_demo_api_imitates_drf_limit_offset_pages(
    controller: Any, origin: str
) -> None:
    """The demo's ``/drf/customers/`` answers what real DRF's
    ``LimitOffsetPagination`` does: the same fields, ``next`` and
    ``previous`` absolute URLs with the same queries (the first page's
    ``previous`` without an offset)."""
    with DemoApi() as demo:
        imitation = [
            await controller.fetch(
                RestEndpoint(url_prefix=demo.origin, path="/drf/customers/"),
                {"limit": 2, "offset": offset},
            )
            for offset in (2, 4)
        ]
    real = [
        await controller.fetch(
            RestEndpoint(url_prefix=origin, path="/api/customers-by-offset/"),
            {"limit": 2, "offset": offset},
        )
        for offset in (2, 4)
    ]
    for imitated, served in zip(imitation, real, strict=True):
        assert (
            imitated.keys()
            == served.keys()
            == {
                "count",
                "next",
                "previous",
                "results",
            }
        )
        for link in ("next", "previous"):
            assert imitated[link].startswith("http://")
            assert served[link].startswith("http://")
            assert urlsplit(imitated[link]).query == urlsplit(served[link]).query
