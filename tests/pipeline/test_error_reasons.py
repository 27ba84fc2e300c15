"""A status error says the server's reason (issue 42, item 4): the short
text of the common error-body shapes ends its message, on one line of at
most 300 characters, with no credential the call sent, even one the server
echoes back; ``error.data`` is the body as JSON when no ``error_schema``
reads it. Under both drivers, against mocks for the shapes and a real
server on 127.0.0.1 for what crosses a socket (the FastAPI app of
``tests/recipes/test_fastapi_real.py`` has its own)."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import time
import tracemalloc
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    BadRequestError,
    Controller,
    NetworkError,
    NotFoundError,
    RestEndpoint,
    ServerError,
)
from restwire._base.error_bodies import reason_of
from restwire.middlewares import AccessToken
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
get_item = RestEndpoint(url_prefix=API, path="/items/:id")
PROBLEM = "application/problem+json"


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        # RFC 9457 problem details: the title left out when it is the phrase
        (404, {"title": "Not Found", "detail": "no item 7"}, "no item 7"),
        (
            403,
            {"title": "Out of credit", "detail": "30 left"},
            "Out of credit: 30 left",
        ),
        (403, {"title": "Out of credit"}, "Out of credit"),
        # FastAPI's two shapes
        (404, {"detail": "Item not found"}, "Item not found"),
        (
            422,
            {
                "detail": [
                    {"loc": ["body", "name"], "msg": "Field required", "type": "x"},
                    {"loc": ["query", "page"], "msg": "Input should be >= 1"},
                ]
            },
            "body.name: Field required; query.page: Input should be >= 1",
        ),
        # Google, OpenAI, Stripe
        (
            400,
            {"error": {"code": 400, "message": "Invalid value", "status": "X"}},
            "Invalid value",
        ),
        # Spring Boot, NestJS
        (
            404,
            {"status": 404, "error": "Not Found", "message": "No item 7"},
            "No item 7",
        ),
        (
            400,
            {"statusCode": 400, "message": ["name empty", "price < 0"]},
            "name empty; price < 0",
        ),
        # OAuth 2.0
        (
            400,
            {"error": "invalid_grant", "error_description": "code expired"},
            "invalid_grant: code expired",
        ),
        (409, {"error": "already_exists"}, "already_exists"),
        # GitHub
        (
            422,
            {"message": "Validation Failed", "errors": [{"message": "title missing"}]},
            "Validation Failed: title missing",
        ),
        (404, {"message": "Not Found", "documentation_url": "https://x"}, None),
        # JSON:API, GraphQL, plain lists, Rails
        (400, {"errors": [{"status": "400", "detail": "bad date"}]}, "bad date"),
        (400, {"errors": [{"message": "a"}, {"message": "b"}]}, "a; b"),
        (400, {"errors": ["one", "two"]}, "one; two"),
        (422, {"errors": {"name": ["can't be blank"]}}, "name: can't be blank"),
        (400, "a JSON string", "a JSON string"),
        # Django REST framework's field errors (its docs, "Validation
        # errors"; tests/recipes/test_drf_real.py has the real server's)
        (
            400,
            {"email": ["Enter a valid email address."], "age": ["A number."]},
            "email: Enter a valid email address.; age: A number.",
        ),
        (400, {"non_field_errors": ["End before start."]}, "End before start."),
        (
            400,
            {
                "address": {"city": ["Required."], "non_field_errors": ["Unknown."]},
                "lines": [{}, {"qty": ["Too many.", "Whole numbers only."]}],
            },
            "address.city: Required.; address: Unknown.; "
            "lines.1.qty: Too many. Whole numbers only.",
        ),
        (400, {"__all__": ["Passwords differ."]}, "Passwords differ."),
        # a form's fields named as the shapes above read theirs (DRF 3.18)
        (
            400,
            {"email": ["Enter a valid email."], "message": ["This field is required."]},
            "email: Enter a valid email.; message: This field is required.",
        ),
        (
            400,
            {"title": ["Too long."], "detail": ["Required."], "errors": ["Bad."]},
            "title: Too long.; detail: Required.; errors: Bad.",
        ),
        # get_full_details(), Django's errors.get_json_data()
        (
            422,
            {"name": [{"message": "Required.", "code": "required"}]},
            "name: Required.",
        ),
        # each name where it belongs after a list of objects
        (
            400,
            {"lines": [{"qty": ["Too many."]}], "name": ["Required."]},
            "lines.0.qty: Too many.; name: Required.",
        ),
        # fragments (Rails' words) stay apart; sentences read on
        (
            422,
            {"name": ["can't be blank", "is too short"], "age": ["Too young."]},
            "name: can't be blank; is too short; age: Too young.",
        ),
        # a field's first twenty errors are read
        (
            400,
            {"n": [f"e{k}." for k in range(25)], "m": ["z."]},
            "n: " + " ".join(f"e{k}." for k in range(20)) + "; m: z.",
        ),
        # the first twenty fields are read (what comes after is not looked at)
        (
            400,
            {**{f"f{n}": ["x"] for n in range(20)}, "count": 2},
            "; ".join(f"f{n}: x" for n in range(20)),
        ),
        # ... and bodies like them that are not: the status alone
        (400, {"items": ["a"], "count": 2}, None),
        (400, {"name": []}, None),
        (400, {"lines": [{}, "x"]}, None),
        (400, {"name": ["x"], "meta": {"n": 1}}, None),
        (400, {"name": ["x"], "lines": [{"a": 1}]}, None),
        (400, {"name": ["x"], "address": {}}, None),
        (400, {"lines": [{}, "x"], "name": ["y"]}, None),
        (400, {"name": ["x"], "tags": []}, None),
        (400, {"name": [{"message": "m", "code": "c", "at": 1}], "b": ["x"]}, None),
        (400, {}, None),
        # ... or not a 400 or a 422
        (404, {"tags": ["a"], "ids": ["1"]}, None),
        (500, {"trace": ["frame one", "frame two"]}, None),
        # no shape: the status alone
        (500, {"code": 17}, None),
        (500, [1, 2], None),
    ],
)
async def test_the_common_shapes_end_the_message(
    controller: Any, httpx_mock: HTTPXMock, status: int, body: Any, reason: str | None
) -> None:
    httpx_mock.add_response(status_code=status, json=body)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(get_item, {"id": 7})
    error = caught.value
    phrase = httpx.codes.get_reason_phrase(status)
    start = f"GET {API}/items/7: {status} {phrase}"
    assert str(error) == (start if reason is None else f"{start}: {reason}")
    assert error.data == body  # no error_schema: the body as JSON


async def test_a_problem_type_and_plain_text_are_read_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        status_code=409,
        json={"type": "https://x/taken", "title": "Taken", "status": 409},
        headers={"content-type": PROBLEM},
    )
    httpx_mock.add_response(
        status_code=503, text="upstream down\n", headers={"content-type": "text/plain"}
    )
    httpx_mock.add_response(
        status_code=502,
        text="<html><h1>Bad gateway</h1></html>",
        headers={"content-type": "text/html"},
    )
    with pytest.raises(NetworkError) as conflict:
        await controller.fetch(get_item, {"id": 1})
    assert str(conflict.value).endswith(": 409 Conflict: Taken")
    with pytest.raises(ServerError) as plain:
        await controller.fetch(get_item, {"id": 1})
    assert str(plain.value).endswith(": 503 Service Unavailable: upstream down")
    assert plain.value.data is None  # not JSON
    with pytest.raises(ServerError) as html:
        await controller.fetch(get_item, {"id": 1})
    assert str(html.value).endswith(": 502 Bad Gateway")  # an HTML page: no reason


async def test_the_reason_is_one_short_line(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    detail = "first line\r\n\tsecond\x00line  " + "long " * 200
    httpx_mock.add_response(status_code=400, json={"detail": detail})
    with pytest.raises(BadRequestError) as caught:
        await controller.fetch(get_item, {"id": 1})
    reason = str(caught.value).split(": 400 Bad Request: ", 1)[1]
    assert reason.startswith("first line second line long long")
    assert reason.endswith("...")
    assert len(reason) <= 300
    assert reason.isprintable()
    assert "  " not in reason


async def test_a_huge_reason_is_read_at_once(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A reason of megabytes, and an endless list of errors, make a short
    line at once: reading is bounded, never a hang."""
    errors = [{"message": "x" * 100}] * 200_000
    httpx_mock.add_response(status_code=400, json={"detail": "y" * 5_000_000})
    httpx_mock.add_response(status_code=400, json={"errors": errors})
    auth = AccessToken("tok-" + "z" * 2000, header="Authorization", prefix="Bearer ")
    started = time.monotonic()
    for _ in range(2):
        with pytest.raises(BadRequestError) as caught:
            await controller.fetch(get_item.use(auth), {"id": 1})
        assert len(str(caught.value)) < 400
    assert time.monotonic() - started < 30  # a bound on a hang, not a measure


