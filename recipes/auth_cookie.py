"""Cookie session with CSRF: one base endpoint shared by several resources.

A cookie session (``credentials="same-origin"``) protected against
CSRF, and several resources sharing that sign-in by extending one base
endpoint.

To use it against your API: change ``base_url``; Django's defaults are
``CsrfToken(cookie="csrftoken", header="X-CSRFToken")``, Angular's are
``CsrfToken(cookie="XSRF-TOKEN", header="X-XSRF-TOKEN")``.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import CookieCredentials, CsrfToken

from .tour import Tour

TITLE = "cookie session and CSRF, from one shared base endpoint"


def session(base_url: str) -> RestEndpoint:
    """The base: cookies to this origin only, CSRF header on unsafe methods."""
    return RestEndpoint(url_prefix=base_url).use(
        CookieCredentials("same-origin"), CsrfToken()
    )


def run(base_url: str, tour: Tour) -> Any:
    base = session(base_url)
    login = base.extend(path="/login", method="POST")
    save_note = base.extend(path="/my/notes/", method="POST")
    get_mine = base.extend(path="/my/:id")
    with tour.client() as client:
        controller = Controller(client)
        controller.fetch(login, body={"username": "demo"})
        tour.say(f"cookies kept: {sorted(client.cookies.keys())}")
        saved = controller.fetch(
            save_note, body={"text": "hello"}
        )  # carries X-CSRFToken
        mine = controller.fetch(get_mine, {"id": "7"})  # GET: no CSRF header
        return {"note": saved, "mine": mine}
