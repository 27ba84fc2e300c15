"""``_wire.jar_headers``: the ``Cookie`` header kept per state of a jar is
the one the jar itself gives, request after request, through every change
of the jar, its policy and the clock; and a signed-in client's calls send
what httpx's own client sends."""

from __future__ import annotations

import http.cookiejar
import random
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from restwire import Controller, RestEndpoint
from restwire._wire.adapter import _inner_policy, _install
from restwire._wire.jar_headers import JarHeaders

HOSTS = ["api.test", "www.api.test", "other.test", "localhost", "api.test:8443"]
PATHS = ["/", "/items", "/items/1", "/items/1/more", "/itemsx", "/a%20b", "/ä"]
DOMAINS = ["api.test", ".api.test", "www.api.test", "other.test", "localhost.local"]


def jar_answer(jar: http.cookiejar.CookieJar, url: str) -> str | None:
    """What the jar itself adds to a request to ``url``."""
    request = urllib.request.Request(url)
    jar.add_cookie_header(request)
    value: str | None = request.get_header("Cookie")
    return value


def a_cookie(chosen: random.Random, now: float) -> http.cookiejar.Cookie:
    domain = chosen.choice(DOMAINS)
    path = chosen.choice(["/", "/items", "/items/", "/items/1", "/a%20b"])
    port = chosen.choice([None, None, "8443", "80,443"])
    return http.cookiejar.Cookie(
        version=chosen.choice([0, 0, 1]),
        name=chosen.choice(["a", "b", "session", "csrftoken"]),
        value=chosen.choice(["1", "two", 'quo"ted', "x y"]),
        port=port,
        port_specified=port is not None,
        domain=domain,
        domain_specified=chosen.random() < 0.7,
        domain_initial_dot=domain.startswith("."),
        path=path,
        path_specified=chosen.random() < 0.8,
        secure=chosen.random() < 0.3,
        expires=chosen.choice([None, int(now) + 3600, int(now) - 10]),
        discard=False,
        comment=None,
        comment_url=None,
        rest={},
    )


def test_the_kept_header_is_the_jar_s_own_through_every_change() -> None:
    """Random jars of cookies for several domains, paths, ports and
    schemes, changed in place, added to, cleared, under changed policy
    settings: for every request the kept answer is the jar's own."""
    chosen = random.Random(11)
    kept = JarHeaders(_inner_policy)
    jar = http.cookiejar.CookieJar()
    _install(jar)
    asked = 0

    def ask_for(url: str) -> Callable[[], str | None]:
        def ask() -> str | None:
            nonlocal asked
            asked += 1
            return jar_answer(jar, url)

        return ask

    for step in range(3000):
        change = chosen.random()
        if change < 0.02:
            jar.set_cookie(a_cookie(chosen, time.time()))
        elif change < 0.025 and len(jar):
            next(iter(jar)).value = f"changed-{step}"  # in place
        elif change < 0.027:
            jar.clear()
        elif change < 0.03:
            _inner_policy(jar._policy).set_blocked_domains(  # type: ignore[attr-defined]
                chosen.choice([(), ("other.test",), (".api.test",)])
            )
        url = (
            f"{chosen.choice(['http', 'https'])}://{chosen.choice(HOSTS)}"
            f"{chosen.choice(PATHS)}{chosen.choice(['', '?q=1'])}"
        )
        expected = jar_answer(jar, url)
        assert kept.cookie(jar, url, ask_for(url)) == expected, (step, url)
    assert asked < 3000 // 2  # (most answers came from what was kept)


def plain_cookie(
    name: str, value: str, expires: int | None = None
) -> http.cookiejar.Cookie:
    """A cookie for api.test and every path, as a server sets one."""
    return http.cookiejar.Cookie(
        version=0,
        name=name,
        value=value,
        port=None,
        port_specified=False,
        domain="api.test",
        domain_specified=False,
        domain_initial_dot=False,
        path="/",
        path_specified=False,
        secure=False,
        expires=expires,
        discard=False,
        comment=None,
        comment_url=None,
        rest={},
    )


def test_a_cookie_past_its_expiry_is_not_sent_from_what_was_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jar = http.cookiejar.CookieJar()
    _install(jar)
    now = time.time()
    for name, expires in (("short", int(now) + 5), ("long", int(now) + 3600)):
        jar.set_cookie(plain_cookie(name, "v", expires))
    kept = JarHeaders(_inner_policy)
    url = "https://api.test/items"
    assert kept.cookie(jar, url, lambda: jar_answer(jar, url)) == "short=v; long=v"
    assert kept.cookie(jar, url, lambda: "not asked") == "short=v; long=v"
    monkeypatch.setattr(time, "time", lambda: now + 10)
    assert kept.cookie(jar, url, lambda: jar_answer(jar, url)) == "long=v"
    assert [cookie.name for cookie in jar] == ["long"]  # (cleared, as the jar does)


