"""What restwire cannot attribute, it does not share (issue 41, finding 1).

A client's transport, mounts and SSL context are not public in httpx: a
client certificate in the SSL context (mTLS tenants), or a transport or
mount that adds the caller's token, says who is calling where restwire
cannot read it. Calls of one controller all go out through its one client,
so they may share; the harm is sharing across clients, through an
``HttpCache`` that several controllers or processes use. Each client
restwire did not make whole is therefore a caller of its own there
(``_chain.identity.ClientMark``), unless ``identity=`` names the caller.

Real servers on 127.0.0.1 (one speaking TLS that asks for a client
certificate, made by trustme), both storages (SQLite and a real
redis-server), both drivers, and a second process for the storage shared
across processes.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from recipes.demo_api import QuietHandler, QuietServer
from restwire import AsyncController, Controller, HttpCache, RestEndpoint
from tests.servers import ServedInThread

pytestmark = pytest.mark.anyio


# -- a server that says who called: by client certificate or by token ---------------


class _WhoHandler(QuietHandler):
    server: _WhoServer

    def do_GET(self) -> None:
        who = "nobody"
        connection = self.connection
        if isinstance(connection, ssl.SSLSocket):
            certificate: Any = connection.getpeercert() or {}
            for part in certificate.get("subject", ()):
                for name, value in part:
                    if name == "commonName":
                        who = str(value)
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            who = token
        owner = self.server.owner
        with owner.lock:
            owner.seen.append(who)
        body = json.dumps({"who": who, "path": self.path}).encode()
        self.answer(
            200,
            body,
            {
                "content-type": "application/json",
                # one caller's own, for a minute: an HTTP cache keeps it for
                # that caller alone
                "cache-control": "private, max-age=60",
            },
        )


class _WhoServer(QuietServer):
    owner: WhoServer


class WhoServer(ServedInThread):
    """Answers ``{"who": ...}``: the common name of the client certificate
    (with ``context``: TLS asking for one), or the Bearer token sent;
    ``seen`` has who each request came from."""

    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        self.seen: list[str] = []
        self.lock = threading.Lock()
        server = _WhoServer(("127.0.0.1", 0), _WhoHandler)
        server.owner = self
        if context is not None:
            server.socket = context.wrap_socket(server.socket, server_side=True)
        super().__init__(server)
        if context is not None:
            self.origin = f"https://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def tls_server(ca: trustme.CA) -> Iterator[WhoServer]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    ca.configure_trust(context)
    context.verify_mode = ssl.CERT_REQUIRED
    with WhoServer(context) as server:
        yield server


@pytest.fixture
def who(tls_server: WhoServer) -> WhoServer:
    tls_server.seen.clear()
    return tls_server


@pytest.fixture
def plain_who() -> Iterator[WhoServer]:
    with WhoServer() as server:
        yield server


def tenant_context(ca: trustme.CA, tenant: str) -> ssl.SSLContext:
    """An SSL context that trusts the test CA and presents ``tenant``'s
    client certificate."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    ca.issue_cert(f"{tenant}.tenants.test", common_name=tenant).configure_cert(context)
    return context


Make = Callable[..., Any]


@pytest.fixture
def make(controller_factory: Make) -> Make:
    """``make(cache=..., identity=..., **client_options)``: a controller of
    this test's driver on a client of the user's, made with those options."""
    return controller_factory


def invoices(server: WhoServer) -> RestEndpoint[Any]:
    # kept in the store for no time: every call reaches the HTTP cache
    return RestEndpoint(
        url_prefix=server.origin, path="/invoices", data_expiry_length=0
    )


# -- client certificates ------------------------------------------------------------------


async def test_tenants_with_their_own_client_certificates_never_share_an_entry(
    make: Make, ca: trustme.CA, who: WhoServer, cache: HttpCache
) -> None:
    """Two tenants, each with its own client whose SSL context holds the
    tenant's certificate, on one HTTP cache: each gets its own private
    invoices (the server is asked once for each), never the other's."""
    acme = make(cache=cache, verify=tenant_context(ca, "acme"))
    globex = make(cache=cache, verify=tenant_context(ca, "globex"))
    assert (await acme.fetch(invoices(who)))["who"] == "acme"
    assert (await globex.fetch(invoices(who)))["who"] == "globex"
    assert (await acme.fetch(invoices(who)))["who"] == "acme"  # from the cache
    assert (await globex.fetch(invoices(who)))["who"] == "globex"
    assert who.seen == ["acme", "globex"]


async def test_controllers_on_one_client_share_its_entries(
    mode: str, ca: trustme.CA, who: WhoServer, cache: HttpCache
) -> None:
    """Calls through one client go out with its one certificate: two
    controllers on it share what the cache holds for it."""
    context = tenant_context(ca, "acme")
    if mode == "sync":
        with httpx.Client(verify=context) as client:
            for _ in range(2):
                with Controller(client, cache=cache) as controller:
                    assert controller.fetch(invoices(who))["who"] == "acme"
    else:
        async with httpx.AsyncClient(verify=context) as async_client:
            for _ in range(2):
                async with AsyncController(async_client, cache=cache) as actrl:
                    assert (await actrl.fetch(invoices(who)))["who"] == "acme"
    assert who.seen == ["acme"]


