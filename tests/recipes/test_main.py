"""``python -m recipes``: the whole tour, list, run, --base-url, --help."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import httpx
import pytest

from recipes import __main__ as tour_main
from recipes.catalog import EXTRA_OF, RECIPES, find, name_of
from recipes.demo_api import DemoApi
from recipes.tour import Tour
from tests.waiting import HANG

ROOT = Path(__file__).resolve().parents[2]


def python(
    *argv: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python *argv`` run in the checkout, its output captured as text;
    ``timeout`` bounds a hang."""
    return subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def test_the_tour_runs_every_recipe_and_exits_zero() -> None:
    done = python("-m", "recipes", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for number, recipe in enumerate(RECIPES, start=1):
        assert (
            f"[{number}/{len(RECIPES)}] {name_of(recipe)}: {recipe.TITLE}"
            in done.stdout
        )
    assert done.stdout.rstrip().endswith(
        f"tour: {len(RECIPES)} of {len(RECIPES)} recipes ran"
    )
    assert "seed" not in done.stdout.lower()  # (a user's words, not the spec's)
    assert "\x1b[" not in done.stdout  # plain when piped
    assert "  > GET " in done.stdout  # the wire is shown
    assert "100% (1,048,576 of 1,048,576 bytes)" in done.stdout  # download progress


def test_list() -> None:
    out = io.StringIO()
    assert tour_main.main(["list"], out) == 0
    names = [line.split()[0] for line in out.getvalue().splitlines()]
    assert names == [name_of(recipe) for recipe in RECIPES]


def test_run_one_recipe() -> None:
    out = io.StringIO()
    assert tour_main.main(["run", "redirects"], out) == 0
    text = out.getvalue()
    assert "[1/1] redirects" in text
    assert "'credentials': []" in text
    assert "tour: 1 of 1 recipes ran" in text


def test_run_against_another_server() -> None:
    out = io.StringIO()
    with DemoApi() as elsewhere:
        assert (
            tour_main.main(["run", "stream", "--base-url", elsewhere.origin + "/"], out)
            == 0
        )
    text = out.getvalue()
    assert f"GET 127.0.0.1:{elsewhere.main.server_address[1]}/streams/sky/" in text
    assert "Stream(username='sky'" in text


def test_an_unknown_recipe_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tour_main.main(["run", "nope"], io.StringIO())
    assert exit_info.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["list", "--help"], ["run", "--help"]])
