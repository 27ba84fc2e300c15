"""Break restwire's credential rules one at a time; the tests must notice.

    python .ci/mutants.py             # every mutant, against the credential tests
    python .ci/mutants.py --list      # the mutants, without running them
    python .ci/mutants.py --only 3 7  # those mutants
    python .ci/mutants.py --full      # against the whole suite (slow: ~1 min each)

Each mutant is one small edit of the source that a careless change could
make: a marked header ignored, marking made a no-op, a credential on the
public header list, redaction skipped, a part of the identity or of the
HTTP cache's key left out. The edit is applied to the working tree, the
tests run (stopping at the first failure), and the file is written back
as it was, whatever happens (an interrupt too). A mutant is **killed**
when a test fails: the table names the first one. A mutant that survives
is a rule no test holds: the script exits 1.

Runs use a fresh bytecode cache (``PYTHONPYCACHEPREFIX``) so no compiled
copy of the unmutated file can stand in for the mutant. Run it on a clean
tree (``git status``): it refuses files with changes not committed.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The tests that hold the credential rules (the default run; ``--full``
#: runs every test).
CREDENTIAL_TESTS = [
    "tests/middlewares/test_credential_headers_under_any_name.py",
    "tests/pipeline/test_redirects.py",
    "tests/middlewares/test_credentials_across_redirects.py",
    "tests/pipeline/test_identity.py",
    "tests/hostile/test_credential_sources_keep_users_apart.py",
    "tests/hostile/test_identity.py",
    "tests/hostile/test_secrets.py",
    "tests/hostile/test_unattributable_clients.py",
    "tests/hostile/test_quiet_faults.py",
    "tests/pipeline/test_http_cache.py",
    "tests/pipeline/test_cross_origin_pages.py",
    "tests/middlewares/test_shared_token_slots.py",
    "tests/middlewares/test_token_refusals.py",
    "tests/pipeline/test_marked_public_headers.py",
    "tests/pipeline/test_named_callers.py",
    "tests/test_credential_rules.py",
    "tests/pipeline/test_virtual_hosts.py",
    "tests/middlewares/test_rate_limit_callers.py",
    "tests/pipeline/test_echoed_secrets.py",
]


#: How the tests run: stopping at the first failure.
PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]


@dataclass(frozen=True)
class Mutant:
    """One edit: in ``path``, ``old`` (found exactly once) becomes ``new``."""

    rule: str
    what: str
    path: str
    old: str
    new: str


MUTANTS = [
    # -- marking: a header a middleware or endpoint marked is a credential
    Mutant(
        "marking",
        "a redirect to another origin ignores marked headers",
        "pipeline/_controller/sender.py",
        "if is_credential(name, self.sensitive, self.public)",
        "if is_credential(name, (), self.public)",
    ),
    Mutant(
        "marking",
        "set_credential does not mark its header",
        "pipeline/_chain/exchange.py",
        "        self.headers[header] = value\n        self.sensitive.add(header.lower())",
        "        self.headers[header] = value",
    ),
    Mutant(
        "marking",
        "mark_sensitive is a no-op",
        "pipeline/_chain/exchange.py",
        "self.sensitive.update(name.lower() for name in names)",
        "self.sensitive.update(())",
    ),
    Mutant(
        "marking",
        "is_credential forgets what was marked",
        "pipeline/_base/credentials.py",
        "return name not in public or name in marked or name in ALWAYS_SENSITIVE",
        "return name not in public or name in ALWAYS_SENSITIVE",
    ),
    Mutant(
        "marking",
        "the identity ignores a marked public header",
        "pipeline/_chain/identity.py",
        "if lowered in public and lowered not in marked:",
        "if lowered in public:",
    ),
    # -- the public header list
    Mutant(
        "public list",
        "X-Api-Key joins PUBLIC_HEADERS",
        "pipeline/_base/credentials.py",
        '        "accept",\n        "accept-encoding",',
        '        "accept",\n        "x-api-key",\n        "accept-encoding",',
    ),
    Mutant(
        "public list",
        "X-Tenant joins PUBLIC_HEADERS",
        "pipeline/_base/credentials.py",
        '        "accept",\n        "accept-encoding",',
        '        "accept",\n        "x-tenant",\n        "accept-encoding",',
    ),
    Mutant(
        "public list",
        "a name that says credential can be made public",
        "pipeline/_chain/identity.py",
        "        if said:\n            raise SettingError(",
        "        if False:\n            raise SettingError(",
    ),
    Mutant(
        "public list",
        "'token' no longer says credential",
        "pipeline/_base/credentials.py",
        'r"auth|token|key|secret',
        'r"auth|key|secret',
    ),
    Mutant(
        "public list",
        "every cookie counts as a load balancer's stickiness cookie",
        "pipeline/_base/credentials.py",
        "    return any(\n        name.startswith(pattern[:-1])",
        "    return True or any(\n        name.startswith(pattern[:-1])",
    ),
    # -- redaction
    Mutant(
        "redaction",
        "redact_params redacts nothing",
        "pipeline/_base/errors.py",
        "if equals and value and unquote_plus(name).lower() in names:",
        "if False:",
    ),
    Mutant(
        "redaction",
        "redact_url keeps the userinfo",
        "pipeline/_base/errors.py",
        'return redact_params(_USERINFO.sub(f"//{REDACTED}@", str(url)))',
        "return redact_params(str(url))",
    ),
    Mutant(
        "redaction",
        "access_token is no longer a credential param",
        "pipeline/_base/credentials.py",
        '        "access_token",\n',
        "",
    ),
    Mutant(
        "redaction",
        "reprs show credential header values",
        "pipeline/_base/errors.py",
        'shown.append(f"{name}: {REDACTED if hidden(name) else value}")',
        'shown.append(f"{name}: {value}")',
    ),
    Mutant(
        "redaction",
        "an Identity's repr shows what it holds",
        "pipeline/_chain/identity.py",
        '        return "Identity([redacted])"',
        '        return f"Identity({tuple(self)!r})"',
    ),
    Mutant(
        "redaction",
        "the httpx-format request line shows the query",
        "pipeline/_wire/adapter.py",
        "                redact_url(request.url),",
        "                request.url,",
    ),
    Mutant(
        "redaction",
        "OAuth2 scrubs the raw secret only",
        "middlewares/oauth2.py",
        "            quoted.update(quoted_forms(secret))",
        "            quoted.add(secret)",
    ),
    # -- identity keys
    Mutant(
        "identity keys",
        "the caller's digest (cache key, RateLimit) leaves out the credential headers",
        "pipeline/_chain/identity.py",
        "for name, value in (*credentials, *signed):",
        "for name, value in signed:",
    ),
    Mutant(
        "identity keys",
        "the cache key leaves out the credential params",
        "pipeline/_chain/identity.py",
        "for param, text in params:",
        "for param, text in ():",
    ),
    Mutant(
        "identity keys",
        "the cache key leaves out a client's mark",
        "pipeline/_chain/identity.py",
        '        digest.update(b"u\\0" + caller.text.encode() + b"\\0")',
        "        pass",
    ),
    Mutant(
        "identity keys",
        "the cache key leaves out the named caller",
        "pipeline/_chain/identity.py",
        '        digest.update(b"c\\0" + repr(caller).encode() + b"\\0")',
        "        pass",
    ),
    Mutant(
        "identity keys",
        "the identity leaves out the credential params",
        "pipeline/_chain/identity.py",
        "            credential_params(url, sharing),\n            mode,",
        "            (),\n            mode,",
    ),
    Mutant(
        "identity keys",
        "request event hooks no longer make a call unshared",
        "pipeline/_chain/identity.py",
        '        if client.event_hooks["request"]:\n            return self.unseen(',
        "        if False:\n            return self.unseen(",
    ),
    Mutant(
        "identity keys",
        "a named caller's identity leaves out its name",
        "pipeline/_chain/identity.py",
        "    return Identity((host, (), mode, None, caller))",
        "    return Identity((host, (), mode, None, None))",
    ),
    Mutant(
        "identity keys",
        "every client is seen whole (no mark)",
        "pipeline/_chain/identity.py",
        "    if own_transport and not _proxy_credentials():\n        return None",
        "    if True:\n        return None",
    ),
    Mutant(
        "identity keys",
        "the client's auth is left out of the identity",
        "pipeline/_chain/identity.py",
        "    return (auth, changed)",
        "    return None",
    ),
    Mutant(
        "identity keys",
        "an unnamed shared token slot ignores its holder",
        "middlewares/shared_token.py",
        'return _Keys.of(f"{DEFAULT_PREFIX}:{where}:{holder}")',
        'return _Keys.of(f"{DEFAULT_PREFIX}:{where}")',
    ),
    # -- the origin a call's credentials belong to
    Mutant(
        "marking",
        "a redirect never leaves the origin",
        "pipeline/_controller/sender.py",
        "self.left_origin = origin_of(request.url) != origin_of(self.start)",
        "self.left_origin = False",
    ),
    Mutant(
        "marking",
        "a later page's credentials belong to its own origin",
        "pipeline/_controller/sender.py",
        "self.start = start if home is None else home",
        "self.start = start",
    ),
    Mutant(
        "identity keys",
        "a Host naming another host is left out of the identity",
        "pipeline/_chain/identity.py",
        'if lowered == "host" and url is not None and value != url.netloc:',
        "if False:",
    ),
    Mutant(
        "identity keys",
        "RateLimit keys every caller's pause alike",
        "middlewares/rate_limit.py",
        "caller = exchange.caller_key()",
        "caller = None",
    ),
    Mutant(
        "redaction",
        "an error from a 2xx answer keeps an echoed token",
        "pipeline/_base/errors.py",
        "        current.args = tuple(map(clean, current.args))",
        "        break",
    ),
]


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    by: str
    seconds: float


class _Stop(Exception):
    """An interrupt: the file is restored before the run ends."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def changed_files() -> set[str]:
    """Files with changes not committed (the script refuses to mutate them)."""
    out = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line[3:] for line in out.splitlines()}


