"""OAuth2 grants as middleware: a Bearer token a token endpoint gives.

``OAuth2ClientCredentials`` (RFC 6749 §4.4) and ``OAuth2Password`` (§4.3)
ask the token endpoint for a token before the first call, send it as
``Authorization: Bearer <token>`` (RFC 6750), and ask again before it
expires::

    auth = OAuth2ClientCredentials(
        "https://auth.example.com/oauth/token", "my-client", secret, scope="read"
    )
    api = RestEndpoint(url_prefix="https://api.example.com").use(auth)

They are :class:`AccessToken`\\ s: what that guarantees holds here (one
instance for any threads and event loops, under both controllers; one
renewal for calls that need one together; a 401 renews once and sends
again; ``shared=SharedToken(...)`` for one token request across
processes). On top of it:

- **The token request** is a form POST (``application/x-www-form-urlencoded``,
  ``Accept: application/json``) sent as a ``SideCall``: on the
  controller's client or transport (its proxies, certificates, timeouts,
  ``httpx_mock``), by the sender, but through none of the calling
  endpoint's middleware. It follows no redirect (a redirected POST would
  carry the secret on), and reads at most 64 KiB.
- **Client authentication** (§2.3.1): ``auth_method="client_secret_basic"``
  (the default) sends ``Authorization: Basic`` of the id and secret, each
  form-urlencoded first, as §2.3.1 says; ``"client_secret_post"`` sends
  them in the form. With no secret, ``client_id`` goes in the form (a
  public client, §2.3.1 and §3.2.1).
- **Early renewal, without storms.** A token with ``expires_in`` is
  renewed ``early`` seconds before it expires (default: 30 s, or a tenth
  of its lifetime if that is shorter). While it is still valid, the call
  that finds it due renews it and the others send it meanwhile, waiting
  for nothing (with ``shared=``, nor for another process that holds the
  shared lock); if renewing fails, the token is sent, the failure logged
  (one warning a renewal), and one caller tries again once a back-off has
  passed (1 s, doubling to 30 s): a token endpoint that is down or hangs
  is asked once per back-off, not once per call. Once the token has
  expired, every call that needs it waits for one renewal, and its
  failure is their error. Time is the ``clock`` (wall-clock seconds, ``time.time``:
  a shared slot compares expiry across processes).
- **The refresh-token grant** (§6): when a token response has a
  ``refresh_token``, the next renewal uses it (keeping it if the answer
  has no new one). If the token endpoint refuses it with ``invalid_grant``
  (expired, revoked, rotated by another process), the original grant is
  asked at once.
- **The token response** must be a JSON object with ``access_token`` and a
  ``token_type`` of Bearer (any case); another type is refused with an
  :class:`OAuth2Error` (restwire sends Bearer tokens only). ``expires_in``
  may be a number or a numeric string; absent, the token is renewed only
  on a 401.
- **Errors.** A refusal (§5.2) or an answer that is not a token raises
  :class:`OAuth2Error` naming the call and the token endpoint, with the
  provider's ``error``, ``error_description`` and ``error_uri``. It is
  the call's error when there is no token to send; after a 401, the 401
  is raised with it as its ``__cause__`` (as :class:`AccessToken`'s
  refresh). Its message, repr and chain carry no secret, password or
  token (a description that quotes one has it replaced by ``[redacted]``),
  and no log line does.
- **Identity.** The token header is a credential: calls sent with
  different tokens never share stored results.
- **Across processes**, with ``shared=SharedToken(...)``, the slot holds
  the token response as JSON (the access token, when it expires, the
  refresh token): a process that adopts it knows when to renew it. An
  unnamed slot is the API origin's and the grant's: its grant type, token
  URL, client id, scope and extra fields (so two clients, tenants or
  scopes never share a token, and one client's processes do).
  ``OAuth2Password`` insists on a ``name`` of the user's own.

Why not authlib or httpx-oauth: authlib's httpx clients subclass
``httpx.Client`` and ``httpx.AsyncClient`` (a client of their own, written
twice, on httpx alone, with its own per-client locking), and httpx-oauth
is async-only and built for the authorization-code login flow; neither can
send through a restwire controller's effects under both drivers and both
libraries. The grants themselves are a form POST and a JSON answer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote_plus, urlencode, urlsplit

from restwire import (
    Flow,
    NetworkError,
    RestEndpoint,
    RestwireError,
    SettingError,
    SideCall,
    UsageError,
)
from restwire.extension import quoted_forms, redact_url

from ._checks import check_seconds, check_text, sendable
from .access_token import AccessToken
from .shared_token import SharedToken

__all__ = ["OAuth2ClientCredentials", "OAuth2Error", "OAuth2Password"]

logger = logging.getLogger("restwire")

AuthMethod = Literal["client_secret_basic", "client_secret_post"]

#: The most a token response may be, in bytes.
MAX_TOKEN_RESPONSE = 64 * 1024

#: How long before ``expires_in`` runs out a token is renewed, at most.
DEFAULT_EARLY = 30.0

_REDACTED = "[redacted]"

#: Names of form fields (``extra``) whose values are secrets.
_SECRET_FIELD = re.compile(r"secret|passw|token|assertion|verifier|key|code")


def _check_token_url(owner: str, token_url: object) -> None:
    """``token_url`` is an absolute http(s) URL (messages show it redacted)."""
    check_text(owner, "token_url", token_url)
    assert isinstance(token_url, str)
    try:
        parsed = urlsplit(token_url)
        host = parsed.hostname
    except ValueError:  # (a bracketed host that is not an address)
        host = None
    if host is None or parsed.scheme.lower() not in ("http", "https"):
        raise SettingError(
            f"{owner}(token_url={redact_url(token_url)!r}): not an absolute http(s) URL"
        )


#: Form fields a token request sends whose values are secrets besides the
#: grant's own (the client secret and the password, ``_secrets``).
_SENT_SECRETS = frozenset({"refresh_token"})


class OAuth2Error(RestwireError):
    """The token endpoint refused a grant (RFC 6749 §5.2), could not be
    reached, or answered what is not a Bearer token.

    ``token_url`` names the endpoint; ``grant`` the grant asked for
    (``"client_credentials"``, ``"password"``, ``"refresh_token"``);
    ``status`` its HTTP status (``None`` if it never answered); ``error``,
    ``error_description`` and ``error_uri`` what the provider said, if it
    said. The message names the call; it never holds a secret or a token.
    """

    def __init__(
        self,
        label: str,
        token_url: str,
        grant: str,
        reason: str,
        *,
        status: int | None = None,
        error: str | None = None,
        error_description: str | None = None,
        error_uri: str | None = None,
    ) -> None:
        self.label = label
        self.token_url = token_url
        self.grant = grant
        self.reason = reason
        self.status = status
        self.error = error
        self.error_description = error_description
        self.error_uri = error_uri
        super().__init__(
            f"{label}: the token endpoint {token_url} {reason} (grant_type={grant})"
        )

    def for_call(self, label: str) -> OAuth2Error:
        """The same failure, naming the call ``label`` (one that waited for
        the token request that failed)."""
        return OAuth2Error(
            label,
            self.token_url,
            self.grant,
            self.reason,
            status=self.status,
            error=self.error,
            error_description=self.error_description,
            error_uri=self.error_uri,
        )

    def __repr__(self) -> str:
        return f"OAuth2Error({str(self)!r})"


@dataclass(frozen=True, slots=True)
class _Grant:
    """What came with an access token: when it expires and is renewed
    (wall-clock seconds; ``None``: only on a 401), the refresh token, and
    the record as a shared slot holds it."""

    expires_at: float | None
    renew_at: float | None
    refresh_token: str | None
    text: str


def _text_field(payload: Mapping[str, Any], name: str) -> str | None:
    value = payload.get(name)
    return value if isinstance(value, str) and value else None


def _seconds(value: Any) -> float | None:
    """``expires_in`` as seconds: a positive finite number or numeric
    string; anything else is no expiry."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value) and value > 0:
        return float(value)
    return None


