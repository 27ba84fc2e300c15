"""Who a call says it is: the one place a call's identity is worked out.

A controller shares a response (in flight, from its store, through the
HTTP cache, through a poller) only between calls of equal identity and
equal value shape. The identity of a call is read from the request of its
first hop, built and fitted to the credential policy, so it is what would
be sent:

- every credential header of that request, the client's default headers
  included (``_credentials`` says which headers are credentials), with
  the ``Cookie`` header the jar gave this URL (no cookie the call would not
  send splits callers), and the ``Authorization`` the URL's userinfo
  stands for;
- the call's credentials mode, and the client's own ``auth``.

An :class:`Identity` compares exactly and is never shown: it holds
credential values.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ._credentials import RAW_NAMES, learn

__all__ = ["Identity", "identity_of"]


class Identity(tuple[object, ...]):
    """Who a call says it is (see the module): compared exactly, and never
    shown, since it holds credential values."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Identity([redacted])"


def identity_of(
    headers: Iterable[tuple[bytes, bytes]],
    marked: Collection[str],
    mode: str,
    auth: object,
) -> Identity:
    """The identity of a call whose first hop sends ``headers`` (raw items;
    credential headers by ``marked`` and by name), with credentials mode
    ``mode`` on a client whose own ``auth`` is ``auth``."""
    known = RAW_NAMES
    credentials = []
    for name, value in headers:
        seen = known.get(name) or learn(name)
        if seen[1] or seen[0] in marked:
            credentials.append((name, value))
    return Identity((tuple(credentials), mode, auth))
