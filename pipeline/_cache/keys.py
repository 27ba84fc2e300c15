"""What a controller gives the cache for a call, and the fingerprint it
keeps of a body: the call's cache key (a digest of its identity and URL)
in a :class:`Ticket`, and :func:`body_digest`.

The key is how calls of different identities never share an entry: it
digests the call's credentials, the URL's userinfo, the cookies it may
send, its credentials mode and its caller (the random text of a client
restwire cannot see whole: no other client's calls find that one's
entries), or, for a caller ``identity=`` names, that name and its
credentials mode alone (so a caller's entries outlive its token, in every
process), with its URL, never its method (so that an
unsafe request finds and invalidates the entries of its URL, as RFC 9111
section 4.4 asks). It shows neither credentials nor URL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, cast

from .._base.credentials import PUBLIC_HEADERS
from .._chain.exchange import Exchange
from .._chain.identity import (
    Identity,
    Sharing,
    Unshared,
    auth_signs,
    identity_digest,
    is_named,
    plain_url,
)

__all__ = ["Ticket", "body_digest", "cache_key", "ticket_for"]


@dataclass(frozen=True, slots=True)
class Ticket:
    """What lets a hop into the cache: its key, and the header names that
    are credentials for this call (besides those the rule names)."""

    key: str
    marked: frozenset[str]
    public: frozenset[str] = PUBLIC_HEADERS

    def __repr__(self) -> str:
        return "Ticket([redacted])"


def ticket_for(
    identity: Hashable, exchange: Exchange, client_auth: Any, sharing: Sharing
) -> Ticket | None:
    """The ticket of a call of ``identity`` whose first hop ``exchange``
    builds, on a client with ``client_auth``; ``None`` when it passes by the
    cache: an identity restwire cannot see whole, a streamed body, or a
    client's auth that put no credential on the first hop (Digest answers a
    challenge), which then cannot key the entry, unless ``identity=`` names
    the caller (the name keys it)."""
    if (
        type(identity) is Unshared
        or exchange.endpoint.content.streamed
        or (
            client_auth is not None
            and not auth_signs(identity)
            and not is_named(identity)
        )
    ):
        return None
    plain = plain_url(exchange.url, sharing.credential_params)
    return Ticket(
        cache_key(cast(Identity, identity), plain),
        frozenset(exchange.sensitive),
        sharing.public_headers,
    )


def cache_key(identity: Identity, url: str) -> str:
    """The cache key of a call: a SHA-256 digest of its identity and ``url``
    (without userinfo). Equal for equal credentials in every process (no
    per-process salt), so processes sharing a storage share entries; the
    key shows neither."""
    return identity_digest(identity, b"restwire-cache-3", url.encode())


def body_digest(content: bytes) -> bytes:
    """A body's fingerprint, to know a cached body for the one a stored
    value was read from."""
    return hashlib.blake2b(content, digest_size=16).digest()
