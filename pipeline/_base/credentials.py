"""What may say who is calling: restwire's one rule, deny by default.

**Headers.** Every request header is a credential unless it is on a short
public list of headers that say nothing about the caller
(:data:`PUBLIC_HEADERS`: ``Accept``, ``Accept-Encoding``, ``User-Agent``,
``Content-Type``, ...). ``Authorization``, ``Proxy-Authorization`` and
``Cookie`` always are, and so is a header marked with ``exchange.
set_credential``, ``exchange.mark_sensitive`` or an endpoint's
``sensitive_headers``. A header whose name says credential (it contains
``auth``, ``token``, ``key`` (not ``Idempotency-Key``), ``secret``,
``passw``, ``session``, ``cookie``, ``csrf``, ``xsrf``, ``signature`` or
``credential``) can never be made public. The same rule serves wherever a
header was set (the endpoint, a middleware, the client's defaults) and
everywhere restwire decides:

- a credential is part of a call's identity: calls share a response only
  when they send the same ones (``_chain.identity``);
- a credential is never sent to another origin: a redirect that leaves the
  call's origin carries public headers only (``_controller.sender``);
- a credential is never shown (reprs, errors, logs) and never stored by the
  HTTP cache.

**Query parameters.** :data:`CREDENTIAL_PARAMS` (``access_token``,
``api_key``, ``sig``, AWS's and Google's signed-URL parameters, ...) are
credentials too: redacted wherever a URL is shown or kept (errors, request
keys, the HTTP cache), and part of the identity.

**Cookies.** The ``Cookie`` header is identity, except the load balancer's
stickiness cookies (:data:`STICKY_COOKIES`: ``AWSALB``, ``BIGipServer*``,
...), which rotate on every answer and say which server, not which caller.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from typing import Literal

__all__ = [
    "ALWAYS_SENSITIVE",
    "CREDENTIALS",
    "CREDENTIAL_PARAMS",
    "PUBLIC_HEADERS",
    "RAW_NAMES",
    "STICKY_COOKIES",
    "Credentials",
    "is_credential",
    "is_credential_param",
    "is_sticky",
    "learn",
    "may_name_credential",
    "names_credential",
    "splits_header",
]

#: A call's credentials mode, as ``fetch``'s ``credentials`` option has it:
#: which hops send the jar's cookies and store the ones they are set
#: (``"omit"``: none; ``"same-origin"``, the default: those before a redirect
#: first leaves the call's origin; ``"include"``: all).
Credentials = Literal["omit", "same-origin", "include"]
CREDENTIALS: frozenset[str] = frozenset(("omit", "same-origin", "include"))

#: Headers that carry a credential whatever anybody says.
ALWAYS_SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie"})

#: Request headers that say nothing about who is calling: the only ones two
#: callers may differ in and still share a response, and the only ones a
#: redirect to another origin carries (lower case).
PUBLIC_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "expect",
        "host",
        "idempotency-key",
        "if-match",
        "if-modified-since",
        "if-none-match",
        "if-range",
        "if-unmodified-since",
        "keep-alive",
        "last-event-id",
        "pragma",
        "range",
        "te",
        "traceparent",
        "tracestate",
        "transfer-encoding",
        "upgrade",
        "user-agent",
    }
)

#: Query parameters that carry a credential (compared in lower case):
#: redacted wherever a URL is shown or kept, and part of the identity.
CREDENTIAL_PARAMS = frozenset(
    {
        "access_token",
        "api-key",
        "api_key",
        "apikey",
        "auth",
        "auth_token",
        "awsaccesskeyid",
        "client_secret",
        "code",
        "id_token",
        "jwt",
        "key",
        "password",
        "refresh_token",
        "secret",
        "session",
        "sig",
        "signature",
        "token",
        "x-amz-credential",
        "x-amz-security-token",
        "x-amz-signature",
        "x-goog-credential",
        "x-goog-signature",
    }
)

#: Cookies a load balancer sets to pin a client to a server, rotating on
#: every answer: not identity (a trailing ``*`` matches any ending).
STICKY_COOKIES = (
    "AWSALB",
    "AWSALBCORS",
    "AWSALBTG",
    "AWSALBTGCORS",
    "AWSELB",
    "BIGipServer*",
    "ROUTEID",
    "SERVERID",
)

_CREDENTIAL_WORDS = re.compile(
    r"auth|token|key|secret|passw|session|cookie|csrf|xsrf|signature|credential"
)


def may_name_credential(pattern: str) -> bool:
    """Whether a cookie name ``pattern`` (a trailing ``*`` matches any
    ending) says credential or session (a credential word, or one of
    :data:`_SESSION_WORDS`: ``PHPSESSID``, ``jwt``), or, as a prefix,
    could match a name that starts with one (``sess*``: ``sessionid``);
    a load balancer's own cookie (:data:`_LOAD_BALANCER_COOKIES`) never."""
    name = pattern.lower()
    if name in _LOAD_BALANCER_COOKIES:
        return False
    if _SESSION_COOKIE.search(name.rstrip("*")):
        return True  # (PHPSESSID, connect.sid: a session by another word)
    if not name.endswith("*"):
        return names_credential(name)
    prefix = name.rstrip("*")
    return _CREDENTIAL_WORDS.search(prefix) is not None or any(
        word.startswith(prefix) for word in (*_CREDENTIAL_WORD_LIST, *_SESSION_WORDS)
    )


