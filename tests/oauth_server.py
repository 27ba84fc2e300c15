"""An OAuth2 token endpoint and a protected API on 127.0.0.1, for the
OAuth2 tests that cross a socket (and for worker processes to share).

Routes:

- ``POST /token``: RFC 6749 §4.3, §4.4 and §6. The client authenticates
  with ``Authorization: Basic`` (id and secret form-urlencoded, then
  Base64, §2.3.1) or ``client_id``/``client_secret`` in the form; else 401
  ``invalid_client``. Grants: ``client_credentials``, ``password`` (user
  ``ann``, password ``PASSWORD``) and ``refresh_token`` (each refresh token
  works once: rotated). Issues ``tok-<n>``, ``expires_in`` as
  :attr:`TokenServer.expires_in`, and ``ref-<n>`` when
  :attr:`TokenServer.refresh_tokens`. Counted per grant in ``counts``;
  answers after :attr:`TokenServer.pause` seconds (so overlapping requests
  would be seen; longer than a client's timeout: a hung endpoint), or,
  while :attr:`TokenServer.failing` is a status, with that status. Every
  form it got is in ``forms``.
- ``GET /me``: 200 ``{"token": <the Bearer token>}`` for a token it issued
  and did not revoke, else 401; counted as ``me``.
- ``GET /whoami``: the same, as ``{"client": <the client id the token was
  issued to>}`` (for tenants: :attr:`TokenServer.clients` has every client
  id and secret it knows).
- ``POST /revoke``: every token issued so far gets 401 from now on.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import Counter
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from recipes.demo_api import QuietHandler, QuietServer, read_body
from tests.servers import ServedInThread

__all__ = ["CLIENT_ID", "CLIENT_SECRET", "PASSWORD", "TokenServer"]

#: Characters that §2.3.1's form-urlencoding changes, in both.
CLIENT_ID = "my client:1"
CLIENT_SECRET = "s3cr%t/+&:é"
PASSWORD = "pa ss&word%"


def _basic(header: str) -> tuple[str, str] | None:
    """The client id and secret of an ``Authorization: Basic`` header,
    decoded as §2.3.1 says (Base64, then form-urldecoded each)."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        pair = base64.b64decode(value, validate=True).decode()
    except ValueError:
        return None
    client_id, colon, secret = pair.partition(":")
    return (unquote_plus(client_id), unquote_plus(secret)) if colon else None


class _Handler(QuietHandler):
    server: _Server

    def _answer(self) -> None:
        body = read_body(self)
        owner = self.server.owner
        path = urlsplit(self.path).path
        if path == "/token" and self.command == "POST":
            status, answer = owner.token(dict(self.headers.items()), body)
            time.sleep(owner.pause)
        elif path == "/me":
            status, answer = owner.me(self.headers.get("authorization", ""))
        elif path == "/whoami":
            status, answer = owner.me(self.headers.get("authorization", ""))
            if status == 200:
                answer = {"client": owner.issued_to[str(answer["token"])]}
        elif path == "/revoke" and self.command == "POST":
            owner.revoke()
            status, answer = 204, {}
        else:
            status, answer = 404, {}
        self.answer(
            status,
            json.dumps(answer).encode() if status != 204 else b"",
            {"content-type": "application/json", "cache-control": "no-store"},
        )

    do_GET = do_POST = _answer


class _Server(QuietServer):
    owner: TokenServer


class TokenServer(ServedInThread):
    """A token endpoint and ``/me`` on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.forms: list[dict[str, str]] = []
        self.expires_in: int | None = 3600
        self.refresh_tokens = False
        self.pause = 0.0
        #: A status every token request is answered with, while set (the
        #: endpoint down); counted all the same.
        self.failing: int | None = None
        #: Each client id the server knows, with its secret.
        self.clients: dict[str, str] = {CLIENT_ID: CLIENT_SECRET}
        #: Each token issued, and the client it was issued to.
        self.issued_to: dict[str, str] = {}
        self._issued = 0
        self._valid: set[str] = set()
        self._refresh: set[str] = set()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        super().__init__(server)

    def token(
        self, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, object]]:
        form = dict(parse_qsl(body.decode(), keep_blank_values=True))
        lowered = {name.lower(): value for name, value in headers.items()}
        with self.lock:
            self.forms.append(form)
            grant = form.get("grant_type", "")
            self.counts[grant] += 1
            if self.failing is not None:
                return self.failing, {"error": "temporarily_unavailable"}
            client = _basic(lowered.get("authorization", ""))
            if client is None:
                client = (form.get("client_id", ""), form.get("client_secret", ""))
            if self.clients.get(client[0]) != client[1]:
                return 401, {
                    "error": "invalid_client",
                    "error_description": "Client authentication failed",
                }
            if grant == "password":
                if (form.get("username"), form.get("password")) != ("ann", PASSWORD):
                    return 400, {"error": "invalid_grant"}
            elif grant == "refresh_token":
                if form.get("refresh_token") not in self._refresh:
                    return 400, {
                        "error": "invalid_grant",
                        "error_description": "refresh token expired",
                    }
                self._refresh.discard(form["refresh_token"])
            elif grant != "client_credentials":
                return 400, {"error": "unsupported_grant_type"}
            self._issued += 1
            token = f"tok-{self._issued}"
            self._valid.add(token)
            self.issued_to[token] = client[0]
            answer: dict[str, object] = {"access_token": token, "token_type": "Bearer"}
            if self.expires_in is not None:
                answer["expires_in"] = self.expires_in
            if self.refresh_tokens:
                answer["refresh_token"] = f"ref-{self._issued}"
                self._refresh.add(f"ref-{self._issued}")
            return 200, answer

    def me(self, authorization: str) -> tuple[int, dict[str, object]]:
        scheme, _, token = authorization.partition(" ")
        with self.lock:
            self.counts["me"] += 1
            if scheme.lower() == "bearer" and token in self._valid:
                return 200, {"token": token}
        return 401, {"error": "invalid_token"}

    def revoke(self) -> None:
        with self.lock:
            self._valid.clear()