class _OAuth2Grant(AccessToken):
    """An :class:`AccessToken` that asks a token endpoint for its token
    (see the module). Subclasses say which grant, and its form fields."""

    #: The grant's ``grant_type`` (RFC 6749 §4.3, §4.4).
    grant_type = ""

    def __init__(
        self,
        token_url: str,
        client_id: str | None,
        client_secret: str | None,
        *,
        scope: str | None,
        auth_method: AuthMethod,
        extra: Mapping[str, str] | None,
        early: float | None,
        clock: Callable[[], float],
        shared: SharedToken | None,
    ) -> None:
        owner = type(self).__name__
        _check_token_url(owner, token_url)
        check_text(owner, "client_id", client_id, optional=True)
        check_text(owner, "client_secret", client_secret, optional=True, secret=True)
        check_text(owner, "scope", scope, optional=True)
        if auth_method not in ("client_secret_basic", "client_secret_post"):
            raise SettingError(
                f"{owner}(auth_method=...) must be 'client_secret_basic' or "
                f"'client_secret_post', not {auth_method!r}"
            )
        if extra is not None and not (
            isinstance(extra, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in extra.items())
        ):
            raise UsageError(
                f"{owner}(extra=...) must map form field names to text, not "
                f"{type(extra).__name__}"
            )
        check_seconds(owner, "early", early, optional=True)
        if not callable(clock):
            raise UsageError(
                f"{owner}(clock=...) must be a function returning wall-clock "
                f"seconds, not {type(clock).__name__}"
            )
        self.token_url = token_url
        #: The token URL as messages and reprs show it: userinfo and
        #: credential query params redacted.
        self._shown_url = redact_url(token_url)
        self.client_id = client_id
        self.scope = scope
        self.auth_method: AuthMethod = auth_method
        self.early = early
        self.clock = clock
        self._client_secret = client_secret
        self._extra = dict(extra or {})
        # (the grant's settings first: an unnamed SharedToken's slot is keyed
        # by them, as AccessToken's __init__ takes it)
        super().__init__(header="Authorization", prefix="Bearer ", shared=shared)
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        #: The Basic credentials sent (Base64), if any: no message shows them.
        self._basic: str | None = None
        if client_secret is not None and auth_method == "client_secret_basic":
            # RFC 6749 §2.3.1: each form-urlencoded, then joined and Base64'd
            pair = f"{quote_plus(client_id or '')}:{quote_plus(client_secret)}"
            self._basic = base64.b64encode(pair.encode()).decode("ascii")
            headers["Authorization"] = "Basic " + self._basic
        self._endpoint: RestEndpoint[Any] = RestEndpoint(
            url_prefix=token_url,
            method="POST",
            headers=headers,
            content="bytes",
            follow_redirects=False,
            max_body_size=MAX_TOKEN_RESPONSE,
        )

    # -- the grant's form ------------------------------------------------------

    def _grant_fields(self) -> dict[str, str]:
        """The grant's own form fields, besides ``grant_type``."""
        return {}

    def _secrets(self) -> tuple[str, ...]:
        """Values no message may show (the secret, a password, the values
        of ``extra`` fields whose names say credential: an assertion, a
        code verifier)."""
        extra = tuple(
            value
            for name, value in self._extra.items()
            if value and _SECRET_FIELD.search(name.lower())
        )
        return (*(s for s in (self._client_secret,) if s), *extra)

    def _form(self, grant: str, fields: Mapping[str, str]) -> bytes:
        """The token request's form: the grant type, its fields, the
        client's credentials if they go in the body, and ``extra``."""
        form: dict[str, str] = {"grant_type": grant, **fields}
        if self._client_secret is None or self.auth_method == "client_secret_post":
            if self.client_id is not None:
                form["client_id"] = self.client_id
            if self._client_secret is not None:
                form["client_secret"] = self._client_secret
        for name, value in self._extra.items():
            form.setdefault(name, value)
        return urlencode(form).encode("ascii")

    # -- AccessToken's hooks -------------------------------------------------------

    def _holder(self) -> str | None:
        """Whose token this is, for an unnamed ``SharedToken``'s slot: a
        digest of the grant type, token URL, client id, scope and extra
        form fields (the same in every process; no secret in it)."""
        whose = [
            self.grant_type,
            self.token_url,
            self.client_id,
            self.scope,
            sorted(self._extra.items()),
        ]
        text = json.dumps(whose, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def _refreshes(self) -> bool:
        return True

    def _due(self) -> bool:
        token, _, grant = self._state
        if token is None:
            return True
        if not isinstance(grant, _Grant) or grant.renew_at is None:
            return False
        return self.clock() >= grant.renew_at

    def _now(self) -> float:
        return self.clock()

    def _usable(self) -> bool:
        token, _, grant = self._state
        if token is None:
            return False
        if not isinstance(grant, _Grant) or grant.expires_at is None:
            return True
        return self.clock() < grant.expires_at

    def _slot_text(self, state: tuple[str | None, int, Any]) -> str | None:
        grant = state[2]
        return grant.text if isinstance(grant, _Grant) else state[0]

    def _from_text(self, text: str) -> tuple[str, Any]:
        try:
            record = json.loads(text)
        except ValueError:
            record = None
        if not isinstance(record, dict) or not _text_field(record, "access_token"):
            return text, None  # a plain token (set by hand, or by AccessToken)
        expires_at = record.get("expires_at")
        renew_at = record.get("renew_at")
        return record["access_token"], _Grant(
            float(expires_at) if isinstance(expires_at, int | float) else None,
            float(renew_at) if isinstance(renew_at, int | float) else None,
            _text_field(record, "refresh_token"),
            text,
        )

    def _waited_failure(self, failure: BaseException | None, label: str) -> Exception:
        if isinstance(failure, OAuth2Error):
            return failure.for_call(label)
        return super()._waited_failure(failure, label)

    def _obtain(self, label: str) -> Flow[str | None]:
        """A new token's record: by the refresh-token grant when there is a
        refresh token (the original grant if it is refused as
        ``invalid_grant``), else by the original grant."""
        grant = self._state[2]
        refresh_token = grant.refresh_token if isinstance(grant, _Grant) else None
        if refresh_token is not None:
            try:
                payload = yield from self._request(
                    label, "refresh_token", {"refresh_token": refresh_token}
                )
                return self._record(label, "refresh_token", payload, refresh_token)
            except OAuth2Error as refused:
                if refused.error != "invalid_grant":
                    raise
                logger.info(
                    "%s: the refresh token was refused (invalid_grant); asking "
                    "with grant_type=%s",
                    label,
                    self.grant_type,
                )
        payload = yield from self._request(label, self.grant_type, self._grant_fields())
        return self._record(label, self.grant_type, payload, None)

    # -- the token request ---------------------------------------------------------

    def _request(
        self, label: str, grant: str, fields: Mapping[str, str]
    ) -> Flow[dict[str, Any]]:
        """Ask the token endpoint for a token by ``grant``; its answer, a
        JSON object (an :class:`OAuth2Error` for anything else)."""
        body = self._form(grant, fields)
        # what this request sends that no message may show, besides the
        # grant's own secrets: the refresh token it presents
        sent = tuple(v for k, v in fields.items() if k in _SENT_SECRETS and v)
        failure: OAuth2Error | None = None
        try:
            _, response = yield SideCall(self._endpoint, None, body)
        except NetworkError as refused:
            failure = self._refused(label, grant, refused, sent)
        except RestwireError as failed:
            reason = self._scrub(f"could not be reached ({failed})", sent)
            failure = OAuth2Error(label, self._shown_url, grant, reason)
        if failure is not None:
            # raised out here, so that no __context__ keeps the request
            # (its body holds the secret, the password, a refresh token)
            raise failure
        payload = self._json(response.content)
        if payload is None:
            raise OAuth2Error(
                label,
                self._shown_url,
                grant,
                f"answered {response.status_code} with a body that is not a JSON "
                "object",
                status=response.status_code,
            ) from None
        return payload

    def _refused(
        self, label: str, grant: str, refused: NetworkError, sent: tuple[str, ...]
    ) -> OAuth2Error:
        """The error of a 4xx or 5xx from the token endpoint: what the
        provider said (RFC 6749 §5.2), if it said it in JSON, with no secret
        of the grant's nor any it ``sent``."""
        payload = self._json(refused.response.content) or {}
        error = _text_field(payload, "error")
        description = _text_field(payload, "error_description")
        uri = _text_field(payload, "error_uri")
        if description is not None:
            description = self._scrub(description[:500], sent)
        if error is not None:
            error = self._scrub(error[:100], sent)
        if uri is not None:
            uri = self._scrub(uri, sent)
        said = f": {error}" if error else ""
        if description:
            said += f" ({description})"
        return OAuth2Error(
            label,
            self._shown_url,
            grant,
            f"refused the token request with {refused.status}{said}",
            status=refused.status,
            error=error,
            error_description=description,
            error_uri=uri,
        )

    @staticmethod
    def _json(content: bytes) -> dict[str, Any] | None:
        try:
            payload = json.loads(content)
        except (ValueError, RecursionError):  # (nested past Python's limit)
            return None
        return payload if isinstance(payload, dict) else None

    def _scrub(self, text: str, sent: tuple[str, ...] = ()) -> str:
        """``text`` with every secret of this grant, and each value in
        ``sent``, replaced in every encoding a provider may quote it in (as
        it is, form-encoded, percent-encoded, JSON-escaped, and the Basic
        credentials as sent), and control characters dropped (a provider's
        words go into a message)."""
        quoted: set[str] = set(self._basic_credentials())
        for secret in (*self._secrets(), *sent):
            quoted.update(quoted_forms(secret))
        for each in sorted(quoted, key=len, reverse=True):  # longest first
            text = text.replace(each, _REDACTED)
        return "".join(c if c.isprintable() else " " for c in text)

    def _basic_credentials(self) -> tuple[str, ...]:
        """The ``Authorization: Basic`` credentials this grant sends (the
        Base64 text), if any, and the pair it encodes."""
        if self._basic is None:
            return ()
        return (self._basic, base64.b64decode(self._basic).decode())

    def _record(
        self,
        label: str,
        grant: str,
        payload: Mapping[str, Any],
        refresh_token: str | None,
    ) -> str:
        """The token response, checked (RFC 6749 §5.1), as the record this
        holder keeps and a shared slot holds (JSON)."""
        token = _text_field(payload, "access_token")
        if token is None:
            raise OAuth2Error(
                label, self._shown_url, grant, "answered with no access_token"
            )
        if not sendable(token):
            raise OAuth2Error(
                label,
                self._shown_url,
                grant,
                "gave an access_token that is not printable ASCII, which is all "
                "a header can carry",
            )
        token_type = payload.get("token_type")
        if not isinstance(token_type, str) or token_type.lower() != "bearer":
            shown = repr(token_type[:40]) if isinstance(token_type, str) else "missing"
            raise OAuth2Error(
                label,
                self._shown_url,
                grant,
                f"gave a token of type {shown}, not Bearer; restwire sends "
                "Bearer tokens only (RFC 6750)",
            )
        lifetime = _seconds(payload.get("expires_in"))
        now = self.clock()
        expires_at = renew_at = None
        if lifetime is not None:
            early = self.early
            if early is None:
                early = min(DEFAULT_EARLY, lifetime / 10)
            expires_at = now + lifetime
            renew_at = expires_at - min(early, lifetime)
        record = {
            "access_token": token,
            "expires_at": expires_at,
            "renew_at": renew_at,
            "refresh_token": _text_field(payload, "refresh_token") or refresh_token,
            "scope": _text_field(payload, "scope"),
        }
        return json.dumps(record, sort_keys=True)

    def __repr__(self) -> str:
        state = "set" if self._state[0] else "unset"
        shared = f", shared={self.shared!r}" if self.shared else ""
        return (
            f"{type(self).__name__}(token_url={self._shown_url!r}, "
            f"client_id={self.client_id!r}, token={state}{shared})"
        )


class OAuth2ClientCredentials(_OAuth2Grant):
    """The client-credentials grant (RFC 6749 §4.4): the client's own
    token, for a service calling an API as itself (see the module)."""

    grant_type = "client_credentials"

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        auth_method: AuthMethod = "client_secret_basic",
        extra: Mapping[str, str] | None = None,
        early: float | None = None,
        clock: Callable[[], float] = time.time,
        shared: SharedToken | None = None,
    ) -> None:
        super().__init__(
            token_url,
            client_id,
            client_secret,
            scope=scope,
            auth_method=auth_method,
            extra=extra,
            early=early,
            clock=clock,
            shared=shared,
        )

    def _grant_fields(self) -> dict[str, str]:
        return {"scope": self.scope} if self.scope else {}


