"""A server that echoes the call's token in a successful answer (a 2xx body,
an event) never gets it shown: every error built from what it sent
(``EntityError`` from an entity or a pydantic model, a deserializer's
failure, ``EventDataError``, an entity error in a typed stream) has the
credentials the call carried redacted (``_base.errors.redact_error``, from
``sent_secrets``) in its message, its attributes and the errors it was
raised from, so a traceback in a log shows none; and the message still
says what was wrong and where. Both drivers."""

from __future__ import annotations

import datetime
import json
import logging
import random
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import pydantic
import pytest

from restwire import (
    ContentError,
    Entity,
    EntityError,
    NetworkError,
    RestEndpoint,
    RestwireError,
)
from restwire._base.errors import SHORTEST_SECRET, _redact_cuts, redact_secrets
from restwire.middlewares import AccessToken
from tests.conftest import collect

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]
API = "https://api.example.com"
TOKEN = "sk-live-secret-998877"


class Me(pydantic.BaseModel):
    id: int


class Stamp(Entity):
    id: str = ""
    at: datetime.datetime | None = None

    schema = {"at": datetime.datetime.fromisoformat}  # noqa: RUF012


def echoing(
    status: int, body: bytes, kind: str = "application/json"
) -> httpx.MockTransport:
    return httpx.MockTransport(
        lambda request: httpx.Response(
            status, content=body, headers={"content-type": kind}
        )
    )


def shown(error: BaseException) -> str:
    """Everything an error shows: its message, repr, text attributes (an
    entity's value at fault), and the traceback a log would print (causes
    included). (What it holds for a program, an event or a status error's
    ``data``, is the server's, as a response is.)"""
    parts = [str(error), repr(error), "".join(traceback.format_exception(error))]
    parts += [value for value in vars(error).values() if isinstance(value, str)]
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("schema", "body", "says"),
    [
        (Me, b'{"id": "' + TOKEN.encode() + b'"}', "Me.id"),
        (Stamp, b'{"id": "1", "at": "' + TOKEN.encode() + b'"}', "Stamp.at"),
        ([Stamp], b'[{"id": "1", "at": "' + TOKEN.encode() + b'"}]', "Stamp.at"),
        (
            [Stamp],
            b"["
            + b",".join(
                b'{"id": "%d", "at": "%s"}' % (n, TOKEN.encode()) for n in range(20)
            )
            + b"]",
            "Stamp.at",
        ),
    ],
    ids=["pydantic model", "entity deserializer", "short list", "long list"],
)
async def test_a_token_echoed_in_a_2xx_body_is_not_shown(
    controller_factory: Make, schema: Any, body: bytes, says: str
) -> None:
    controller = controller_factory(transport=echoing(200, body))
    endpoint = RestEndpoint(url_prefix=API, path="/me", schema=schema).use(
        AccessToken.bearer(TOKEN)
    )
    with pytest.raises(EntityError) as caught:
        await controller.fetch(endpoint)
    error = caught.value
    assert says in str(error)  # still says where
    assert TOKEN not in shown(error)
    assert "[redacted]" in str(error)


@pytest.mark.parametrize(
    ("schema", "data", "error", "says"),
    [
        (Me, b"{" + TOKEN.encode(), ContentError, "is not JSON"),
        (
            Stamp,
            b'{"id": "1", "at": "' + TOKEN.encode() + b'"}',
            EntityError,
            "Stamp.at",
        ),
    ],
    ids=["data not JSON", "an entity error"],
)
async def test_a_token_echoed_in_an_event_is_not_shown(
    controller_factory: Make,
    schema: Any,
    data: bytes,
    error: type[RestwireError],
    says: str,
) -> None:
    events = b"data: " + data + b"\n\n"
    controller = controller_factory(transport=echoing(200, events, "text/event-stream"))
    endpoint = RestEndpoint(
        url_prefix=API, path="/events", method="POST", schema=schema
    ).use(AccessToken.bearer(TOKEN))
    with pytest.raises(error) as caught:
        await collect(controller.stream(endpoint, body={"q": 1}))
    assert says in str(caught.value)
    assert TOKEN not in shown(caught.value)


