"""Stoplight Prism on 127.0.0.1, serving a provider's own OpenAPI
description, for the recipes' contract tests (``tests/recipes/test_prism.py``).

``prism mock --errors`` checks every request against the description it
serves: a request the description does not allow (a parameter of the wrong
type, a body property not in its schema's terms, a form where JSON is
asked for, no credentials where a security scheme is required) gets a
4xx whose ``sl-violations`` header, and problem body, says why. Otherwise
it answers with a response built from the description (its examples, or
its schemas). :class:`Prism` starts one such server on a port the OS just
handed out and stops it; :func:`violations` reads what Prism refused.

``.ci/install-node-tools`` installs the exact Prism that ``.ci/prism/``'s lock
names into ``.cache/prism`` (gitignored); :func:`missing` says, in one
line, why Prism cannot run here when it cannot.

Two descriptions need a step before Prism can serve them, each taken on
the response side only (the parameters and request bodies Prism checks
requests against stay the provider's text; ``test_prism.py`` checks that):

- :func:`unexpanded` (Stripe): Stripe's schemas name each other through
  their expandable fields (a customer's ``default_source`` may be a card,
  whose ``customer`` may be the customer...), and Prism's dereferencer
  does not finish on that web in minutes. Stripe itself answers an
  expandable field with the object's ID unless the request expands it,
  so those fields keep their ID form alone, except the ones the recipe
  expands.
- :func:`offering` (GitHub): GitHub's description lists its bodies as
  ``application/json`` while its text tells clients to ask for
  ``application/vnd.github+json`` (or ``.html+json``, ...); Prism, which
  negotiates by the list, would answer those with a 406. Each JSON body is
  offered under those media types too.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterable, Mapping
from typing import Any, Self

import httpx
import pytest

from tests import node_tools
from tests.server_process import ServerProcess, wait_until_answers
from tests.vectors.openapi.extract import cut, references

__all__ = [
    "PRISM",
    "PRISM_VERSION",
    "Prism",
    "missing",
    "mounted",
    "offering",
    "unexpanded",
    "violations",
]

#: Where ``.ci/install-node-tools`` puts the Prism command.
PRISM = node_tools.command("prism")
#: The version ``.ci/prism/package.json`` pins.
PRISM_VERSION = node_tools.pinned("prism", "@stoplight/prism-cli")


def missing() -> str | None:
    """Why Prism cannot run here (one line saying how to get it), or
    ``None`` when the pinned version is installed and node is there."""
    return node_tools.missing("prism", "@stoplight/prism-cli", "Stoplight Prism")


def violations(response: httpx.Response) -> list[str]:
    """What Prism found wrong with the request ``response`` answers, one
    line each (``"query.limit: must be integer"``); empty when it found
    nothing. With ``--errors`` a violation also makes the status a 4xx."""
    header = response.headers.get("sl-violations")
    if header is None:
        return []
    found = []
    for violation in json.loads(header):
        where = ".".join(str(part) for part in violation.get("location", ())[1:])
        found.append(f"{where or 'request'}: {violation.get('message')}")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Prism(ServerProcess):
    """One ``prism mock --errors`` serving ``document``; a context manager.

    :meth:`launch` starts it and :meth:`wait_until_up` waits for it, so that
    two can start at once (``with Prism(a) as one, Prism(b) as two`` waits
    for each in turn, both already starting)."""

    name = "Prism"

    def __init__(self, document: Mapping[str, Any], name: str = "description") -> None:
        super().__init__()
        self.document = self.folder / f"{name}.json"
        self.document.write_text(json.dumps(document), encoding="utf-8")
        #: Prism's own log (every request it checked, and what it found).
        self.log = self.folder / "prism.log"
        self.port = 0
        self.origin = ""

    def launch(self) -> None:
        """Start Prism on a free port (not waiting for it)."""
        reason = missing()
        if reason is not None:
            raise RuntimeError(reason)
        self.port = _free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [
                    str(PRISM),
                    "mock",
                    str(self.document),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--errors",
                    # answers made from schemas (Prefer: dynamic=true) are
                    # the same on every run
                    "--seed",
                    "restwire",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_until_up(self, seconds: float = 60.0) -> None:
        """Wait until Prism answers HTTP, at most ``seconds``; a
        ``RuntimeError`` with the end of its log if it exits or never does."""
        process = self._process
        assert process is not None
        wait_until_answers(
            process,
            f"{self.origin}/-prism-up-",  # no description has it: a 404 says it is up
            seconds,
            lambda: f"Prism exited ({process.returncode}): {self.tail()}",
            lambda: f"Prism did not answer within {seconds:g} s: {self.tail()}",
        )

    def tail(self, size: int = 2000) -> str:
        """The end of Prism's log."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-size:]

    def __enter__(self) -> Self:
        try:
            if self._process is None:
                self.launch()
            self.wait_until_up()
        except BaseException:
            self.close()
            raise
        return self