def _deep_field_errors(depth: int, name_length: int) -> dict[str, Any]:
    """Field errors nested ``depth`` deep under long names, 19 fields
    beside each level's nested one (as wide as a reason reads)."""
    errors: dict[str, Any] = {"x": ["t"]}
    for _ in range(depth):
        level: dict[str, Any] = {f"s{index}": ["t"] for index in range(19)}
        level["k" * name_length] = errors
        errors = level
    return errors


async def test_deep_field_errors_are_read_in_one_pass(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Field errors 800 deep under 100-character names (a 290 KB body): the
    reason reads each entry once and stops gathering text at a few times
    the line's length. (Joining each level's names into the texts of all
    below took 1.35 GB and 3.8 s for this body.)"""
    body = json.dumps(_deep_field_errors(800, 100)).encode()
    httpx_mock.add_response(
        status_code=400, content=body, headers={"content-type": "application/json"}
    )
    tracemalloc.start()
    try:
        with pytest.raises(BadRequestError) as caught:
            await controller.fetch(get_item, {"id": 1})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value).startswith(
        f"GET {API}/items/1: 400 Bad Request: s0: t; s1: t; s2: t;"
    )
    assert len(str(caught.value)) < 400
    assert peak < 64 << 20  # the body parsed, a few MB, and no more


def test_field_errors_past_the_stack_leave_the_other_shapes() -> None:
    """A body nested past Python's stack (which Python 3.12's parser
    reads) is no field errors: its ``message`` is still the reason."""
    nested: dict[str, Any] = {"a": ["t"]}
    for _ in range(sys.getrecursionlimit() + 100):
        nested = {"a": nested}
    nested["message"] = "the reason"
    response = httpx.Response(400, request=httpx.Request("GET", API))
    assert reason_of(response, nested) == "the reason"


TOKEN = "tok-SECRET-77/x+y"
KEY = "key-SECRET-88"
SESSION = "sess-SECRET-99"
PASSWORD = "pw-SECRET-66"
QUERY = "q-SECRET-55"
SECRETS = (TOKEN, KEY, SESSION, PASSWORD, QUERY)


def echoing(request: httpx.Request) -> httpx.Response:
    """A server that quotes back everything it was sent, in every form: as
    sent, JSON-escaped, percent-encoded, form-encoded."""
    sent = " ".join(f"{name}={value}" for name, value in request.headers.items())
    sent += f" url={request.url}"
    quoted = " ".join(
        f"[{quote(secret, safe='')} {json.dumps(secret)}]" for secret in SECRETS
    )
    slashed = TOKEN.replace("/", "\\/")  # JSON's other way to write a slash
    return httpx.Response(401, json={"detail": f"refused: {sent} {quoted} {slashed}"})


async def test_no_credential_the_call_sent_is_in_the_message(
    controller_factory: Any,
) -> None:
    """The server echoes the bearer token, an API key header, the session
    cookie, the Basic password and a query token, in each form it may quote
    them: none is in the message, its repr, its pickle or its copy."""
    controller = controller_factory(
        transport=httpx.MockTransport(echoing), cookies={"sessionid": SESSION}
    )
    endpoint = RestEndpoint(
        url_prefix=f"https://user:{PASSWORD}@api.example.com",
        path="/items/:id",
        headers={"X-Api-Key": KEY},
    ).use(AccessToken(TOKEN, header="Authorization", prefix="Bearer "))
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint, {"id": 1, "access_token": QUERY})
    error = caught.value
    texts = [str(error), repr(error), str(pickle.loads(pickle.dumps(error)))]
    joined = "\n".join(texts)
    assert "refused:" in joined
    assert "[redacted]" in joined
    leaked = [secret for secret in SECRETS if secret in joined]
    assert not leaked, joined
    basic = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    for form in (quote(TOKEN, safe=""), basic, quote(PASSWORD, safe="")):
        assert form not in joined


async def test_a_secret_cut_by_the_line_limit_leaves_no_part(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A reason far past the limit, echoing a long token at every place
    (so that redaction shortens it a lot): no piece of the token shows,
    wherever the cut falls."""
    token = "T" + "0123456789abcdef" * 40
    auth = AccessToken(token, header="Authorization", prefix="Bearer ")
    for shift in range(0, 40, 7):
        httpx_mock.add_response(
            status_code=400, json={"detail": "w" * shift + (token + " ") * 20}
        )
        with pytest.raises(BadRequestError) as caught:
            await controller.fetch(get_item.use(auth), {"id": shift})
        message = str(caught.value)
        assert "0123456789" not in message, shift
        assert "[redacted]" in message


