"""Signed requests: a middleware signs the exact bytes that are sent.

Every request of an endpoint carries a
credential, added by the endpoint's own step. Here the credential is a
signature over the request itself, as webhooks, payment APIs and AWS
SigV4 use: an HMAC-SHA256 of the method, path, a timestamp and the body's
bytes. ``requires_request_body = True`` (httpx's ``Auth`` has the same
switch) makes the body's final bytes ready in ``exchange.content`` before
the signer runs: the casing middleware outside it has already turned the
keys to the wire's camelCase, and nothing inside it may change the body after (a
``RequestBodyError``), so what was signed is what goes out.

To use it against your API: change ``base_url``, the key, and the message
the server signs (some sign a canonical request with sorted headers);
keep the signer innermost, after anything that changes the body.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from typing import Any

from restwire import Controller, Exchange, RequestBodyError, RestEndpoint
from restwire.middlewares import SnakeCaseKeys

from .tour import Tour

TITLE = "sign each request's final bytes with an HMAC"

#: The key the demo API checks signatures with: yours from your secrets.
SIGNING_KEY = b"demo-signing-key"


class HmacSignature:
    """Signs each call: ``X-Signature`` is the HMAC-SHA256, under ``key``,
    of the method, path, ``X-Timestamp`` and body bytes, one a line."""

    #: The body's bytes, encoded, before ``on_request`` runs.
    requires_request_body = True

    def __init__(self, key: bytes, clock: Callable[[], float] = time.time) -> None:
        self.key = key
        self.clock = clock

    def on_request(self, exchange: Exchange) -> None:
        timestamp = str(int(self.clock()))
        message = b"\n".join(
            [
                exchange.method.encode(),
                exchange.url.raw_path.split(b"?", 1)[0],
                timestamp.encode(),
                exchange.encode(),  # the bytes that will be sent
            ]
        )
        exchange.headers["X-Timestamp"] = timestamp
        signature = hmac.new(self.key, message, hashlib.sha256).hexdigest()
        exchange.set_credential("X-Signature", signature)

    def __repr__(self) -> str:
        return "HmacSignature(key=[redacted])"


class LateEdit:
    """A middleware that changes the body: placed inside the signer, too late."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.body = {**exchange.body, "quantity": 99}


def run(base_url: str, tour: Tour) -> Any:
    api = RestEndpoint(url_prefix=base_url).use(
        SnakeCaseKeys(), HmacSignature(SIGNING_KEY)
    )
    create_order = api.extend(path="/orders/", method="POST")
    with tour.client() as client:
        controller = Controller(client)
        order = controller.fetch(create_order, body={"item_id": 7, "quantity": 2})
        tour.say(f"the server checked the signature: {order}")
        try:
            controller.fetch(create_order.use(LateEdit()), body={"item_id": 7})
            refused = "sent"
        except RequestBodyError as error:
            refused = type(error).__name__
            tour.say(f"a body change inside the signer is refused: {error}")
    return {
        "verified": order["verified"],
        "order": order["order"],
        "late edit": refused,
    }
