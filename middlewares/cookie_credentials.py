"""``CookieCredentials``: the Fetch standard's credentials mode, per endpoint.

A cookie session sets ``credentials="same-origin"`` on every request.
The mode decides, hop by hop (the sender's credential
policy, ``_controller.sender``), whether cookies from the client's jar are
sent and whether the cookies a response sets are stored:

| mode | sent and stored |
|---|---|
| ``"omit"`` | never |
| ``"same-origin"`` (also the default without this middleware) | while the chain is at the call's origin, until a redirect first leaves it: A -> B -> A sends none on the last hop |
| ``"include"`` | on every hop, the jar's own domain rules applying |

httpx alone sends a jar cookie set without a domain to every host, redirect
targets included; restwire does not, in any mode but ``"include"``.
"""

from __future__ import annotations

from typing import get_args

from restwire import Credentials, Exchange, SettingError

__all__ = ["CookieCredentials"]

_MODES = frozenset(get_args(Credentials))


class CookieCredentials:
    """Sets the credentials mode of every call through it."""

    #: It sets the mode and never reads the value: a list of entities may
    #: go from the body's bytes to the store.
    takes_unparsed = True

    def __init__(self, mode: Credentials = "same-origin") -> None:
        if not isinstance(mode, str) or mode not in _MODES:
            raise SettingError(f"mode must be one of {sorted(_MODES)}, not {mode!r}")
        self.mode: Credentials = mode

    def on_request(self, exchange: Exchange) -> None:
        exchange.credentials = self.mode

    def __repr__(self) -> str:
        return f"CookieCredentials(mode={self.mode!r})"