def run(mutant: Mutant, tests: list[str]) -> Outcome:
    path = ROOT / mutant.path
    original = path.read_bytes()
    stat = path.stat()
    text = original.decode()
    found = text.count(mutant.old)
    if found != 1:
        raise SystemExit(f"{mutant.path}: {mutant.old!r} found {found} times")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="restwire-mutant-") as cache:
        environment = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
        try:
            path.write_text(text.replace(mutant.old, mutant.new))
            result = subprocess.run(
                [*PYTEST, *tests],
                cwd=ROOT,
                env=environment,
                capture_output=True,
                text=True,
            )
        finally:
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return Outcome(
        mutant, result.returncode != 0, _killer(result), time.monotonic() - started
    )


def _killer(result: subprocess.CompletedProcess[str]) -> str:
    """The first test that failed; or, when none ran (the mutant fails as
    restwire is imported), the error that stopped them."""
    output = result.stdout + result.stderr
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
    if failed:
        return failed.group(1)
    if result.returncode == 0:
        return "nothing"
    errors = re.findall(r"^E\s+([\w.]+(?:Error|Exception)\b.*)$", output, re.MULTILINE)
    if errors:
        return f"the import of restwire: {errors[-1][:100]}"
    return f"pytest's exit {result.returncode}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python .ci/mutants.py", description=__doc__)
    parser.add_argument("--list", action="store_true", help="list the mutants")
    parser.add_argument("--only", nargs="*", type=int, help="mutant numbers to run")
    parser.add_argument("--full", action="store_true", help="run the whole suite")
    arguments = parser.parse_args(argv)
    chosen = [
        (number, mutant)
        for number, mutant in enumerate(MUTANTS, 1)
        if not arguments.only or number in arguments.only
    ]
    if arguments.list:
        for number, mutant in chosen:
            print(f"{number:2}. [{mutant.rule}] {mutant.what} ({mutant.path})")
        return 0
    dirty = changed_files() & {mutant.path for _, mutant in chosen}
    if dirty:
        raise SystemExit(f"commit or stash first: {', '.join(sorted(dirty))}")
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    tests = [] if arguments.full else CREDENTIAL_TESTS
    missing = [test for test in tests if not (ROOT / test).exists()]
    if missing:
        raise SystemExit(f"no such test file: {', '.join(missing)}")
    for _, mutant in chosen:  # every edit applies, before anything runs
        found = (ROOT / mutant.path).read_text().count(mutant.old)
        if found != 1:
            raise SystemExit(f"{mutant.path}: {mutant.old!r} found {found} times")
    # The tests must pass unmutated, or every mutant would look killed.
    baseline = subprocess.run(
        [*PYTEST, *tests],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if baseline.returncode != 0:
        print(baseline.stdout[-3000:] + baseline.stderr[-2000:])
        raise SystemExit("the tests fail without any mutant: fix that first")
    outcomes = []
    for number, mutant in chosen:
        outcome = run(mutant, tests)
        outcomes.append(outcome)
        state = "killed by" if outcome.killed else "SURVIVED:"
        print(
            f"{number:2}. [{mutant.rule}] {mutant.what}: {state} {outcome.by} "
            f"({outcome.seconds:.0f} s)",
            flush=True,
        )
    survived = [o for o in outcomes if not o.killed]
    print(f"\n{len(outcomes) - len(survived)} of {len(outcomes)} mutants killed")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
