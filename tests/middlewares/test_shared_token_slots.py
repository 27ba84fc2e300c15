"""Shared token slots are per holder (issue 41, finding 2).

An unnamed ``SharedToken`` used to be one slot per API origin: two users'
``AccessToken``s on one Redis acted as each other, and so did two tenants'
``OAuth2ClientCredentials``. Now an unnamed slot is keyed by whose token it
is, as the holder says (an OAuth2 grant: its grant type, token URL, client
id, scope and extra fields), or refused with a ``SettingError`` asking for
a name (an ``AccessToken`` whose ``refresh`` restwire cannot read, an
``OAuth2Password``).

A real token server (``tests/oauth_server.py``) and a real redis-server on
127.0.0.1, under both drivers. Each holder stands for a process: two
holders given one ``SharedToken`` meet only through Redis.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis

from restwire import RestEndpoint, SettingError
from restwire.middlewares import (
    AccessToken,
    OAuth2ClientCredentials,
    OAuth2Password,
    SharedToken,
)
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, TokenServer

pytestmark = pytest.mark.anyio

OTHER_ID, OTHER_SECRET = "tenant-globex", "globex-secret"


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    with TokenServer() as server:
        server.clients[OTHER_ID] = OTHER_SECRET
        yield server


def whoami(server: TokenServer, auth: Any) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=server.origin, path="/whoami").use(auth)


def grant(
    server: TokenServer, shared: SharedToken, client: str = CLIENT_ID, **options: Any
) -> OAuth2ClientCredentials:
    secret = CLIENT_SECRET if client == CLIENT_ID else OTHER_SECRET
    return OAuth2ClientCredentials(
        server.url("/token"), client, secret, shared=shared, **options
    )


def slots(redis_url: str) -> list[bytes]:
    found = redis.Redis.from_url(redis_url).keys("restwire:token:*:token")
    return sorted(key if isinstance(key, bytes) else key.encode() for key in found)


# -- refused: a holder that cannot say whose token it is -----------------------------


def test_an_access_token_refuses_a_slot_with_no_name(redis_url: str) -> None:
    """Two users' programs, each an ``AccessToken`` whose ``refresh`` gets
    its own user's token, on one unnamed ``SharedToken``: restwire cannot
    tell whose token a ``refresh`` returns, so it refuses where the slot is
    given (the constructor, or the attribute), asking for a name."""
    shared = SharedToken(redis_url)
    with pytest.raises(SettingError, match=r"name=\.\.\."):
        AccessToken(refresh=lambda: "ann-token", shared=shared)
    with pytest.raises(SettingError, match="name"):
        AccessToken.bearer(shared=shared)  # a reader of the slot, no refresh
    auth = AccessToken(refresh=lambda: "bob-token")
    with pytest.raises(SettingError, match="name"):
        auth.shared = shared
    assert auth.shared is None
    with pytest.raises(SettingError, match="takes a SharedToken"):
        AccessToken(shared=redis_url)  # type: ignore[arg-type]
    named = AccessToken(
        refresh=lambda: "ann-token", shared=SharedToken(redis_url, "ann")
    )
    assert named.shared is not None


def test_a_password_grant_refuses_a_slot_with_no_name(
    token_server: TokenServer, redis_url: str
) -> None:
    with pytest.raises(SettingError, match="name of this user's own"):
        OAuth2Password(
            token_server.url("/token"), "ann", "pw", shared=SharedToken(redis_url)
        )
    password = OAuth2Password(token_server.url("/token"), "ann", "pw")
    with pytest.raises(SettingError, match="name"):
        password.shared = SharedToken(redis_url)


async def test_two_users_named_slots_never_act_as_each_other(
    controller: Any, token_server: TokenServer, redis_url: str
) -> None:
    """Ann's and Bob's token holders, each on a slot of its own name on one
    Redis: each sends its own token, and a newcomer of Bob's (another
    process, no token yet) starts with Bob's."""
    ann = grant(token_server, SharedToken(redis_url, "ann"))
    bob = grant(token_server, SharedToken(redis_url, "bob"), OTHER_ID)
    assert await controller.fetch(whoami(token_server, ann)) == {"client": CLIENT_ID}
    assert await controller.fetch(whoami(token_server, bob)) == {"client": OTHER_ID}
    newcomer = grant(token_server, SharedToken(redis_url, "bob"), OTHER_ID)
    assert await controller.fetch(whoami(token_server, newcomer)) == {
        "client": OTHER_ID
    }
    assert token_server.counts["client_credentials"] == 2  # bob's was adopted


# -- keyed: an OAuth2 grant says whose token it is -----------------------------------


async def test_two_tenants_grants_on_an_unnamed_slot_get_their_own_tokens(
    controller: Any, token_server: TokenServer, redis_url: str
) -> None:
    """Two tenants' client-credentials grants for one API, one unnamed
    ``SharedToken`` on one Redis: each asks the token endpoint for its own
    token and is served as itself; it used to adopt the first tenant's
    token from the origin's slot."""
    shared = SharedToken(redis_url)
    acme = grant(token_server, shared)
    globex = grant(token_server, shared, OTHER_ID)
    assert await controller.fetch(whoami(token_server, acme)) == {"client": CLIENT_ID}
    assert await controller.fetch(whoami(token_server, globex)) == {"client": OTHER_ID}
    assert token_server.counts["client_credentials"] == 2
    assert len(slots(redis_url)) == 2


async def test_one_client_s_processes_share_its_slot(
    controller: Any, token_server: TokenServer, redis_url: str
) -> None:
    """Holders with the same grant settings (two processes of one service)
    find one slot: the second starts with the first's token, without a
    token request; a holder with another scope or another extra field has
    a slot of its own."""
    first = grant(token_server, SharedToken(redis_url), scope="read")
    second = grant(token_server, SharedToken(redis_url), scope="read")
    assert await controller.fetch(whoami(token_server, first)) == {"client": CLIENT_ID}
    assert await controller.fetch(whoami(token_server, second)) == {"client": CLIENT_ID}
    assert token_server.counts["client_credentials"] == 1
    assert second.token == first.token
    for other in (
        grant(token_server, SharedToken(redis_url), scope="write"),
        grant(token_server, SharedToken(redis_url), scope="read", extra={"aud": "x"}),
    ):
        await controller.fetch(whoami(token_server, other))
        assert other.token != first.token
    assert token_server.counts["client_credentials"] == 3
    keys = slots(redis_url)
    assert len(keys) == 3
    origin = f"http://127.0.0.1:{token_server.port}"
    assert all(key.decode().startswith(f"restwire:token:{origin}:") for key in keys)
    assert not any(CLIENT_SECRET.encode() in key for key in keys)


async def test_the_slot_is_the_api_origin_s_too(
    controller: Any, token_server: TokenServer, redis_url: str
) -> None:
    """One grant's holder calling two origins keeps a slot for each (the
    origin still keys an unnamed slot)."""
    shared = SharedToken(redis_url)
    auth = grant(token_server, shared)
    await controller.fetch(whoami(token_server, auth))
    other_origin = RestEndpoint(
        url_prefix=f"http://localhost:{token_server.port}", path="/whoami"
    )
    newcomer = grant(token_server, shared)
    assert await controller.fetch(other_origin.use(newcomer)) == {"client": CLIENT_ID}
    assert token_server.counts["client_credentials"] == 2
    assert len(slots(redis_url)) == 2