async def test_a_secret_at_the_reading_limit_leaves_no_part(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A secret that starts just before the reason stops being read (a few
    times the line's length, before its spaces are made one) is replaced
    whole, not cut to a piece of itself."""
    auth = AccessToken(TOKEN, header="Authorization", prefix="Bearer ")
    httpx_mock.add_response(
        status_code=400, json={"detail": " " * 1190 + "echo " + TOKEN}
    )
    with pytest.raises(BadRequestError) as caught:
        await controller.fetch(get_item.use(auth), {"id": 1})
    assert str(caught.value).endswith(": 400 Bad Request: echo [redacted]")


async def test_every_cookie_sent_is_redacted_not_the_last_alone(
    controller_factory: Any,
) -> None:
    """A GET sends two cookies (no header carries either) and the server
    quotes both back: neither is in the message."""
    first, second = "sess-SECRET-41", "csrf-SECRET-42"

    def quoting_each(request: httpx.Request) -> httpx.Response:
        sent = dict(
            pair.split("=", 1) for pair in request.headers["cookie"].split("; ")
        )
        said = f"got {sent['csrftoken']} for {sent['sessionid']}"
        return httpx.Response(400, json={"detail": said})

    controller = controller_factory(
        transport=httpx.MockTransport(quoting_each),
        cookies={"sessionid": first, "csrftoken": second},
    )
    with pytest.raises(BadRequestError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert str(caught.value).endswith(": got [redacted] for [redacted]")


def test_short_values_are_not_looked_for() -> None:
    """A credential value shorter than four characters is no secret (any
    guess finds it), and redacting it would blank every digit: a header
    ``X-Tenant: 7`` leaves "item 7" as it is."""
    transport = httpx.MockTransport(
        lambda request: httpx.Response(404, json={"detail": "no item 7 at tenant 7"})
    )
    endpoint = get_item.extend(headers={"X-Tenant": "7"})
    with Controller(httpx.Client(transport=transport)) as controller:
        with pytest.raises(NotFoundError) as caught:
            controller.fetch(endpoint, {"id": 7})
        controller.client.close()
    assert str(caught.value).endswith(": 404 Not Found: no item 7 at tenant 7")


# -- against a real server --------------------------------------------------------------


def status_endpoint(
    server: RecordingServer, status: int, body: Any, **options: Any
) -> RestEndpoint[Any]:
    query = f"body={quote(json.dumps(body))}&type=application/json"
    return RestEndpoint(
        url_prefix=server.origin, path=f"/status/{status}?{query}", **options
    )


async def test_a_real_servers_reason_and_data(
    controller: Any, origin_a: RecordingServer
) -> None:
    body = {"detail": f"no such item for {TOKEN}"}
    endpoint = status_endpoint(origin_a, 404, body).use(
        AccessToken(TOKEN, header="Authorization", prefix="Bearer ")
    )
    with pytest.raises(NotFoundError) as caught:
        await controller.fetch(endpoint)
    assert str(caught.value).endswith(": 404 Not Found: no such item for [redacted]")
    assert caught.value.data == body


async def test_a_real_error_body_past_max_body_size_is_not_read_on(
    controller: Any, origin_a: RecordingServer
) -> None:
    """The error body is read within the endpoint's ``max_body_size``, as
    every body is: past it, the read stops there."""
    from restwire import BodyTooLarge

    endpoint = status_endpoint(
        origin_a, 500, {"detail": "x" * 20_000}, max_body_size=10_000
    )
    with pytest.raises(BodyTooLarge, match="max_body_size=10000"):
        await controller.fetch(endpoint)