async def test_a_named_caller_shares_across_clients_and_keeps_tenants_apart(
    make: Make, ca: trustme.CA, who: WhoServer, cache: HttpCache
) -> None:
    """``identity=`` says who is calling, so clients that present the same
    tenant's certificate and name the same caller share entries, and
    callers named apart never do."""
    first = make(cache=cache, verify=tenant_context(ca, "acme"), identity=lambda: "a")
    again = make(cache=cache, verify=tenant_context(ca, "acme"), identity=lambda: "a")
    other = make(cache=cache, verify=tenant_context(ca, "globex"), identity=lambda: "g")
    assert (await first.fetch(invoices(who)))["who"] == "acme"
    assert (await again.fetch(invoices(who)))["who"] == "acme"  # from the cache
    assert (await other.fetch(invoices(who)))["who"] == "globex"
    assert who.seen == ["acme", "globex"]


_CHILD = textwrap.dedent(
    """
    import ssl, sys
    import tests  # on httpx2 alone, makes `import httpx` give httpx2
    import httpx, trustme
    from restwire import Controller, HttpCache, RestEndpoint

    ca = trustme.CA.from_pem(open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read())
    context = ssl.create_default_context()
    ca.configure_trust(context)
    ca.issue_cert("acme.tenants.test", common_name="acme").configure_cert(context)
    named = sys.argv[5] == "named"
    with Controller(
        httpx.Client(verify=context),
        cache=HttpCache.sqlite(sys.argv[3]),
        identity=(lambda: "acme") if named else None,
    ) as controller:
        endpoint = RestEndpoint(url_prefix=sys.argv[4], path="/invoices")
        print(controller.fetch(endpoint)["who"])
    """
)


@pytest.mark.parametrize("named", ["named", "unnamed"])
def test_another_process_s_client_is_not_answered_unless_named(
    ca: trustme.CA, who: WhoServer, tmp_path: Path, named: str
) -> None:
    """A process fills a SQLite cache through its client (tenant acme's
    certificate); another process's client cannot be told to be the same
    tenant, so it is not answered from that entry, unless both name the
    caller."""
    (tmp_path / "ca.pem").write_bytes(ca.cert_pem.bytes())
    (tmp_path / "ca.key").write_bytes(ca.private_key_pem.bytes())
    database = tmp_path / "shared.db"
    for _ in range(2):
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                _CHILD,
                str(tmp_path / "ca.pem"),
                str(tmp_path / "ca.key"),
                str(database),
                who.origin,
                named,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        assert child.returncode == 0, child.stderr[-2000:]
        assert child.stdout.strip() == "acme"
    assert who.seen == (["acme"] if named == "named" else ["acme", "acme"])


# -- a transport or a mount that adds the credential ------------------------------------


class AddsToken(httpx.HTTPTransport):
    """A user's transport that sends as ``user`` (restwire cannot see it)."""

    def __init__(self, user: str) -> None:
        super().__init__()
        self.user = user

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["authorization"] = f"Bearer {self.user}"
        return super().handle_request(request)


class AsyncAddsToken(httpx.AsyncHTTPTransport):
    def __init__(self, user: str) -> None:
        super().__init__()
        self.user = user

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["authorization"] = f"Bearer {self.user}"
        return await super().handle_async_request(request)


def _adding(mode: str, how: str, user: str) -> dict[str, Any]:
    transport = AddsToken(user) if mode == "sync" else AsyncAddsToken(user)
    if how == "transport":
        return {"transport": transport}
    return {"mounts": {"http://127.0.0.1": transport}}


@pytest.mark.parametrize("how", ["transport", "mount"])
async def test_a_transport_or_mount_that_adds_the_token_shares_with_nobody_else(
    make: Make, mode: str, plain_who: WhoServer, cache: HttpCache, how: str
) -> None:
    """Alice's client and Bob's each have a transport (or a mount) that
    adds their own token; on one HTTP cache, Bob gets Bob's value."""
    alice = make(cache=cache, **_adding(mode, how, "alice"))
    bob = make(cache=cache, **_adding(mode, how, "bob"))
    assert (await alice.fetch(invoices(plain_who)))["who"] == "alice"
    assert (await bob.fetch(invoices(plain_who)))["who"] == "bob"
    assert (await alice.fetch(invoices(plain_who)))["who"] == "alice"
    assert plain_who.seen == ["alice", "bob"]


async def _twice_on_clients_restwire_makes(
    mode: str, cache: HttpCache, endpoint: RestEndpoint[Any]
) -> None:
    """Two controllers, one after the other, each making its own client,
    fetch ``endpoint`` through ``cache``."""
    for _ in range(2):
        if mode == "sync":
            with Controller(cache=cache) as controller:
                assert controller.fetch(endpoint)["who"] == "nobody"
        else:
            async with AsyncController(cache=cache) as async_controller:
                assert (await async_controller.fetch(endpoint))["who"] == "nobody"


async def test_a_client_restwire_makes_still_shares_across_controllers(
    mode: str, plain_who: WhoServer, cache: HttpCache
) -> None:
    """restwire sees the whole of a client it makes on its own transport:
    controllers of it (here, one after the other) share the cache as
    before."""
    await _twice_on_clients_restwire_makes(mode, cache, invoices(plain_who))
    assert plain_who.seen == ["nobody"]


async def test_proxy_credentials_from_the_environment_make_a_client_its_own(
    mode: str,
    plain_who: WhoServer,
    cache: HttpCache,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A proxy the environment names with a user and password (not used
    for 127.0.0.1 here) may say who is calling: even a client restwire
    makes then shares nothing with another client."""
    monkeypatch.setenv("HTTP_PROXY", "http://someone:secret@127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    await _twice_on_clients_restwire_makes(mode, cache, invoices(plain_who))
    assert plain_who.seen == ["nobody", "nobody"]
