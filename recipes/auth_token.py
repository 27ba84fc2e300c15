"""Access token: a login sets the token, every later request carries it.

A login handler sets the token; ``AccessToken`` sends it as
``Access-Token`` on every later request.

To use it against your API: change ``base_url``, the login path and the
field that holds the token; for ``Authorization: Bearer``, use
``AccessToken(header="Authorization", prefix="Bearer ")``.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import AccessToken

from .tour import Tour

TITLE = "log in; AccessToken sends the token on every call"


def api(base_url: str, auth: AccessToken) -> RestEndpoint:
    """A base endpoint every endpoint of the API extends: one token holder."""
    return RestEndpoint(url_prefix=base_url).use(auth)


def run(base_url: str, tour: Tour) -> Any:
    auth = AccessToken()
    base = api(base_url, auth)
    login = base.extend(path="/login", method="POST")
    get_mine = base.extend(path="/my/:id")
    with tour.client() as client:
        controller = Controller(client)
        auth.token = controller.fetch(login, body={"username": "demo"})["accessToken"]
        tour.say(f"holder after login: {auth!r}")
        client.cookies.clear()  # the token alone must be enough
        return controller.fetch(get_mine, {"id": "42"})