def test_every_command_has_help(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tour_main.main(argv, io.StringIO())
    assert exit_info.value.code == 0
    assert "usage: python -m recipes" in capsys.readouterr().out


def test_a_failing_recipe_fails_the_tour(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    broken = types.ModuleType("recipes.broken")
    broken.TITLE = "breaks"  # type: ignore[attr-defined]

    def run(base_url: str, tour: object) -> None:
        raise RuntimeError("boom")

    broken.run = run  # type: ignore[attr-defined]
    monkeypatch.setattr(tour_main, "RECIPES", (broken,))
    out = io.StringIO()
    assert tour_main.main([], out) == 1
    text = out.getvalue()
    assert "FAILED" in text
    assert "RuntimeError: boom" in text
    assert "tour: 0 of 1 recipes ran, 1 failed" in text


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_an_unreachable_base_url_is_one_line() -> None:
    out = io.StringIO()
    url = f"http://127.0.0.1:{_closed_port()}"
    assert tour_main.main(["run", "stream", "--base-url", url], out) == 1
    failed = [line for line in out.getvalue().splitlines() if "FAILED" in line]
    assert len(failed) == 1
    assert failed[0].startswith(f"  FAILED: GET {url}/streams/sky/: ConnectError: ")
    assert "Traceback" not in out.getvalue()
    assert "tour: 0 of 1 recipes ran, 1 failed" in out.getvalue()


def test_the_wire_log_shows_a_default_port_as_nothing() -> None:
    tour = Tour()
    tour.record(httpx.Request("GET", "https://user:secret@api.example.com/v1?a=1"))
    tour.record(httpx.Request("GET", "http://127.0.0.1:8080/x"))
    assert tour.lines == ["GET api.example.com/v1?a=1", "GET 127.0.0.1:8080/x"]


def test_serve_prints_its_urls_serves_them_and_stops_on_ctrl_c() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "recipes", "serve"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines: list[str] = []
        while not lines or lines[-1] != "Ctrl-C stops it.":
            line = server.stdout.readline()
            assert line, "".join(lines) + server.communicate(timeout=HANG)[1]
            lines.append(line.rstrip("\n"))
        origin = lines[0].removeprefix("restwire demo API at ")
        assert origin.startswith("http://127.0.0.1:")
        assert f"  GET    {origin}/posts/<id>" in lines
        # (a URL as it is typed: a route's escaped dot was shown as \.)
        assert f"  POST   {origin}/api/chat.postMessage" in lines
        assert lines[-2] == f"try: python -m recipes run posts --base-url {origin}"
        assert (
            httpx.get(f"{origin}/posts/1", timeout=HANG).json()["title"]
            == "Hello, restwire"
        )
        out = io.StringIO()
        assert tour_main.main(["run", "posts", "--base-url", origin], out) == 0
        server.send_signal(signal.SIGINT)
        rest, errors = server.communicate(timeout=HANG)
    finally:
        server.kill()
        server.wait()
    assert server.returncode == 0, errors
    assert rest == "demo API stopped\n"
    assert errors == ""


def test_serve_on_a_taken_port_says_so() -> None:
    with DemoApi() as taken:
        out = io.StringIO()
        assert tour_main.serve(taken.main.server_address[1], out) == 1
    assert out.getvalue().startswith(
        f"cannot serve the demo API on port {taken.main.server_address[1]}: "
    )


def test_serve_stops_when_told() -> None:
    stop = threading.Event()
    out = io.StringIO()
    serving = threading.Thread(target=tour_main.serve, args=(0, out, stop))
    serving.start()
    stop.set()
    serving.join(timeout=HANG)
    assert not serving.is_alive()
    assert out.getvalue().endswith("Ctrl-C stops it.\ndemo API stopped\n")


def test_serve_gives_back_the_callers_sigterm_handler() -> None:
    before = signal.getsignal(signal.SIGTERM)
    stop = threading.Event()
    stop.set()  # serve, then stop at once, on this (the main) thread
    assert tour_main.serve(0, io.StringIO(), stop) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_recipe_whose_extra_is_missing_is_skipped_in_one_line() -> None:
    # hishel hidden, as after the bare `pip install -e .`: the tour says what
    # to install and still exits 0 (the README's first command must not fail)
    script = (
        "import sys; sys.modules['hishel'] = None; "
        "from recipes.__main__ import main; sys.exit(main(['run', 'http_cache']))"
    )
    done = python("-c", script, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        '  skipped: needs restwire[cache]; install it with pip install -e ".[cache]"'
        in done.stdout
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.endswith("tour: 0 of 1 recipes ran, 1 skipped\n")


#: Every module an extra of restwire brings, made unimportable: a tour after
#: a bare ``pip install -e .``.
WITHOUT_EXTRAS = (
    "import runpy, sys\n"
    "for module in ('pydantic', 'hishel', 'redis', 'opentelemetry', 'aiohttp'):\n"
    "    sys.modules[module] = None\n"
    "sys.argv[1:] = {argv!r}\n"
    "runpy.run_module('recipes', run_name='__main__', alter_sys=True)\n"
)


def _place(name: str) -> int:
    """Where the tour runs recipe ``name``, counting from 1."""
    return [name_of(recipe) for recipe in RECIPES].index(name) + 1


def test_the_tour_without_extras_skips_what_needs_them_and_exits_zero() -> None:
    # (the timeout bounds a hang: the tour takes about 10 s)
    done = python("-c", WITHOUT_EXTRAS.format(argv=[]), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""  # no traceback
    lines = done.stdout.splitlines()
    skipped = [
        (lines[number - 1], line)
        for number, line in enumerate(lines)
        if line.startswith("  skipped")
    ]
    needs = {
        "openai_chat": "models",
        "anthropic_messages": "models",
        "http_cache": "cache",
        "slack": "models",
        "fastapi_oauth": "models",
    }
    assert skipped == [
        (
            f"[{_place(name)}/{len(RECIPES)}] {name}: {find(name).TITLE}",
            f'  skipped: needs restwire[{extra}]; install it with pip install -e ".[{extra}]"',
        )
        for name, extra in sorted(needs.items(), key=lambda item: _place(item[0]))
    ]
    total = len(RECIPES)
    assert lines[-1] == f"tour: {total - 5} of {total} recipes ran, 5 skipped"


def test_a_recipe_that_needs_an_extra_is_listed_and_skipped_without_it() -> None:
    done = python("-c", WITHOUT_EXTRAS.format(argv=["list"]), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == [
        name_of(recipe) for recipe in RECIPES
    ]
    assert f"fastapi_oauth   {find('fastapi_oauth').TITLE}\n" in done.stdout


def test_the_catalog_knows_the_module_each_extra_brings() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = options["project"]["optional-dependencies"]
    for module, extra in EXTRA_OF.items():
        assert any(need.startswith(module) for need in extras[extra]), module
    for recipe in RECIPES:
        assert set(getattr(recipe, "NEEDS", {}).items()) <= set(EXTRA_OF.items())


def test_the_readme_first_command_installs_what_the_tour_needs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = next(line for line in readme.splitlines() if "python -m recipes" in line)
    extras: set[str] = set()
    for recipe in RECIPES:
        extras.update(getattr(recipe, "NEEDS", {}).values())
    assert extras  # (http_cache needs hishel)
    installed = re.search(r'pip install -e "\.\[([\w,]+)\]"', first)
    assert installed, first
    assert extras <= set(installed[1].split(",")), (extras, first)


def _closed_redis_url() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://:s3cret@127.0.0.1:{port}/0"


def test_a_recipe_run_alone_with_its_redis_gone_says_so_in_one_line_and_fails() -> None:
    url = _closed_redis_url()
    done = python(
        "-m",
        "recipes",
        "run",
        "many_workers",
        timeout=60,
        env={**os.environ, "RESTWIRE_REDIS_URL": url},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    address = url.removeprefix("redis://:s3cret@")
    (line,) = [each for each in done.stdout.splitlines() if "Redis" in each]
    assert line == (
        f"  FAILED: needs the Redis at {address} (RESTWIRE_REDIS_URL), which does "
        "not answer (ConnectionError): start it (redis-server), or unset "
        "RESTWIRE_REDIS_URL to run the workers in this process"
    )
    assert "tour: 0 of 1 recipes ran, 1 failed" in done.stdout
    assert done.stderr == ""  # no traceback, no warning per component
    assert "  > GET" not in done.stdout  # nothing was served
    assert "s3cret" not in done.stdout


def test_the_tour_skips_a_recipe_whose_redis_is_gone_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recipes import many_workers

    monkeypatch.setenv("RESTWIRE_REDIS_URL", _closed_redis_url())
    out = io.StringIO()
    assert tour_main.run_one(many_workers, "http://127.0.0.1:1", 3, 9, out) == (
        "skipped"
    )
    lines = out.getvalue().splitlines()
    assert lines[0] == f"[3/9] many_workers: {many_workers.TITLE}"
    assert lines[1].startswith("  skipped: needs the Redis at 127.0.0.1:")
    assert len(lines) == 2


def test_the_tour_skips_a_recipe_asked_for_redis_without_redis_py(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recipes import many_workers

    monkeypatch.setenv("RESTWIRE_REDIS_URL", "redis://:s3cret@127.0.0.1:6379/0")
    monkeypatch.setitem(sys.modules, "redis", None)
    out = io.StringIO()
    assert tour_main.run_one(many_workers, "http://127.0.0.1:1", 1, 1, out) == (
        "skipped"
    )
    assert out.getvalue().splitlines()[1] == (
        "  skipped: a Redis (RESTWIRE_REDIS_URL) needs redis, which is not "
        'installed: pip install "restwire[redis]"; or unset '
        "RESTWIRE_REDIS_URL to run the workers in this process"
    )


def test_the_recipes_credentials_are_the_demos() -> None:
    """Recipes hold their credentials as constants a reader replaces; they
    are the ones the demo API accepts."""
    from recipes import (
        demo_api,
        demo_providers,
        demo_twilio,
        github,
        signing,
        stripe,
        twilio,
    )

    assert signing.SIGNING_KEY == demo_api.SIGNING_KEY
    assert github.GITHUB_TOKEN == demo_providers.GITHUB_TOKEN
    assert stripe.STRIPE_KEY == demo_providers.STRIPE_KEY
    assert stripe.STRIPE_VERSION == demo_providers.STRIPE_VERSION
    assert twilio.TWILIO_ACCOUNT == demo_twilio.TWILIO_ACCOUNT
    assert twilio.TWILIO_TOKEN == demo_twilio.TWILIO_TOKEN
    assert twilio.TWILIO_FROM == demo_twilio.TWILIO_FROM
    pytest.importorskip("pydantic")
    from recipes import fastapi_oauth

    assert fastapi_oauth.FASTAPI_USER == demo_providers.FASTAPI_USER