async def test_a_cookie_and_a_query_token_echoed_are_not_shown(
    controller_factory: Make,
) -> None:
    cookie, key = "cookie-value-4455", "query-key-6677"
    body = b'{"id": "' + f"{cookie} {key}".encode() + b'"}'
    controller = controller_factory(transport=echoing(200, body))
    controller.client.cookies.set("session", cookie, domain="api.example.com")
    endpoint = RestEndpoint(url_prefix=API, path="/me", schema=Me)
    with pytest.raises(RestwireError) as caught:
        await controller.fetch(endpoint, {"api_key": key})
    assert cookie not in shown(caught.value)
    assert key not in shown(caught.value)


class Reason(pydantic.BaseModel):
    code: int


async def test_a_token_echoed_in_an_error_body_is_not_in_the_debug_line(
    controller_factory: Make, caplog: pytest.LogCaptureFixture
) -> None:
    """An error body that does not fit ``error_schema`` is said in a debug
    line, with the validation error; the token the body echoes is not."""
    caplog.set_level(logging.DEBUG, logger="restwire")
    body = b'{"code": "' + TOKEN.encode() + b'"}'
    controller = controller_factory(transport=echoing(401, body))
    endpoint = RestEndpoint(url_prefix=API, path="/me", error_schema=Reason).use(
        AccessToken.bearer(TOKEN)
    )
    with pytest.raises(RestwireError):
        await controller.fetch(endpoint)
    lines = [
        record.getMessage()
        for record in caplog.records
        if "does not validate as error_schema" in record.getMessage()
    ]
    assert len(lines) == 1
    assert "Reason" in lines[0]  # still says what did not fit
    assert "[redacted]" in lines[0]
    assert TOKEN not in "\n".join(record.getMessage() for record in caplog.records)


LONG_TOKEN = "sk-live-" + "q7" * 28  # 64 characters


class Coded(Entity):
    id: str = ""
    code: int = 0

    schema = {"code": int}  # noqa: RUF012  (its failure quotes the value)


@pytest.mark.parametrize(
    ("status", "endpoint"),
    [
        (200, RestEndpoint(url_prefix=API, path="/me", schema=Coded)),
        (401, RestEndpoint(url_prefix=API, path="/me", error_schema=Coded)),
    ],
    ids=["a 2xx body's error", "an error body's debug line"],
)
async def test_a_token_cut_short_in_an_error_shows_no_part_of_it(
    controller_factory: Make,
    caplog: pytest.LogCaptureFixture,
    status: int,
    endpoint: RestEndpoint[Any],
) -> None:
    """An error quotes a long value cut short (``...``); a token echoed
    across the cut shows no part of itself."""
    caplog.set_level(logging.DEBUG, logger="restwire")
    echoed = "x" * 90 + " invalid token " + LONG_TOKEN
    body = json.dumps({"id": "1", "code": echoed}).encode()
    controller = controller_factory(transport=echoing(status, body))
    with pytest.raises(RestwireError) as caught:
        await controller.fetch(endpoint.use(AccessToken.bearer(LONG_TOKEN)))
    said = "\n".join(
        [shown(caught.value), *(each.getMessage() for each in caplog.records)]
    )
    assert "invalid token [redacted]..." in said  # cut there, and redacted
    assert LONG_TOKEN[:SHORTEST_SECRET] not in said


def test_redacting_a_cut_text_leaves_no_start_or_end_of_a_secret() -> None:
    secret = "abcdefghijklmnop"
    assert redact_secrets(f"token {secret[:9]}...", [secret]) == "token [redacted]..."
    assert redact_secrets(f"...{secret[-6:]} end", [secret]) == "...[redacted] end"
    assert redact_secrets(f"{secret[:3]}... short", [secret]) == "abc... short"
    assert redact_secrets("abcd plain, no cut", [secret]) == "abcd plain, no cut"


