"""``_chain.identity``: a call's identity is read from its first hop's request,
and ``get``'s shortcut (no middleware that sends credentials) reads the
very same identity without building one."""

from __future__ import annotations

import http.cookiejar
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from restwire import CREDENTIAL_PARAMS, Controller, RestEndpoint, Sharing
from restwire._chain.identity import (
    Identities,
    Identity,
    Unshared,
    _empty,
    _kept_parts_agree,
    identity_of,
)

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
        shortcut = controller._identities.without_chain(endpoint, url)
        if client_name == "basic auth":
            assert shortcut is None  # the client's auth: the full path reads it
        else:
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
            controller._identities.without_chain(
                with_userinfo, httpx.URL(with_userinfo.url())
            )
            is None
        )


def test_an_identity_is_never_shown() -> None:
    identity = identity_of([(b"Access-Token", b"secret")], (), "same-origin", None)
    assert isinstance(identity, Identity)
    assert "secret" not in repr(identity)
    assert repr(identity) == "Identity([redacted])"


def probe(controller: Controller, endpoint: RestEndpoint, params: Any = None) -> Any:
    return controller._probe(endpoint, params)


def test_every_header_not_public_tells_callers_apart() -> None:
    """Deny by default: a header restwire knows nothing of is identity, a
    public one is not."""
    with Controller() as controller:
        base = RestEndpoint(url_prefix=API, path="/x")
        plain = probe(controller, base)
        assert probe(controller, base.extend(headers={"X-Tenant": "a"})) != plain
        assert (
            probe(controller, base.extend(headers={"Accept-Language": "fr"})) != plain
        )
        assert probe(controller, base.extend(headers={"Accept": "text/csv"})) == plain
        assert (
            probe(controller, base.extend(headers={"Idempotency-Key": "k1"})) == plain
        )


def test_credential_params_are_identity_and_redacted_from_the_key() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    with Controller() as controller:
        ann = probe(controller, endpoint, {"access_token": "ann", "page": 1})
        bob = probe(controller, endpoint, {"access_token": "bob", "page": 1})
        assert ann != bob
        key = controller.key(endpoint, {"access_token": "ann", "page": 1})
        assert key == f"GET {API}/x?access_token=[redacted]&page=1"
        assert "ann" not in key


def test_stickiness_cookies_do_not_split_callers() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    with Controller() as controller:
        jar = controller.client.cookies
        jar.set("session", "s-1", domain="api.example.com")
        before = probe(controller, endpoint)
        jar.set("AWSALB", "rotating-1", domain="api.example.com")
        jar.set("BIGipServerpool", "node-2", domain="api.example.com")
        assert probe(controller, endpoint) == before
        jar.set("AWSALB", "rotating-2", domain="api.example.com")
        assert probe(controller, endpoint) == before
        jar.set("session", "s-2", domain="api.example.com")
        assert probe(controller, endpoint) != before


def test_request_hooks_share_nothing_and_say_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    client = httpx.Client(event_hooks={"request": [lambda request: None]})
    with Controller(client) as controller:
        first, second = probe(controller, endpoint), probe(controller, endpoint)
        assert isinstance(first, Unshared)
        assert first != second
    assert [r.message for r in caplog.records].count(caplog.records[0].message) == 1
    assert "identity=" in caplog.records[0].message


def test_a_named_caller_is_shared_with_itself_alone() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    user = {"name": "ann"}
    client = httpx.Client(event_hooks={"request": [lambda request: None]})
    with Controller(client, identity=lambda: user["name"]) as controller:
        ann = probe(controller, endpoint)
        assert ann == probe(controller, endpoint)  # hooks, but a named caller
        user["name"] = "bob"
        assert probe(controller, endpoint) != ann


class ContextAuth(httpx.Auth):
    """Signs as whoever is current: one object for every user."""

    def __init__(self) -> None:
        self.user = "ann"

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["Authorization"] = f"Bearer {self.user}"
        yield request


def test_an_auth_that_signs_as_the_current_user_tells_users_apart() -> None:
    auth = ContextAuth()
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    with Controller(httpx.Client(auth=auth)) as controller:
        ann = probe(controller, endpoint)
        assert ann == probe(controller, endpoint)  # one user: shared
        auth.user = "bob"
        assert probe(controller, endpoint) != ann


def test_a_name_that_says_credential_cannot_be_public() -> None:
    with pytest.raises(ValueError, match="x-api-key cannot be public"):
        Sharing(public_headers=frozenset({"accept", "x-api-key"}))
    sharing = Sharing(public_headers=frozenset({"accept", "x-request-id"}))
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    with Controller(sharing=sharing) as controller:
        one = probe(controller, endpoint.extend(headers={"X-Request-Id": "1"}))
        two = probe(controller, endpoint.extend(headers={"X-Request-Id": "2"}))
        assert one == two


