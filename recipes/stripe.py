"""Stripe: a secret key, a pinned API version, brackets, forms and retries.

A secret key and pagination, on an API people call every day. Each
choice, and why:

- ``AccessToken.bearer(key)``: Stripe takes the secret key as
  ``Authorization: Bearer sk_...``. The key is a credential: kept to
  Stripe's origin, never in a repr, a log line or an error.
- ``headers={"Stripe-Version": ...}`` on the base: pin the API version your
  code was written against, so a change of the account's default version
  cannot change the shapes you read. Every endpoint built on the base
  sends it (``extend`` adds headers to the base's, never drops them).
- ``param_style="brackets"``: Stripe reads objects and lists in brackets,
  in the query and in form bodies alike, so you write Python values:
  ``expand=["data.default_source"]`` goes as ``expand[]=...``,
  ``created={"gte": t}`` as ``created[gte]=t``, and a ``Form`` body's
  ``metadata={"plan": "pro"}`` as ``metadata[plan]=pro``. An expandable
  field is the object's ID unless the call expands it, so
  ``Customer.default_source`` holds either (``str | dict``).
- ``Form(...)``: Stripe's POSTs are form-encoded, not JSON.
- ``IdempotencyKey()`` then ``Retry(...)``: every POST gets a fresh UUID
  ``Idempotency-Key``, kept across re-sends, so ``Retry`` may re-send a
  POST after a 503 or a dropped connection and Stripe still does it once.
  A key you set yourself (one per sign-up, say) is kept: Stripe then
  answers the same call twice with the first answer.
- ``resource(path="/v1/customers{/:id}", pagination=BodyPagination.cursor(...))``:
  Stripe's paths have no trailing slash (``{/:id}`` lists and creates at
  ``/v1/customers``), and its lists come as ``{"object": "list", "data",
  "has_more"}``, the next page asked for with ``starting_after`` set to the
  last item's ``id``.
- Errors: a 4xx is raised as its status error (``NotFoundError`` for a
  404, ``BadRequestError``, ``UnauthorizedError``, ...), and
  ``error.json()["error"]`` is Stripe's error object (``type``, ``code``,
  ``message``, ``param``). With pydantic installed, an
  ``error_schema=`` model on the base reads it into ``error.data``, typed;
  this recipe needs nothing beyond restwire.

To use it against Stripe: ``stripe_api(STRIPE_API, os.environ["STRIPE_SECRET_KEY"])``
(a test-mode key while you try it), the ``Stripe-Version`` your code is
written for, and your own fields on ``Customer``.
"""

from __future__ import annotations

from typing import Any

from restwire import (
    Controller,
    Entity,
    Form,
    NotFoundError,
    Page,
    Resource,
    RestEndpoint,
    resource,
)
from restwire.middlewares import AccessToken, BodyPagination, IdempotencyKey, Retry

from .tour import Tour

TITLE = "Stripe: key, version, brackets, forms, idempotent retries, its errors"

#: The test-mode key the demo accepts: yours is ``os.environ["STRIPE_KEY"]``.
STRIPE_KEY = "sk_test_demo"
#: The API version this client is written for, sent as ``Stripe-Version``.
STRIPE_VERSION = "2024-06-20"

STRIPE_API = "https://api.stripe.com"


class Customer(Entity):
    id: str = ""
    name: str | None = None
    created: int = 0
    metadata: dict[str, str] | None = None
    #: The default payment source's ID, or, where the call expands it
    #: (``expand=["default_source"]``; ``"data.default_source"`` on a
    #: list), the source itself: a card, a bank account or a source.
    default_source: str | dict[str, Any] | None = None


def last4(customer: Customer) -> str | None:
    """The last four digits of the customer's default card, where the call
    expanded it (unexpanded, ``default_source`` is the card's ID)."""
    source = customer.default_source
    return source.get("last4") if isinstance(source, dict) else None


def stripe_api(base_url: str, key: str) -> RestEndpoint[Any]:
    """The base every Stripe endpoint extends."""
    return RestEndpoint(
        url_prefix=base_url,
        headers={"Stripe-Version": STRIPE_VERSION},
        param_style="brackets",
    ).use(
        AccessToken.bearer(key),
        IdempotencyKey(),
        Retry(attempts=3, backoff=0.2, budget=10),
    )


def customers(api: RestEndpoint[Any]) -> Resource[Customer, Page[Customer]]:
    return resource(
        path="/v1/customers{/:id}",
        schema=Customer,
        endpoint=api,
        pagination=BodyPagination.cursor(
            results="data", more="has_more", cursor_from="id", param="starting_after"
        ),
    )


def run(base_url: str, tour: Tour) -> Any:
    stripe = customers(stripe_api(base_url, STRIPE_KEY))
    with tour.client() as client:
        controller = Controller(client)
        query = {
            "limit": 2,
            "created": {"gte": 1700002000, "lte": 1700004000},
            "expand": ["data.default_source"],
        }
        found = controller.paginate(stripe.get_list, query, items=True)
        listed = [(c.id, last4(c)) for c in found]
        tour.say(f"created in a range, two a page, cards expanded: {listed}")

        form = Form({"name": "Ada", "metadata": {"plan": "pro"}})
        ada = controller.fetch(stripe.create, body=form)
        tour.say(f"created (form, metadata[plan]=pro): {ada.id} {ada.metadata}")

        sign_up = stripe.create.extend(headers={"Idempotency-Key": "sign-up-bob"})
        bob, response = controller.fetch_with_response(
            sign_up, body=Form({"name": "Bob"})
        )
        again, replay = controller.fetch_with_response(
            sign_up, body=Form({"name": "Bob"})
        )
        replayed = replay.headers.get("idempotent-replayed") == "true"
        tour.say(f"one Idempotency-Key, two calls: {bob.id}, then {again.id}, replayed")

        try:
            controller.fetch(stripe.get, {"id": "cus_missing"})
            code = None
        except NotFoundError as error:
            stripe_error = error.json()["error"]  # type, code, message, param
            code = stripe_error["code"]
            tour.say(f"404, Stripe's error: {code}: {stripe_error['message']}")
        version = response.headers.get("stripe-version")
    return {
        "listed": listed,
        "metadata": ada.metadata,
        "same customer": bob.id == again.id and replayed,
        "error code": code,
        "version": version,
    }
