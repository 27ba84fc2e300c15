"""Every recipe against the demo API over a real socket, each checked for
what it claims."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest

from recipes.catalog import RECIPES, find, name_of
from recipes.demo_api import DemoApi
from recipes.tour import Tour


@pytest.fixture(scope="module")
def api() -> Iterator[DemoApi]:
    with DemoApi() as demo:
        yield demo


def run(api: DemoApi, name: str) -> tuple[Any, Tour]:
    tour = Tour(fast=True)
    return find(name).run(api.origin, tour), tour


CHECKS: dict[str, Callable[[Any], bool]] = {
    "posts": lambda r: r["after delete"] == r["listed"] - 1,
    "auth_token": lambda r: r == {"id": "42", "title": "My item 42"},
    "auth_cookie": lambda r: (
        r["note"] == {"saved": {"text": "hello"}} and r["mine"]["id"] == "7"
    ),
    "signing": lambda r: (
        r
        == {
            "verified": True,
            "order": {"item_id": 7, "quantity": 2},
            "late edit": "RequestBodyError",
        }
    ),
    "auth_context": lambda r: (
        r["ann"]["id"] == "ann" and r["bob"] == "401: not signed in"
    ),
    "logout": lambda r: (
        r
        == {
            "results stored before": 1,
            "error": 401,
            "results stored after": 0,
            "token": None,
        }
    ),
    "redirects": lambda r: r == {"origin": "other", "credentials": []},
    "casing": lambda r: (
        "currentViewers" in r["CamelCaseKeys"] and "exchange_pair" in r["SnakeCaseKeys"]
    ),
    "renaming": lambda r: (
        r["before"]["carrotsUsed"] == 12 and r["after"]["carrotsUsed"] == 20
    ),
    "stream": lambda r: r.username == "sky" and r.current_viewers > 0,
    "exchange_price": lambda r: (
        r.price == Decimal("20012.3400") and r.updated_at.microsecond == 123456
    ),
    "ticker": lambda r: len(r["prices"]) == 3 and r["moved"],
    "live_prices": lambda r: (
        r["pushed"] == 6
        and r["before"] == {"BTC-USD": "64000.00", "ETH-USD": "3100.00"}
        and r["after"] == {"BTC-USD": "64042.25", "ETH-USD": "3135.25"}
    ),
    "pagination": lambda r: r == [str(n) for n in range(1, 9)],
    "body_pagination": lambda r: (
        r
        == {
            "events": [f"e{n}" for n in range(7)],
            "products": [f"Product {n}" for n in range(1, 9)],
            "customers": [f"cus_{n}" for n in range(1, 8)],
        }
    ),
    "http_cache": lambda r: (
        r["answers"]
        == [
            "answered from the cache, nothing sent",
            "the server said 304 Not Modified; the cached body was used",
        ]
        and r["same value"]
    ),
    "many_workers": lambda r: (
        r == {"served": 12, "refused": [], "signed in again": 3, "refreshes": 1}
    ),
    "stripe": lambda r: (
        r
        == {
            "listed": [(f"cus_D00{n}", "4242") for n in range(2, 5)],
            "metadata": {"plan": "pro"},
            "same customer": True,
            "error code": "resource_missing",
            "version": "2024-06-20",
        }
    ),
    "github": lambda r: (
        r["issues"] == [1, 2, 3, 4, 5]
        and r["html"] == "<p><em>1</em></p>"
        and r["rate limit spent by the revalidation"] == 0
        and r["answered"]
        in ("the server said 304 Not Modified; the cached body was used", "no cache")
    ),
    "openai_chat": lambda r: (
        r == {"answer": "You said: streams are neat", "chunks": 7, "finish": "stop"}
    ),
    "anthropic_messages": lambda r: (
        r
        == {
            "text": "You said: events have names",
            "kinds": ["MessageStart", *["ContentBlockDelta"] * 5, "MessageStop"],
        }
    ),
    "slack": lambda r: (
        r
        == {
            "channels": ["general", "random", "releases", "support", "design"],
            "posted": True,
            "error code": "channel_not_found",
            "typed": True,
            "wrong token": "invalid_auth",
        }
    ),
    "twilio": lambda r: (
        r
        == {
            "bodies": [f"Message {n}" for n in range(5, 0, -1)],
            "sent": ("+15558675310", "+15017122661", "Hello!", "queued"),
            "redacted": "",
            "gone from the store": True,
            "gone": 20404,
            "error code": 20003,
        }
    ),
    "fastapi_oauth": lambda r: (
        r["names"] == [f"Item {n}" for n in range(1, 6)]
        and r["address"] == "Shelf 3"
        and r["created"] == ("Lamp", 12.5, "Aisle 4")
        and r["missing"] == [["body", "unitPrice"]]
    ),
    "download": lambda r: (
        r == {"saved as": "résumé-7.pdf", "bytes": 1 << 20, "kept in the store": 0}
    ),
}


def test_every_recipe_has_a_check() -> None:
    assert sorted(CHECKS) == sorted(name_of(recipe) for recipe in RECIPES)


@pytest.mark.parametrize("recipe", RECIPES, ids=name_of)
def test_each_recipe_does_what_it_says(api: DemoApi, recipe: ModuleType) -> None:
    result, tour = run(api, name_of(recipe))
    assert CHECKS[name_of(recipe)](result), result
    assert tour.lines, "every recipe sends at least one request"


#: Which parts of the spec restwire was built from (``DESIGN.md``) each
#: recipe shows: for its maintainers, so that every part has a recipe that
#: runs. The recipes themselves speak to a Python user, who has never seen
#: that spec.
SPEC_SECTIONS = {
    "anthropic_messages": "section 5, access token; section 8, data pushed as it comes",
    "auth_context": "section 5, token from React context; hookifyResource(resource, useInit)",
    "auth_cookie": "section 5, cookie session; rule 3 shared base; rule 5 CSRF",
    "auth_token": "section 5, access token: every request carries Access-Token",
    "body_pagination": "section 2.3, rule 6: pagination (the next page in the body)",
    "casing": "section 2.3, rules 1-3: key case conversion",
    "download": "section 4, file download rules",
    "exchange_price": "section 2.2, ExchangePrice; section 2.1, static schema",
    "fastapi_oauth": "section 5, access token; section 2.3, rules 1-3 and 6",
    "github": "section 2.3, rule 6: pagination; section 4; section 5, access token",
    "http_cache": "section 4, dataExpiryLength: time that fetched data stays valid",
    "live_prices": "section 4, one store of entities; section 8, fresh data (pushed)",
    "logout": "section 5 rule 4 and section 7: 401 and LogoutManager",
    "many_workers": "section 5, rule 4 (401 on expiry); section 8, rate limits",
    "openai_chat": "section 5, access token; section 8, data pushed as it comes",
    "pagination": "section 2.3, rule 6: link-header pagination",
    "posts": "section 2.1 resource({path, schema}); section 4, get and create a post",
    "redirects": "section 5: credentials are sent to the API, and only to it",
    "renaming": "section 2.3, rule 4: key renaming",
    "signing": "section 5, access token: a credential every request carries",
    "slack": "section 5, access token; section 2.3, rule 6; section 6, errors",
    "stream": "section 2.3, rule 5: missing primary key",
    "stripe": "section 5, access token; section 2.3, rule 6: pagination",
    "ticker": "section 2.2, Ticker; section 8, pollFrequency 2000 ms",
    "twilio": "section 5, authentication; section 2.3, rules 1 and 6: casing, pages",
}


def test_each_recipe_is_mapped_to_the_spec_parts_it_shows() -> None:
    assert sorted(SPEC_SECTIONS) == sorted(map(name_of, RECIPES))
    for sections in SPEC_SECTIONS.values():
        assert sections.startswith("section")


@pytest.mark.parametrize("recipe", RECIPES, ids=name_of)
def test_each_recipe_says_what_it_shows_and_how_to_adapt_it(recipe: ModuleType) -> None:
    assert recipe.TITLE
    doc = recipe.__doc__ or ""
    assert any(
        word in doc for word in ("To use", "Nothing to change", "polls the real")
    )
    for word in ("seed", "data-client", "section "):
        assert word not in doc.lower(), word


def test_no_credential_reaches_the_wire_log(api: DemoApi) -> None:
    lines: list[str] = []
    for name in ("auth_token", "auth_cookie", "auth_context", "logout"):
        lines.extend(run(api, name)[1].lines)
    text = "\n".join(lines)
    assert "[redacted]" in text
    for secret in (api.access_token, api.session_id, api.csrf_token):
        assert secret not in text


def test_the_ticker_defaults_to_the_public_api() -> None:
    from recipes.ticker import PUBLIC_API, get_ticker

    endpoint = get_ticker()
    assert (
        endpoint.url({"productId": "BTC-USD"})
        == f"{PUBLIC_API}/products/BTC-USD/ticker"
    )
    assert endpoint.poll_frequency == 2