@pytest.mark.parametrize(
    "change",
    [
        lambda client: client.headers.__setitem__("Access-Token", "b-2"),
        lambda client: client.headers.__setitem__("X-Tenant", "b"),
        lambda client: client.headers.__delitem__("Access-Token"),
    ],
    ids=["replaced", "added", "removed"],
)
def test_the_shortcut_sees_client_headers_changed_in_place(
    change: Any,
) -> None:
    """``get``'s shortcut remembers the identity part the client's headers
    give, per endpoint: a header changed on the same client, in place, is a
    new identity at once (the stored value is not given to it), and the
    shortcut still agrees with the full path."""
    sent: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Access-Token"))
        return httpx.Response(200, json={"who": request.headers.get("Access-Token")})

    endpoint = RestEndpoint(url_prefix=API, path="/me")
    client = httpx.Client(
        transport=httpx.MockTransport(answer), headers={"Access-Token": "a-1"}
    )
    with Controller(client) as controller:
        first = controller.get(endpoint)
        assert controller.get(endpoint) is first  # the shortcut answered
        change(client)
        second = controller.get(endpoint)
        assert second is not first
        assert len(sent) == 2
        url = httpx.URL(API + "/me")
        assert controller._identities.without_chain(endpoint, url) == controller._probe(
            endpoint, None
        )


def test_a_credential_param_one_controller_names_stays_in_anothers_keys() -> None:
    """Messages redact every credential param any ``Sharing`` named (one
    more redaction is harmless there), but request keys redact each
    controller's own: for a controller whose callers are not told apart by
    ``tenant``, ``tenant=a`` and ``tenant=b`` are two requests, never one."""
    Sharing(credential_params=CREDENTIAL_PARAMS | {"tenant"})  # another's
    endpoint = RestEndpoint(url_prefix=API, path="/items")
    with Controller() as controller:
        first = controller.key(endpoint, {"tenant": "a"})
        second = controller.key(endpoint, {"tenant": "b"})
    assert first != second
    assert "tenant=a" in first
    with Controller(
        sharing=Sharing(credential_params=CREDENTIAL_PARAMS | {"tenant"})
    ) as controller:
        assert "tenant=a" not in controller.key(endpoint, {"tenant": "a"})


# -- the store shortcut's cheap checks ------------------------------------------------


class _ElsewhereJar(http.cookiejar.CookieJar):
    """A jar of the user's that keeps its cookies in a store of its own."""

    def __init__(self, cookies: list[http.cookiejar.Cookie]) -> None:
        super().__init__()
        self.held = cookies

    def __iter__(self) -> Iterator[http.cookiejar.Cookie]:
        return iter(self.held)

    def __len__(self) -> int:
        return len(self.held)

    def add_cookie_header(self, request: urllib.request.Request) -> None:
        if self.held:
            request.add_unredirected_header(
                "Cookie", "; ".join(f"{c.name}={c.value}" for c in self.held)
            )


def _one_cookie() -> http.cookiejar.Cookie:
    jar = httpx.Cookies()
    jar.set("sessionid", "alice-session", domain="api.test")
    return next(iter(jar.jar))


def test_an_empty_jar_is_told_by_its_domains_and_any_other_by_counting() -> None:
    empty = http.cookiejar.CookieJar()
    assert _empty(empty)
    held = httpx.Cookies()
    held.set("sessionid", "alice-session", domain="api.test")
    assert not _empty(held.jar)
    held.jar.clear("api.test", "/", "sessionid")  # leaves its domain's dicts
    assert _empty(held.jar)
    # a jar that keeps its cookies elsewhere is counted, never guessed empty
    assert not _empty(_ElsewhereJar([_one_cookie()]))
    assert _empty(_ElsewhereJar([]))


def test_a_get_from_the_store_tells_a_jar_of_the_user_s_by_its_cookies(
    httpx_mock: Any,
) -> None:
    """A value stored for a caller with no cookie is not the answer to one
    whose jar (of a kind restwire does not know, which sends cookies it
    keeps elsewhere) holds a session."""
    httpx_mock.add_response(url="https://api.test/me", json={"who": "nobody"})
    httpx_mock.add_response(url="https://api.test/me", json={"who": "alice"})
    endpoint = RestEndpoint(url_prefix="https://api.test", path="/me")
    jar = _ElsewhereJar([])
    client = httpx.Client(cookies=jar)
    assert client.cookies.jar is jar
    with Controller(client) as controller:
        assert controller.get(endpoint) == {"who": "nobody"}
        jar.held.append(_one_cookie())
        assert controller.get(endpoint) == {"who": "alice"}


