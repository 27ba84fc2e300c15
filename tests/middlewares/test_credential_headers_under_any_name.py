"""Every credential header a middleware sets is marked, and so scoped:
never shown, kept to the call's origin, part of the caller's identity,
whatever its name. The names here say nothing of a credential
(``X-Api``, ``X-Guard``): only the marking keeps them in."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from restwire import Exchange, Middleware, RestEndpoint
from restwire.middlewares import AccessToken, ContextToken, CsrfToken
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

api_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("api_var")


class SetCredential:
    """A user's middleware: ``set_credential`` under a plain name."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.set_credential("X-Api", "own-secret")


class Reached(Exception):
    """The request side is done: the rest of the chain was called."""


def request_side(middleware: Any, exchange: Exchange) -> None:
    """Run a middleware's request side (simple or flow form) on ``exchange``."""
    on_request = getattr(middleware, "on_request", None)
    if on_request is not None:
        on_request(exchange)
        return

    def call_next(exchange: Exchange) -> Any:
        raise Reached

    flow = middleware.handle(exchange, call_next)
    with pytest.raises(Reached):
        next(flow)


#: name -> (the middleware, the header it sets, the value)
SETTERS: dict[str, tuple[Callable[[], Middleware], str, str]] = {
    "AccessToken": (
        lambda: AccessToken("tok-secret", header="X-Api"),
        "x-api",
        "tok-secret",
    ),
    "ContextToken": (
        lambda: ContextToken(api_var, header="X-Api"),
        "x-api",
        "ctx-secret",
    ),
    "CsrfToken": (lambda: CsrfToken(header="X-Guard"), "x-guard", "csrf-secret"),
    "set_credential": (SetCredential, "x-api", "own-secret"),
}


@pytest.mark.parametrize("name", list(SETTERS))
async def test_a_credential_set_under_any_name_stays_with_its_origin(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    name: str,
) -> None:
    make, header, value = SETTERS[name]
    api_var.set("ctx-secret")
    controller = controller_factory(cookies={"csrftoken": "csrf-secret"})
    away = quote(origin_b.url("/echo"), safe="")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin, path=f"/redirect/302?to={away}", method="POST"
    ).use(make())
    await controller.fetch(endpoint, body={})
    assert origin_a.requests[0].headers.get(header) == value  # sent at its origin
    assert header not in origin_b.requests[0].headers  # not to the other one


@pytest.mark.parametrize("name", list(SETTERS))
def test_a_credential_set_under_any_name_is_marked_and_never_shown(name: str) -> None:
    make, header, value = SETTERS[name]
    api_var.set("ctx-secret")
    jar = httpx.Cookies()
    jar.set("csrftoken", "csrf-secret", domain="api.example.com")
    exchange = Exchange(
        RestEndpoint(url_prefix="https://api.example.com", method="POST"),
        {},
        None,
        httpx.URL("https://api.example.com/"),
        httpx.Headers(),
        jar,
    )
    request_side(make(), exchange)
    assert exchange.headers[header] == value
    assert header in exchange.sensitive
    assert value not in repr(exchange)
