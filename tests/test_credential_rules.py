"""The words that say credential, each held by a test of its own.

A header whose name says credential can never be made public
(``Sharing``), and a response header so named is never stored by the HTTP
cache. The rule is a list of words (``_base.credentials``); a word dropped
from it, or a credential name slipped onto the public list, fails here
(``python .ci/mutants.py`` drops them one at a time).
"""

from __future__ import annotations

import pytest

from restwire import PUBLIC_HEADERS, STICKY_COOKIES, SettingError, Sharing
from restwire._base.credentials import is_sticky, names_credential

#: A header name of each credential word, as APIs spell them.
SAYS_CREDENTIAL = [
    "x-auth-user",
    "x-access-token",
    "x-api-key",
    "x-client-secret",
    "x-password",
    "x-session-id",
    "x-cookie",
    "x-csrf",
    "x-xsrf-token",
    "x-amz-signature",
    "x-credential",
    "authorization",
    "proxy-authorization",
    "cookie",
]


@pytest.mark.parametrize("name", SAYS_CREDENTIAL)
def test_a_name_with_a_credential_word_can_never_be_public(name: str) -> None:
    assert names_credential(name)
    with pytest.raises(SettingError, match=f"{name} cannot be public"):
        Sharing(public_headers=PUBLIC_HEADERS | {name})
    with pytest.raises(SettingError, match="cannot be public"):
        Sharing(public_headers=PUBLIC_HEADERS | {name.upper()})  # any case


def test_the_public_list_names_no_credential() -> None:
    said = sorted(name for name in PUBLIC_HEADERS if names_credential(name))
    assert said == []
    assert "idempotency-key" in PUBLIC_HEADERS  # 'key', but names no credential
    assert not names_credential("idempotency-key")


@pytest.mark.parametrize("name", ["session", "sessionid", "auth", "user", "token"])
def test_a_caller_s_cookie_is_never_taken_for_a_stickiness_cookie(name: str) -> None:
    assert not is_sticky(name)
    assert not is_sticky(name, STICKY_COOKIES)
    assert is_sticky("AWSALB")
    assert is_sticky("BIGipServer~pool~web")