def _shown_at_cuts(text: str, secret: str) -> list[str]:
    """The starts (ending at a cut) and ends (starting after one) of
    ``secret``, of at least SHORTEST_SECRET characters, that ``text`` shows:
    every candidate tried, however many."""
    shown = []
    cut = text.find("...")
    while cut >= 0:  # (every place three dots stand: runs overlap)
        after = cut + 3
        for size in range(SHORTEST_SECRET, len(secret) + 1):
            if text[:cut].endswith(secret[:size]):
                shown.append(secret[:size])
            if text.startswith(secret[-size:], after) and size < len(secret):
                shown.append(secret[-size:])
        cut = text.find("...", cut + 1)
    return shown


def test_a_cut_text_shows_no_part_of_a_secret_however_it_repeats() -> None:
    """Texts of a few letters and dots, cut in many places (runs of dots
    included), against a secret of the same characters: no start of it
    before a cut and no end of it after one is left, whether a cut has few
    places to compare or many."""
    chosen = random.Random(7)
    for _ in range(400):
        secret = "".join(chosen.choices("ab.", k=chosen.randint(4, 24)))
        pieces = [
            chosen.choice(
                [
                    "...",
                    secret[: chosen.randint(1, len(secret))],
                    secret[chosen.randint(0, len(secret) - 1) :],
                    "".join(chosen.choices("ab .", k=5)),
                ]
            )
            for _ in range(chosen.randint(1, 30))
        ]
        text = "".join(pieces)
        redacted = redact_secrets(text, [secret])
        assert _shown_at_cuts(redacted, secret) == [], (text, secret, redacted)


class _CountedSlices(str):
    """A text that counts how often a part of it is taken."""

    taken = 0

    def __getitem__(self, key: Any) -> str:
        _CountedSlices.taken += 1
        return str.__getitem__(self, key)


def test_a_text_built_to_repeat_a_secret_s_start_costs_a_bounded_work() -> None:
    """Before each of many cuts, a secret's first characters again and
    again (none a start of it that ends at the cut): each cut compares at
    most a few places with it, not every one (the work per cut has a
    bound), and what could be the secret's start there is replaced."""
    secret = "tok-" + "x" * 96
    cuts = 50
    text = _CountedSlices(("tok-y" * 60 + "...") * cuts)
    _CountedSlices.taken = 0
    redacted = _redact_cuts(text, {secret})
    assert _CountedSlices.taken <= cuts * 12  # (60 places before each cut)
    assert redacted.count("[redacted]...") == cuts


def test_a_text_of_cuts_past_the_budget_is_replaced_from_there_on() -> None:
    """A text of little but cuts (a run of 400,000 dots, a cut at each place)
    costs work in proportion to its length: past the budget, everything
    from the cut reached on is replaced, so no secret shows there."""
    secret = "a....b" + "x" * 40  # (dots of its own: each cut compared)
    text = "head " + "." * 400_000
    redacted = redact_secrets(text, [secret])
    assert redacted.startswith("head ")
    assert redacted.endswith("[redacted]")
    assert len(redacted) < len(text)


class Picky(pydantic.BaseModel):
    code: int

    @pydantic.field_validator("code", mode="before")
    @classmethod
    def refuse(cls, value: Any) -> Any:
        raise Unprintable


class Unprintable(Exception):
    def __str__(self) -> str:
        raise AttributeError("no text")


async def test_an_error_whose_text_fails_still_gives_the_status_error(
    controller_factory: Make, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="restwire")
    controller = controller_factory(transport=echoing(400, b'{"code": "E1"}'))
    endpoint = RestEndpoint(url_prefix=API, path="/me", error_schema=Picky)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)
    assert caught.value.status == 400
    assert caught.value.data == {"code": "E1"}
    assert any(
        "does not validate as error_schema" in each.getMessage()
        for each in caplog.records
    )
