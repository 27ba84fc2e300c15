"""``_identity``: a call's identity is read from its first hop's request,
and ``get``'s shortcut (no middleware that sends credentials) reads the
very same identity without building one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from restwire import Controller, RestEndpoint
from restwire._identity import Identity, identity_of

API = "https://api.example.com"

CLIENTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "a token in the client's headers": {"headers": {"Access-Token": "c-1"}},
    "cookies for this host and others": {},
    "basic auth": {"auth": ("u", "p")},
}

ENDPOINTS: dict[str, dict[str, Any]] = {
    "bare": {},
    "its own credential header": {
        "headers": {"X-Api": "e-1"},
        "sensitive_headers": ["X-Api"],
    },
    "a header that overrides the client's": {"headers": {"Access-Token": "e-2"}},
}


def client_for(name: str) -> httpx.Client:
    client = httpx.Client(**CLIENTS[name])
    if name == "cookies for this host and others":
        client.cookies.set("session", "s-1", domain="api.example.com")
        client.cookies.set("elsewhere", "x", domain="other.example")
        client.cookies.set("deep", "d", domain="api.example.com", path="/items/1/more")
    return client


@pytest.mark.parametrize("client_name", CLIENTS)
@pytest.mark.parametrize("endpoint_name", ENDPOINTS)
@pytest.mark.parametrize("path", ["/items/1", "/items/1/more/x", "/"])
def test_the_shortcut_reads_the_identity_the_full_path_reads(
    client_name: str, endpoint_name: str, path: str
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path=path, **ENDPOINTS[endpoint_name])
    with Controller(client_for(client_name)) as controller:
        url = httpx.URL(API + path)
        shortcut = controller._plain_identity(endpoint, url)
        assert shortcut is not None
        assert shortcut == controller._probe(endpoint, None)


def test_only_the_cookies_the_call_sends_are_its_identity() -> None:
    """A cookie for another host (or another path) does not split callers."""
    endpoint = RestEndpoint(url_prefix=API, path="/items/1")
    with Controller() as controller:
        before = controller._probe(endpoint, None)
        controller.client.cookies.set("elsewhere", "x", domain="other.example")
        assert controller._probe(endpoint, None) == before
        controller.client.cookies.set("session", "s-1", domain="api.example.com")
        assert controller._probe(endpoint, None) != before


def test_userinfo_is_the_authorization_it_stands_for() -> None:
    with_userinfo = RestEndpoint(url_prefix="https://u:p@api.example.com", path="/x")
    with_header = RestEndpoint(
        url_prefix=API, path="/x", headers={"Authorization": "Basic dTpw"}
    )
    with Controller() as controller:
        assert controller._probe(with_userinfo, None) == controller._probe(
            with_header, None
        )
        assert (
            controller._plain_identity(with_userinfo, httpx.URL(with_userinfo.url()))
            is None
        )


def test_an_identity_is_never_shown() -> None:
    identity = identity_of([(b"Access-Token", b"secret")], (), "same-origin", None)
    assert isinstance(identity, Identity)
    assert "secret" not in repr(identity)
    assert repr(identity) == "Identity([redacted])"