#: What session and sign-in cookies are called besides the credential
#: words: ``sess`` (``PHPSESSID``), ``sid`` alone or as a part
#: (``connect.sid``), and words that say who (``jwt``, ``SSO``, CAS's
#: ``CASTGC``, ``wordpress_logged_in_*``, ASP.NET's ``Identity``, a user).
_SESSION_WORDS = (
    "sess",
    "jwt",
    "sso",
    "bearer",
    "logged_in",
    "loggedin",
    "login",
    "identity",
    "castgc",
    "ticket",
    "remember",
    "user",
)
_SESSION_COOKIE = re.compile("|".join((*_SESSION_WORDS, r"(?:^|[._-])sid(?:$|[._-])")))
#: Load balancers' own cookies whose names hold such a word all the same
#: (nginx-ingress's, Heroku's session affinity, Google Cloud's).
_LOAD_BALANCER_COOKIES = frozenset({"ingresscookie", "heroku-session-affinity", "gclb"})


#: The words of :data:`_CREDENTIAL_WORDS`, each alone.
_CREDENTIAL_WORD_LIST = tuple(_CREDENTIAL_WORDS.pattern.split("|"))
#: Names that contain a credential word but name no credential.
_NOT_CREDENTIALS = frozenset({"idempotency-key"})


@lru_cache(maxsize=4096)
def names_credential(name: str) -> bool:
    """Whether the header ``name`` (lower case) says it is a credential, and
    so can never be public."""
    return name not in _NOT_CREDENTIALS and (
        name in ALWAYS_SENSITIVE or _CREDENTIAL_WORDS.search(name) is not None
    )


def is_credential(
    name: str, marked: Collection[str] = (), public: Collection[str] = PUBLIC_HEADERS
) -> bool:
    """Whether the header ``name`` (lower case) is a credential: any header
    not in ``public``, and one of ``marked`` (see the module)."""
    return name not in public or name in marked or name in ALWAYS_SENSITIVE


#: Raw header name -> its lower-case text; one dictionary look-up per header
#: on the hot path (``_chain.identity`` reads it in place, :func:`learn` fills it).
RAW_NAMES: dict[bytes, str] = {}


def learn(raw_name: bytes) -> str:
    """A header name as it is on the wire, in lower case (remembered, for
    at most 4,096 names)."""
    name = raw_name.decode("latin-1").lower()
    if len(RAW_NAMES) < 4096:  # a bound: names are few, but not trusted
        RAW_NAMES[raw_name] = name
    return name


def is_credential_param(name: str, params: Collection[str] = CREDENTIAL_PARAMS) -> bool:
    """Whether the query parameter ``name`` carries a credential."""
    return name.lower() in params


def is_sticky(name: str, sticky: Collection[str] = STICKY_COOKIES) -> bool:
    """Whether the cookie ``name`` is a load balancer's stickiness cookie."""
    return any(
        name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern
        for pattern in sticky
    )


# Control characters but tab: a CR or LF in a value could split the header
# and inject another.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def splits_header(value: str) -> bool:
    """Whether a header value holds a line break or another control
    character (which could split the header and inject another)."""
    return _CONTROL.search(value) is not None