def test_a_policy_changed_in_place_or_while_asked_is_seen() -> None:
    """A list the policy was given, changed in place, and a setting changed
    by another thread while the jar was being asked: the next request is
    asked of the jar again, never answered from before the change."""
    protocols = ["https"]
    policy = http.cookiejar.DefaultCookiePolicy(secure_protocols=protocols)
    jar = http.cookiejar.CookieJar(policy)
    cookie = plain_cookie("sid", "1")
    cookie.secure = True
    jar.set_cookie(cookie)
    kept = JarHeaders(_inner_policy)
    url = "http://api.test/"
    assert kept.cookie(jar, url, lambda: jar_answer(jar, url)) is None
    protocols.append("http")  # (in place)
    assert kept.cookie(jar, url, lambda: jar_answer(jar, url)) == "sid=1"

    upper = "http://API.test/"  # (a request not asked about yet)

    def blocked_meanwhile() -> str | None:
        answer = jar_answer(jar, upper)
        policy.set_blocked_domains(["api.test"])  # (another thread, no lock)
        return answer

    assert kept.cookie(jar, upper, blocked_meanwhile) == "sid=1"  # (asked before)
    assert kept.cookie(jar, upper, lambda: jar_answer(jar, upper)) is None


def test_a_cookie_whose_expiry_has_a_fraction_is_cleared_when_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jar = http.cookiejar.CookieJar()
    _install(jar)
    now = time.time()
    short = plain_cookie("short", "v")
    short.expires = int(now) + 5.5  # type: ignore[assignment]  # (set in place)
    jar.set_cookie(short)
    jar.set_cookie(plain_cookie("long", "v", int(now) + 3600))
    kept = JarHeaders(_inner_policy)
    url = "https://api.test/"
    assert kept.cookie(jar, url, lambda: jar_answer(jar, url)) == "short=v; long=v"
    monkeypatch.setattr(time, "time", lambda: int(now) + 5.7)
    kept.cookie(jar, url, lambda: jar_answer(jar, url))
    assert [cookie.name for cookie in jar] == ["long"]  # (cleared, as the jar does)


def test_another_jar_or_policy_is_asked_every_time() -> None:
    class OwnPolicy(http.cookiejar.DefaultCookiePolicy):
        pass

    jar = http.cookiejar.CookieJar(OwnPolicy())
    jar.set_cookie(plain_cookie("a", "1"))
    kept = JarHeaders(_inner_policy)
    answers = iter(["a=1", "a=1 (asked again)"])
    assert kept.cookie(jar, "http://api.test/", lambda: next(answers)) == "a=1"
    assert kept.cookie(jar, "http://api.test/", lambda: next(answers)) == (
        "a=1 (asked again)"
    )


@pytest.mark.parametrize("path", ["/items/1", "/items/2", "/other"])
def test_a_signed_in_call_sends_what_httpx_sends(path: str) -> None:
    """The same jar, the same URL: restwire's request carries the Cookie
    header httpx's own client puts on it."""
    cookies = httpx.Cookies()
    cookies.set("session", "s-1", domain="api.test", path="/items")
    cookies.set("csrftoken", "c-1", domain="api.test")
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    transport = httpx.MockTransport(answer)
    controller = Controller(transport=transport)
    controller.client.cookies = cookies
    bare = httpx.Client(transport=transport, cookies=cookies)
    endpoint = RestEndpoint(url_prefix="http://api.test", path=path)
    for _ in range(2):
        controller.fetch(endpoint)
        bare.get(f"http://api.test{path}")
    ours, theirs = seen[-2].headers.get("cookie"), seen[-1].headers.get("cookie")
    assert ours == theirs
    assert ours is not None
    assert "csrftoken=c-1" in ours


def test_a_policy_of_the_user_s_reads_the_call_s_method_and_host() -> None:
    """A jar's policy of the user's own is asked for every request, and it
    reads what it read before restwire kept answers: the call's method and
    its ``Host`` header."""
    seen: list[tuple[str, str | None]] = []

    class Watching(http.cookiejar.DefaultCookiePolicy):
        def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
            seen.append((request.get_method(), request.get_header("Host")))
            return bool(super().return_ok(cookie, request))

    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    controller = Controller(transport=transport)
    controller.client.cookies.jar.set_policy(Watching())
    controller.client.cookies.set("sid", "1", domain="api.test")
    endpoint = RestEndpoint(
        url_prefix="http://api.test", path="/items", method="DELETE"
    )
    controller.fetch(endpoint)
    assert seen == [("DELETE", "api.test")]