def test_what_the_shortcut_remembers_of_a_url_is_that_url_s() -> None:
    """The shortcut keeps what it read of each URL (userinfo, credential
    params), one entry per URL object, past its bound too: a URL with
    userinfo is never answered from the store, and each query token is its
    own caller, however many URLs came between."""
    client = httpx.Client()
    identities = Identities(client, None, Sharing())
    endpoint = RestEndpoint(url_prefix="https://api.test", path="/me")
    one = httpx.URL("https://api.test/me?access_token=one")
    first = identities.without_chain(endpoint, one)
    assert first is not None
    for number in range(3000):  # past the bound (1,024): emptied, refilled
        with_userinfo = httpx.URL(f"https://u:p@api.test/me?n={number}")
        assert identities.without_chain(endpoint, with_userinfo) is None
        other = httpx.URL(f"https://api.test/me?access_token=t{number}")
        assert identities.without_chain(endpoint, other) not in (None, first)
    assert identities.without_chain(endpoint, one) == first


def test_the_identity_remembered_from_the_last_call_is_what_it_would_read() -> None:
    """``Identities.of`` answers a first hop like the last one from what it
    worked out then: each change of what an identity is read from (a
    header's value, the names marked, the credentials mode, a credential
    param, the host asked for, the URL's authority) reads it afresh, and
    the answer is always what ``identity_of`` reads."""
    client = httpx.Client()
    identities = Identities(client, None, Sharing())
    mark = identities._mark
    steps: list[tuple[str, dict[str, str], set[str], str]] = [
        ("https://api.test/me", {"X-Token": "one"}, set(), "same-origin"),
        ("https://api.test/me", {"X-Token": "one"}, set(), "same-origin"),
        ("https://api.test/me", {"X-Token": "two"}, set(), "same-origin"),
        (
            "https://api.test/me",
            {"X-Token": "two", "Accept": "a/b"},
            set(),
            "same-origin",
        ),
        (
            "https://api.test/me",
            {"X-Token": "two", "Accept": "a/b"},
            {"accept"},
            "same-origin",
        ),
        (
            "https://api.test/me",
            {"X-Token": "two", "Accept": "a/b"},
            {"accept"},
            "omit",
        ),
        ("https://api.test/me?access_token=q1", {}, set(), "omit"),
        ("https://api.test/me?access_token=q2", {}, set(), "omit"),
        ("https://api.test/me", {"Host": "tenant.test"}, set(), "omit"),
        ("https://api.test:8443/me", {"Host": "api.test"}, set(), "omit"),
        ("https://api.test/me", {"Host": "api.test"}, set(), "omit"),
    ]
    seen = []
    for url, headers, marked, mode in steps:
        request = client.build_request("GET", url, headers=headers)
        exchange: Any = type("Exchange", (), {"sensitive": marked, "credentials": mode})
        found = identities.of(request, exchange)
        assert found == identity_of(request, marked, mode, None, caller=mark)
        seen.append(found)
    assert seen[0] == seen[1]
    assert seen[2] == seen[3]  # (a public header, not marked, is no identity)
    assert len(set(seen)) == len(seen) - 2  # every other step another caller


def test_a_header_set_later_is_not_in_what_the_identity_was_read_of() -> None:
    """What ``Identities.of`` remembers of the last first hop is a copy: a
    header set on that request afterwards does not make a later request
    that carries it look like the one the identity was read from."""
    client = httpx.Client()
    identities = Identities(client, None, Sharing())
    exchange: Any = type("Exchange", (), {"sensitive": set(), "credentials": "omit"})
    first = client.build_request("GET", "https://api.test/me")
    before = identities.of(first, exchange)
    first.headers["Authorization"] = "Bearer alice"
    second = client.build_request(
        "GET", "https://api.test/me", headers={"Authorization": "Bearer alice"}
    )
    after = identities.of(second, exchange)
    assert after != before
    assert after == identity_of(second, set(), "omit", None, caller=identities._mark)


def test_a_host_header_of_its_own_to_another_host_is_another_caller() -> None:
    """Two first hops that set the same ``Host`` header themselves have the
    same header fields; sent to other hosts, each is read afresh."""
    client = httpx.Client()
    identities = Identities(client, None, Sharing())
    exchange: Any = type("Exchange", (), {"sensitive": set(), "credentials": "omit"})
    found = []
    for url in ("https://a.example/x", "https://b.example/x", "https://a.example/x"):
        request = client.build_request("GET", url, headers={"Host": "a.example"})
        identity = identities.of(request, exchange)
        assert identity == identity_of(
            request, set(), "omit", None, caller=identities._mark
        )
        found.append(identity)
    assert found[0] != found[1]
    assert found[0] == found[2]


def test_headers_or_urls_kept_otherwise_are_read_the_public_way() -> None:
    """A URL class whose parts do not say its ``netloc`` (a subclass that
    reports another) fails the check, and identities are read from its
    public ``netloc`` and ``query``."""

    class OtherURL(httpx.URL):
        @property
        def netloc(self) -> bytes:
            return b"elsewhere.example"

    assert _kept_parts_agree(httpx.Headers, httpx.URL)
    assert not _kept_parts_agree(httpx.Headers, OtherURL)