def _operations(spec: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Every operation of ``spec``: path -> methods."""
    methods = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
    return {
        path: tuple(method for method in methods if method in item)
        for path, item in spec["paths"].items()
    }


def unexpanded(
    spec: Mapping[str, Any], expanded: Iterable[tuple[str, str]] = ()
) -> dict[str, Any]:
    """``spec`` with each of Stripe's expandable fields (an ``anyOf`` of the
    ID and the objects it may name, marked ``x-expansionResources``) in its
    ID form alone, except the ``(schema, property)`` pairs in ``expanded``;
    then only the components still referenced. The parameters and request
    bodies are not touched (none has an expandable field)."""
    keep = set(expanded)

    def walk(node: Any, schema: str | None, field: str | None) -> Any:
        if isinstance(node, list):
            return [walk(each, schema, None) for each in node]
        if not isinstance(node, dict):
            return node
        if "x-expansionResources" in node and (schema, field) not in keep:
            node = {
                key: value
                for key, value in node.items()
                if key != "x-expansionResources"
            }
            node["anyOf"] = [each for each in node["anyOf"] if "$ref" not in each]
        return {
            key: (
                {name: walk(each, schema, name) for name, each in value.items()}
                if key == "properties" and isinstance(value, dict)
                else walk(value, schema, None)
            )
            for key, value in node.items()
        }

    derived = {
        key: walk(value, None, None)
        for key, value in spec.items()
        if key != "components"
    }
    derived["components"] = {
        kind: {name: walk(entry, name, None) for name, entry in entries.items()}
        for kind, entries in spec["components"].items()
    }
    return cut(derived, _operations(derived))


#: The media types GitHub documents for its JSON bodies ("Media types" in
#: GitHub's REST API docs; each operation's description names the ones it has).
GITHUB_MEDIA_TYPES = (
    "application/vnd.github+json",
    "application/vnd.github.raw+json",
    "application/vnd.github.text+json",
    "application/vnd.github.html+json",
    "application/vnd.github.full+json",
)


def offering(spec: Mapping[str, Any], media_types: Iterable[str]) -> dict[str, Any]:
    """``spec`` with each response's ``application/json`` content offered
    under ``media_types`` too (a copy; the request side is not touched)."""
    derived = copy.deepcopy(dict(spec))
    extra = tuple(media_types)

    def offer(response: dict[str, Any]) -> None:
        content = response.get("content", {})
        if "application/json" in content:
            for media_type in extra:
                content.setdefault(media_type, content["application/json"])

    for entry in derived.get("components", {}).get("responses", {}).values():
        offer(entry)
    for path, methods in _operations(derived).items():
        for method in methods:
            for response in (
                derived["paths"][path][method].get("responses", {}).values()
            ):
                if "$ref" not in response:
                    offer(response)
    return derived


def referenced(spec: Mapping[str, Any]) -> set[str]:
    """The components ``spec``'s paths reach (for tests of the steps above)."""
    wanted, seen = set(references(spec["paths"])), set()
    while wanted:
        ref = wanted.pop()
        if ref not in seen:
            seen.add(ref)
            kind, name = ref.rsplit("/", 2)[1:]
            wanted.update(references(spec["components"][kind][name]))
    return seen


def mounted(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with each path under its server's path: OpenAI's server
    is ``https://api.openai.com/v1`` (Swagger 2.0, Slack's: ``basePath``
    ``/api``) and its paths ``/chat/completions``, but Prism routes by the
    paths as written, so it would refuse ``/v1/chat/completions`` with a
    404. A copy; only the paths' keys change (and ``basePath`` goes, now
    in them)."""
    derived = copy.deepcopy(dict(spec))
    if "swagger" in derived:
        base = derived.pop("basePath", "")
    else:
        servers = derived.get("servers") or [{"url": ""}]
        base = httpx.URL(servers[0]["url"]).path
    base = base.rstrip("/")
    derived["paths"] = {base + path: item for path, item in derived["paths"].items()}
    return derived


def require() -> None:
    """Skip the test (saying why) where Prism cannot run; fail it in CI,
    which installs Prism first, wherever node is installed."""
    reason = missing()
    if reason is not None:
        if in_ci() and shutil.which("node") is not None:
            pytest.fail(f"{reason}; .ci/run installs it before the tests")
        pytest.skip(reason)


def in_ci() -> bool:
    """Whether this is CI, which promises the Prism tests: never skip there
    when node is installed."""
    return bool(os.environ.get("CI"))
