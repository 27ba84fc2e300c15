"""Credentials stay with their origin, whatever a redirect says.

Every way of signing in sends a credential. httpx alone forwards a
custom header such as ``Access-Token`` to any host a redirect names.
restwire sends no credential once a redirect has left the call's origin.

Nothing to change: it holds for every endpoint and middleware.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import AccessToken

from .tour import Tour

TITLE = "a redirect to another origin gets no token"


def run(base_url: str, tour: Tour) -> Any:
    away = RestEndpoint(url_prefix=base_url, path="/away").use(
        AccessToken("secret-token")
    )
    with tour.client() as client:
        return Controller(client).fetch(away)