class OAuth2Password(_OAuth2Grant):
    """The resource owner password credentials grant (RFC 6749 §4.3): a
    user's token for their name and password (see the module). The
    password is sent only to the token endpoint, and shown nowhere."""

    grant_type = "password"

    def __init__(
        self,
        token_url: str,
        username: str,
        password: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        scope: str | None = None,
        auth_method: AuthMethod = "client_secret_basic",
        extra: Mapping[str, str] | None = None,
        early: float | None = None,
        clock: Callable[[], float] = time.time,
        shared: SharedToken | None = None,
    ) -> None:
        check_text("OAuth2Password", "username", username)
        check_text("OAuth2Password", "password", password, secret=True)
        if shared is not None and getattr(shared, "name", None) is None:
            raise SettingError(
                "OAuth2Password: give the SharedToken a name of this user's own "
                "(SharedToken(redis, name=...)); a slot per origin would share "
                "one user's token with every user of the API"
            )
        super().__init__(
            token_url,
            client_id,
            client_secret,
            scope=scope,
            auth_method=auth_method,
            extra=extra,
            early=early,
            clock=clock,
            shared=shared,
        )
        self.username = username
        self._password = password

    def _secrets(self) -> tuple[str, ...]:
        return (*super()._secrets(), *((self._password,) if self._password else ()))

    def _holder(self) -> str | None:
        return None  # a user's token: the slot needs a name of the user's own

    def _grant_fields(self) -> dict[str, str]:
        fields = {"username": self.username, "password": self._password}
        if self.scope:
            fields["scope"] = self.scope
        return fields
